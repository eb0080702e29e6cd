#!/bin/sh
# A reference solution: TestSuite checks that check.sh accepts it.
set -e
sed -i 's/(len(xs) + 1)/len(xs)/' stats.py
