#!/bin/sh
# Exits 0 when the task is solved; run in the workspace.
set -e
test "$(grep -c 'return a + b;' calc.ts)" = 1
test "$(grep -c 'return a - b;' calc.ts)" = 1
