#!/bin/sh
# Exits 0 when the task is solved; run in the workspace.
set -e
grep -q 'func bar(x int) int' a.go
grep -q 'fmt.Println(bar(21))' a.go
! grep -q 'foo(' a.go || exit 1
grep -q 'x \* 2' a.go
test "$(go run .)" = 42
