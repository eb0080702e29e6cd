#!/bin/sh
# A reference solution: TestSuite checks that check.sh accepts it.
set -e
mv helpers.go strings.go
