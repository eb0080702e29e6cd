#!/bin/sh
# Exits 0 when the task is solved; run in the workspace.
set -e
grep -q 'errors.New("no such user")' users.go
! grep -q '"not found"' users.go || exit 1
go vet ./...
