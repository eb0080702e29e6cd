#!/bin/sh
# Exits 0 when the task is solved; run in the workspace.
set -e
! test -e legacy.ts || exit 1
! grep -q -e legacy -e oldGreeting index.ts || exit 1
grep -q 'console.log(greeting());' index.ts
test -e greeting.ts
