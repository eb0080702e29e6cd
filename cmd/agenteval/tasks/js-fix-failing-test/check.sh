#!/bin/sh
# Exits 0 when the task is solved; run in the workspace.
set -e
test "$(node test.js)" = ok
grep -q 'capitalize("hello"), "Hello"' test.js
