module github.com/agentls/agentls

go 1.26

require (
	github.com/aymanbagabas/go-udiff v0.4.2 // indirect
	github.com/google/go-cmp v0.7.0 // indirect
)
