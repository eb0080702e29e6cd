#!/bin/sh
# Exits 0 when the task is solved; run in the workspace.
set -e
grep -Eq 'export const API_URL(: string)? = "https://example.com/api";?' constants.ts
