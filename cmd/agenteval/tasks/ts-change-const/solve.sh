#!/bin/sh
# A reference solution: TestSuite checks that check.sh accepts it.
set -e
sed -i 's/TIMEOUT_MS = 1000/TIMEOUT_MS = 5000/' config.ts
