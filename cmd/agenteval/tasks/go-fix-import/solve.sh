#!/bin/sh
# A reference solution: TestSuite checks that check.sh accepts it.
set -e
sed -i 's/^import "fmt"$/import (\n\t"fmt"\n\t"strings"\n)/' main.go
