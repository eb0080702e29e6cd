#!/bin/sh
# A reference solution: TestSuite checks that check.sh accepts it.
set -e
sed -i 's/charAt(1)/charAt(0)/' lib.js
