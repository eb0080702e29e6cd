#!/bin/sh
# A reference solution: TestSuite checks that check.sh accepts it.
set -e
cat >> mathx.go <<'GO'

// Max returns the larger of a and b.
func Max(a, b int) int {
	if a > b {
		return a
	}
	return b
}
GO
