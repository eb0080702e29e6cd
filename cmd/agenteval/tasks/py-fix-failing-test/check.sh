#!/bin/sh
# Exits 0 when the task is solved; run in the workspace.
set -e
python3 -m unittest -q test_stats 2>/dev/null
grep -q 'assertEqual(mean(\[2, 4, 6\]), 4)' test_stats.py
