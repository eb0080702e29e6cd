#!/bin/sh
# Exits 0 when the task is solved; run in the workspace.
set -e
grep -Eq 'export function isEven\(n: number\): boolean' math.ts
grep -Eq '% ?2' math.ts
grep -q 'export function double' math.ts
