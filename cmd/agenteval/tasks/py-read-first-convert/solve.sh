#!/bin/sh
# A reference solution: TestSuite checks that check.sh accepts it.
set -e
sed -i 's|c \* 9 / 5 - 32|c * 9 / 5 + 32|' temps.py
