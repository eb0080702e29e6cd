package policy

import (
	"slices"
	"strings"
	"testing"
)

// TestWrittenRunBy: an allowlisted runner asks again when the turn wrote
// a file it runs — through wrappers, nested shells and substitutions —
// and not for a file it does not run, nor for a command that runs none.
func TestWrittenRunBy(t *testing.T) {
	for _, tc := range []struct {
		line    string
		written []string
		want    string // in the reason; "" for none
		files   []string
	}{
		{"go test ./...", []string{"x_test.go"}, "the agent changed x_test.go, which `go test` runs", []string{"x_test.go"}},
		{"go test ./...", []string{"pkg/util.go", "README.md"}, "pkg/util.go, which `go test`", []string{"pkg/util.go"}},
		{"go generate ./...", []string{"gen.go"}, "`go generate`", nil},
		{"go build", []string{"go.mod"}, "`go build`", nil},
		{"go vet ./...", []string{"x_test.go"}, "", nil},
		{"go test ./...", []string{"README.md", "docs/a.png"}, "", nil},
		{"go test ./...", nil, "", nil},
		{"make", []string{"Makefile"}, "the agent changed Makefile, which `make` runs", nil},
		{"make test", []string{"build/rules.mk"}, "`make`", nil},
		{"make", []string{"scripts/gen.py"}, "`make`", nil},
		{"make", []string{"NOTES.md"}, "", nil},
		{"npm test", []string{"package.json"}, "package.json, which `npm test`", nil},
		{"npm run build", []string{"src/index.ts"}, "`npm run`", nil},
		{"npm ls", []string{"package.json"}, "", nil},
		{"npx jest", []string{"a.test.js"}, "`npx`", nil},
		{"pytest -q", []string{"tests/conftest.py"}, "conftest.py, which `pytest`", nil},
		{"python -m pytest", []string{"pytest.ini"}, "`python`", nil},
		{"python3 -m pytest", []string{"pyproject.toml"}, "`python3`", nil},
		{"cargo test", []string{"build.rs"}, "build.rs, which `cargo test`", nil},
		{"cargo build --release", []string{"Cargo.toml"}, "`cargo build`", nil},
		{"cargo fmt", []string{"src/lib.rs"}, "", nil},
		{"cd proj && go test ./...", []string{"proj/a_test.go"}, "`go test`", nil},
		{"FOO=1 timeout 60 nice -n 5 go test ./...", []string{"a_test.go"}, "`go test`", nil},
		{"env GOFLAGS=-count=1 go test", []string{"a_test.go"}, "`go test`", nil},
		{"sh -c 'go test ./...'", []string{"a_test.go"}, "`go test`", nil},
		{"bash -lc \"make all\"", []string{"Makefile"}, "`make`", nil},
		{"echo $(make -s version)", []string{"Makefile"}, "`make`", nil},
		{"./build.sh", []string{"build.sh"}, "the agent changed build.sh, which `./build.sh` runs", nil},
		{"scripts/check", []string{"scripts/check"}, "`scripts/check` runs", nil},
		{"git status && ls", []string{"Makefile", "a_test.go"}, "", nil},
		{"echo go test", []string{"a_test.go"}, "", nil},
		{"go test a_test.go b_test.go c_test.go d_test.go", []string{"a_test.go", "b_test.go", "c_test.go", "d_test.go"}, "a_test.go, b_test.go, c_test.go and 1 more files", nil},
		{"if then fi (", []string{"a_test.go"}, "", nil},
	} {
		why, files := WrittenRunBy(tc.line, tc.written)
		if (tc.want == "") != (why == "") || !strings.Contains(why, tc.want) {
			t.Errorf("%q after %v: %q, want one with %q", tc.line, tc.written, why, tc.want)
		}
		if tc.files != nil && !slices.Equal(files, tc.files) {
			t.Errorf("%q after %v: files %v, want %v", tc.line, tc.written, files, tc.files)
		}
	}
}
