#!/bin/sh
# Exits 0 when the task is solved; run in the workspace.
set -e
! grep -q legacy_total orders.py || exit 1
python3 -c 'import orders; assert orders.total([1, 2]) == 3; assert orders.count([1, 2]) == 2'
