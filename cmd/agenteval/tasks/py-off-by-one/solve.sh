#!/bin/sh
# A reference solution: TestSuite checks that check.sh accepts it.
set -e
sed -i 's/range(1, n)/range(1, n + 1)/' count.py
