#!/bin/sh
# A reference solution: TestSuite checks that check.sh accepts it.
set -e
rm legacy.ts
sed -i '/legacy/d; /oldGreeting/d' index.ts
