#!/bin/sh
# Exits 0 when the task is solved; run in the workspace.
set -e
python3 -c 'import shapes; assert shapes.perimeter_of_square(3) == 12; assert shapes.area_of_square(3) == 9; assert shapes.area_of_rectangle(2, 3) == 6'
