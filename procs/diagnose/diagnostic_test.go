package diagnose

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestPresets(t *testing.T) {
	tests := []struct {
		command string
		want    []string
		label   string
	}{
		{"go build ./...", []string{"go-build"}, "go build"},
		{"go vet ./...", []string{"go-vet"}, "go vet"},
		{"go test -run TestX ./...", []string{"go-build", "go-test"}, "go test"},
		{"go run ./cmd/x", []string{"go-build", "go-panic"}, "go run"},
		{"go mod tidy", nil, "go mod"},
		{"go vet ./... && go test ./...", []string{"go-vet", "go-build", "go-test"}, "go vet"},
		{"cd sub && GOFLAGS=-mod=mod go test .", []string{"go-build", "go-test"}, "go test"},
		{"gcc -Wall -c a.c", []string{"gcc"}, "gcc"},
		{"/usr/bin/cc a.c", []string{"gcc"}, "cc"},
		{"clang++ -std=c++20 a.cc", []string{"gcc"}, "clang++"},
		{"make -j4 all", []string{"gcc"}, "make"},
		{"npx tsc --noEmit", []string{"tsc"}, "tsc"},
		{"tsc -p .", []string{"tsc"}, "tsc"},
		{"npx eslint src", []string{"eslint", "eslint-compact", "eslint-unix"}, "eslint"},
		{"python3 main.py", []string{"python-traceback"}, "python3"},
		{"python -m pytest -x tests", []string{"pytest"}, "pytest"},
		{"uv run pytest", []string{"pytest"}, "pytest"},
		{"pytest -q", []string{"pytest"}, "pytest"},
		{"python3 -m mypy src", []string{"generic", "python-traceback"}, "mypy"},
		{"cargo build --release", []string{"rust", "rust-panic"}, "cargo build"},
		{"cargo test", []string{"rust", "rust-panic"}, "cargo test"},
		{"rustc main.rs", []string{"rust", "rust-panic"}, "rustc"},
		{"time timeout 60 go build .", []string{"go-build"}, "go build"},
		{"sudo -E env CGO_ENABLED=0 go build .", []string{"go-build"}, "go build"},
		{"grep -rn foo .", nil, "grep"},
		{"rg foo | head", nil, "rg"},
		{"git status", nil, "git"},
		{"./build.sh --fast", []string{"generic"}, "build.sh"},
		{"cd web && npm run lint", []string{"tsc", "eslint", "eslint-compact", "eslint-unix"}, "npm run lint"},
		{`bash -c "echo 'unterminated`, []string{"generic"}, "bash"},
		{"", nil, ""},
	}
	for _, tt := range tests {
		if got := Presets(tt.command); !cmp.Equal(got, tt.want) {
			t.Errorf("Presets(%q) = %q, want %q", tt.command, got, tt.want)
		}
		if got := Label(tt.command); got != tt.label {
			t.Errorf("Label(%q) = %q, want %q", tt.command, got, tt.label)
		}
	}
}

// TestPresetsCompile checks every preset exists and its formats compile.
func TestPresetsCompile(t *testing.T) {
	for _, name := range presetNames {
		p := presetByName(name)
		if len(p.formats) == 0 && p.scan == nil {
			t.Errorf("preset %s reads nothing", name)
		}
		if len(p.formats) > 0 {
			if _, err := newErrorformat(p.formats); err != nil {
				t.Errorf("preset %s: %v", name, err)
			}
		}
	}
}

