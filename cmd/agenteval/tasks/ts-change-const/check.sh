#!/bin/sh
# Exits 0 when the task is solved; run in the workspace.
set -e
grep -Eq 'export const TIMEOUT_MS = 5_?000;' config.ts
grep -q 'export const RETRIES = 3;' config.ts
