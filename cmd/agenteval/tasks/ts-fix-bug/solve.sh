#!/bin/sh
# A reference solution: TestSuite checks that check.sh accepts it.
set -e
sed -i '2s/a - b/a + b/' calc.ts
