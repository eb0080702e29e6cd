#!/bin/sh
# A reference solution: TestSuite checks that check.sh accepts it.
set -e
printf '\n\ndef perimeter_of_square(side):\n    return 4 * side\n' >> shapes.py
