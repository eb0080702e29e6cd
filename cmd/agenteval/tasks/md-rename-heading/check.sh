#!/bin/sh
# Exits 0 when the task is solved; run in the workspace.
set -e
grep -q '^## Installation$' README.md
! grep -q 'Setup' README.md || exit 1
grep -q '^## Use$' README.md
