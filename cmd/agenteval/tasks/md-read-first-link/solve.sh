#!/bin/sh
# A reference solution: TestSuite checks that check.sh accepts it.
set -e
sed -i 's/CHANGES.txt/HISTORY.md/' README.md
