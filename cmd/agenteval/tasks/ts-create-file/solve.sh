#!/bin/sh
# A reference solution: TestSuite checks that check.sh accepts it.
set -e
echo 'export const API_URL = "https://example.com/api";' > constants.ts
