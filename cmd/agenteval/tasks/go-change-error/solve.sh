#!/bin/sh
# A reference solution: TestSuite checks that check.sh accepts it.
set -e
sed -i 's/"not found"/"no such user"/' users.go
