#!/bin/sh
# A reference solution: TestSuite checks that check.sh accepts it.
set -e
mv notes.md docs/notes.md
