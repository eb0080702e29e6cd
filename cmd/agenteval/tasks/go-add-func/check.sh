#!/bin/sh
# Exits 0 when the task is solved; run in the workspace.
set -e
d=$(mktemp -d)
cp -r . "$d"
cat > "$d/zz_check_test.go" <<'GO'
package mathx

import "testing"

func TestCheck(t *testing.T) {
	if Max(2, 5) != 5 || Max(7, 1) != 7 || Min(2, 5) != 2 {
		t.Fatal("wrong")
	}
}
GO
(cd "$d" && go test ./... >/dev/null)
