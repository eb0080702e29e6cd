#!/bin/sh
# Exits 0 when the task is solved; run in the workspace.
set -e
grep -q 'def slugify' text.py
! grep -q 'def slugify' misc.py || exit 1
grep -q 'def clamp' misc.py
test "$(python3 main.py)" = hello-world
grep -q 'from text import' main.py
