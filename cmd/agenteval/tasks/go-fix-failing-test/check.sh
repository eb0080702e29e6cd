#!/bin/sh
# Exits 0 when the task is solved; run in the workspace.
set -e
go test ./...
grep -q 'got != 6' sum_test.go
