#!/bin/sh
# A reference solution: TestSuite checks that check.sh accepts it.
set -e
cat > hello.go <<'GO'
package main

import "fmt"

func main() {
	fmt.Println("hello, world")
}
GO
