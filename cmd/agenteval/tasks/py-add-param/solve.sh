#!/bin/sh
# A reference solution: TestSuite checks that check.sh accepts it.
set -e
printf 'def rect_area(w, h, scale=1):\n    return w * h * scale\n' > area.py