func TestOptions(t *testing.T) {
	base := t.TempDir()
	root := filepath.Join(base, "ws")
	writeFiles(t, base, map[string]string{
		"ws/a.go":         "package a\n",
		"ws/sub/b.go":     "package a\n",
		"outside/c.go":    "package c\n",
		"ws/dir.go/x.txt": "a directory named like a file\n",
	})
	link := filepath.Join(base, "link")
	if err := os.Symlink(root, link); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		command string
		output  string
		opts    Options
		want    []string
	}{
		{
			name:    "relative to Dir; outside the root, missing files and directories dropped",
			command: "go build ./...",
			output:  "./a.go:1:1: first\n../outside/c.go:1:1: outside\n" + filepath.Join(base, "outside/c.go") + ":2:1: absolute outside\nmissing.go:3:1: nope\ndir.go:1:1: a directory\n",
			opts:    Options{Dir: root, Root: root},
			want:    []string{"a.go:1:1: error: first"},
		},
		{
			name:    "empty Dir means Root",
			command: "go build ./...",
			output:  "sub/b.go:1:2: x\n",
			opts:    Options{Root: root},
			want:    []string{"sub/b.go:1:2: error: x"},
		},
		{
			name:    "relative Dir is under Root",
			command: "go build .",
			output:  "b.go:1:2: x\n",
			opts:    Options{Dir: "sub", Root: root},
			want:    []string{"sub/b.go:1:2: error: x"},
		},
		{
			name:    "no Root keeps files anywhere",
			command: "go build ./...",
			output:  "../outside/c.go:1:1: outside\n",
			opts:    Options{Dir: root},
			want:    []string{"../outside/c.go:1:1: error: outside"},
		},
		{
			name:    "a tool printing the real path of a symlinked root",
			command: "go build ./...",
			output:  filepath.Join(root, "a.go") + ":1:1: via the real path\n",
			opts:    Options{Dir: link, Root: link},
			want:    []string{"../link/a.go:1:1: error: via the real path"}, // spelled as Root is
		},
		{
			name:    "duplicates merged, a column-less copy into the located one, worst severity kept",
			command: "go vet ./... && go build ./...",
			output:  "vet: ./a.go:1:1: same\n./a.go:1:1: same\n./a.go:1: same\nsub/b.go:1:1: other\nsub/b.go:1:1: other\n",
			opts:    Options{Dir: root, Root: root},
			want:    []string{"a.go:1:1: error: same", "sub/b.go:1:1: error: other"},
		},
		{
			// An untyped config format takes the preset's default
			// severity (generic: warning).
			name:    "config formats are tried first",
			command: "mytool",
			output:  "!! a.go@1 boom\nsub/b.go:2:3: generic\n",
			opts:    Options{Dir: root, Root: root, Formats: []string{`!! %f@%l %m`}},
			want:    []string{"a.go:1:0: warning: boom", "sub/b.go:2:3: warning: generic"},
		},
		{
			name:    "config formats run for a command with only hand-written presets",
			command: "python3 x.py",
			output:  "!! a.go@1 boom\n",
			opts:    Options{Dir: root, Root: root, Formats: []string{`!! %f@%l %m`}},
			want:    []string{"a.go:1:0: error: boom"},
		},
		{
			name:    "make's directories",
			command: "make",
			output:  "make: Entering directory '" + filepath.Join(root, "sub") + "'\nb.go:1:1: error: in sub\nmake[1]: Entering directory 'deeper'\nmake[1]: Leaving directory 'deeper'\nmake: Leaving directory '" + filepath.Join(root, "sub") + "'\na.go:2:1: error: back\n",
			opts:    Options{Dir: root, Root: root},
			want:    []string{"a.go:2:1: error: back", "sub/b.go:1:1: error: in sub"},
		},
		{
			name:    "a go test name resolved by the only file so named under Dir",
			command: "go test ./...",
			output:  "--- FAIL: TestB (0.00s)\n    b.go:1: bad\nFAIL\tnot/a/module/path\t0.01s\n",
			opts:    Options{Dir: root, Root: root},
			want:    []string{"sub/b.go:1:0: error: TestB: bad"},
		},
		{
			name:    "a long line does not stop the parse",
			command: "go build",
			output:  strings.Repeat("x", 100000) + "\n./a.go:1:1: after the long line\n",
			opts:    Options{Dir: root, Root: root},
			want:    []string{"a.go:1:1: error: after the long line"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			diags, err := Parse(tt.command, tt.output, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, render(root, diags)); diff != "" {
				t.Errorf("mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestBadFormats(t *testing.T) {
	for _, f := range []string{`%f:%l:%`, `%f:%*`, `%*[abc`, `%Y%f`, `%f%[`} {
		if _, err := Parse("make", "a.c:1: x\n", Options{Formats: []string{`%f:%l: %m`, f}}); err == nil || !strings.Contains(err.Error(), f) {
			t.Errorf("Parse with format %q: error %v, want one naming the format", f, err)
		}
	}
}
