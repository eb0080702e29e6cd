#!/bin/sh
# Exits 0 when the task is solved; run in the workspace.
set -e
python3 -c 'from area import rect_area; assert rect_area(2, 3) == 6; assert rect_area(2, 3, 2) == 12; assert rect_area(2, 3, scale=3) == 18'
