module github.com/agentls/agentls

go 1.26

require (
	github.com/aymanbagabas/go-udiff v0.4.2 // indirect
	github.com/google/go-cmp v0.7.0 // indirect
	github.com/klauspost/cpuid/v2 v2.2.10 // indirect
	github.com/zeebo/xxh3 v1.1.0 // indirect
	golang.org/x/sys v0.30.0 // indirect
)
