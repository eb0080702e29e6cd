#!/bin/sh
# Exits 0 when the task is solved; run in the workspace.
set -e
grep -q 'const MaxAttempts = 3' config.go
grep -q 'return MaxAttempts + 1' client.go
! grep -rq MaxRetries --include=*.go . || exit 1
go vet ./...
