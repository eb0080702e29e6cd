#!/bin/sh
# Exits 0 when the task is solved; run in the workspace.
set -e
python3 -c 'from count import count_to; assert count_to(3) == [1, 2, 3]; assert count_to(0) == []'
