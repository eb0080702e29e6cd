#!/bin/sh
# Exits 0 when the task is solved; run in the workspace.
set -e
test "$(python3 main.py)" = "Hi, Ann"
grep -q 'def welcome(name)' utils.py
! grep -q greet utils.py main.py || exit 1
