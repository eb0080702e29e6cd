#!/bin/sh
# Exits 0 when the task is solved; run in the workspace.
set -e
! test -e helpers.go || exit 1
grep -q 'func Shout(s string) string' strings.go
go vet ./...
