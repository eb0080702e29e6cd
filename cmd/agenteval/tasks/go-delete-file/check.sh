#!/bin/sh
# Exits 0 when the task is solved; run in the workspace.
set -e
! test -e old.go || exit 1
test -e shop.go
grep -q 'return 3 \* n' shop.go
go vet ./...
