#!/bin/sh
# A reference solution: TestSuite checks that check.sh accepts it.
set -e
sed -i 's/1.1.9/1.2.0/' version.go
