package diagnose

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSummary(t *testing.T) {
	d := func(path string, sev Severity) Diagnostic {
		return Diagnostic{Path: path, Line: 1, Severity: sev, Message: "m"}
	}
	tests := []struct {
		command string
		diags   []Diagnostic
		exit    int
	}{
		{"go build ./...", nil, 0},
		{"go build ./...", nil, 1},
		{"go test ./...", []Diagnostic{d("/w/a_test.go", Error), d("/w/a_test.go", Error), d("/w/sub/b_test.go", Error)}, 1},
		{"go test -run TestX .", []Diagnostic{d("/w/a_test.go", Error)}, 1},
		{"go vet ./...", []Diagnostic{d("/w/a.go", Warning)}, 1},
		{"go vet ./...", []Diagnostic{d("/w/a.go", Error), d("/w/b.go", Warning), d("/w/b.go", Warning)}, 1},
		{"gcc -Wall -c a.c", []Diagnostic{d("/w/a.c", Error), d("/w/a.c", Error), d("/w/a.c", Warning), d("/w/a.c", Hint)}, 1},
		{"gcc -Wall -c a.c", []Diagnostic{d("/w/a.c", Warning)}, 0},
		{"npx tsc --noEmit", []Diagnostic{d("/w/src/a.ts", Error), d("/w/src/b.ts", Error)}, 2},
		{"npx eslint src", []Diagnostic{d("/w/src/a.js", Warning), d("/w/src/a.js", Warning)}, 0},
		{"python -m pytest", []Diagnostic{d("/w/tests/test_a.py", Error)}, 1},
		{"python3 main.py", []Diagnostic{d("/w/main.py", Error)}, 1},
		{"cargo test", []Diagnostic{d("/w/src/lib.rs", Warning), d("/w/src/lib.rs", Error)}, 101},
		{"cargo build", nil, 0},
		{"make -j4", nil, 2},
		{"cd sub && go test ./...", []Diagnostic{d("/w/sub/x_test.go", Error)}, 1},
		{"mypy src", []Diagnostic{d("/w/src/m.py", Info)}, 0},
		{"./build.sh", []Diagnostic{d("/w/x.c", Warning)}, 3},
	}
	var b strings.Builder
	for _, tt := range tests {
		fmt.Fprintf(&b, "%-28s exit %-3d → %s\n", tt.command, tt.exit, Summary(tt.command, tt.diags, tt.exit))
	}
	const golden = "testdata/summary.golden"
	if *update {
		if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), b.String()); diff != "" {
		t.Errorf("summaries (-want +got):\n%s", diff)
	}
}
