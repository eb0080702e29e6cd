#!/bin/sh
# A reference solution: TestSuite checks that check.sh accepts it.
set -e
printf '\nexport function isEven(n: number): boolean {\n  return n %% 2 === 0;\n}\n' >> math.ts
