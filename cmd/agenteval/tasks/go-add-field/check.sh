#!/bin/sh
# Exits 0 when the task is solved; run in the workspace.
set -e
grep -Eq '^\s*Email\s+string' user.go
grep -Eq '^\s*Name\s+string' user.go
go vet ./...
