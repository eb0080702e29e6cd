#!/bin/sh
# Exits 0 when the task is solved; run in the workspace.
set -e
! grep -q recieve docs.md || exit 1
test "$(grep -c receive docs.md)" = 2
