#!/bin/sh
# Exits 0 when the task is solved; run in the workspace.
set -e
grep -q '](HISTORY.md)' README.md
! grep -q CHANGES.txt README.md || exit 1
