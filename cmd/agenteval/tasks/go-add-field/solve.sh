#!/bin/sh
# A reference solution: TestSuite checks that check.sh accepts it.
set -e
sed -i 's/^\tAge  int$/\tAge   int\n\tEmail string/; s/^\tName string$/\tName  string/' user.go
