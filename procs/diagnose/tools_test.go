package diagnose

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// goModule is a module with a compile error in its root package, a vet
// finding, failing tests and a panic in sub, and a passing test in other
// whose file has the same name as sub's: a bare "s_test.go" can only be
// placed through the package of the FAIL line.
var goModule = map[string]string{
	"go.mod": "module example.com/m\n\ngo 1.22\n",
	"a.go": `package m

func F() int {
	return x
}

func G() {}

func G() {}
`,
	"vetpkg/v.go": `package vetpkg

import "fmt"

func P() {
	fmt.Printf("%d\n", "s")
}
`,
	"sub/s.go": "package sub\n\nfunc Add(a, b int) int { return a - b }\n",
	"sub/s_test.go": `package sub

import "testing"

func TestAdd(t *testing.T) {
	if got := Add(1, 2); got != 3 {
		t.Errorf("Add(1, 2) = %d, want 3\nsecond line", got)
	}
}

func TestPass(t *testing.T) { t.Log("a passing test's log") }

func TestSub(t *testing.T) {
	t.Run("one", func(t *testing.T) { t.Fatal("sub failed") })
	t.Run("two", func(t *testing.T) { t.Log("fine") })
}

func TestPanic(t *testing.T) {
	var m map[string]int
	m["a"] = 1
}
`,
	"other/s_test.go": `package other

import "testing"

func TestOther(t *testing.T) { t.Log("other passes") }
`,
}

func TestGoTools(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	writeFiles(t, root, goModule)
	sub := filepath.Join(root, "sub")

	buildErrors := []string{
		"a.go:4:9: error: undefined: x",
		"a.go:9:6: error: G redeclared in this block⏎./a.go:7:6: other declaration of G",
	}
	testFailures := []string{
		"sub/s_test.go:7:0: error: TestAdd: Add(1, 2) = -1, want 3⏎second line",
		"sub/s_test.go:14:0: error: TestSub/one: sub failed",
		"sub/s_test.go:20:0: error: TestPanic: panic: assignment to entry in nil map [recovered, repanicked]",
	}
	vetFailure := []string{`vetpkg/v.go:6:14: error: fmt.Printf format %d has arg "s" of wrong type string`}
	tests := []struct {
		name    string
		dir     string
		command []string
		want    []string
	}{
		{"build", root, []string{"go", "build", "./..."}, buildErrors},
		// vet reports a package's first type error with a "vet: " prefix.
		{"vet", root, []string{"go", "vet", "./..."}, []string{
			"a.go:9:6: error: G redeclared in this block",
			`vetpkg/v.go:6:14: warning: fmt.Printf format %d has arg "s" of wrong type string`,
		}},
		// go test vets too, and a vet finding fails the run: an error.
		{"test", root, []string{"go", "test", "./..."}, slices.Concat(buildErrors, testFailures, vetFailure)},
		{"test -v", root, []string{"go", "test", "-v", "./..."}, slices.Concat(buildErrors, testFailures, vetFailure)},
		{"test from a package directory", sub, []string{"go", "test", "."}, testFailures},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := runTool(t, tt.dir, goEnv, tt.command[0], tt.command[1:]...)
			command := strings.Join(tt.command, " ")
			diags, err := Parse(command, out, Options{Dir: tt.dir, Root: root})
			if err != nil {
				t.Fatal(err)
			}
			got := render(root, diags)
			if tt.name == "test -v" || tt.name == "test" {
				// The panic's message varies between Go versions
				// ("[recovered]", "[recovered, repanicked]"); its place
				// does not.
				got, tt.want = trimPanic(got), trimPanic(tt.want)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Parse(%q) mismatch (-want +got):\n%s\noutput:\n%s", command, diff, out)
			}
		})
	}
}

func trimPanic(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		if j := strings.Index(l, " [recovered"); j >= 0 {
			l = l[:j]
		}
		out[i] = l
	}
	return out
}

func TestGCC(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	writeFiles(t, root, map[string]string{
		"csrc/a.c": `#include <stdio.h>
int main(void) {
	int unused;
	x = 1;
	printf("%d\n", "s");
	return 0;
}
`,
		"csrc/Makefile": "all:\n\tgcc -Wall -c a.c -o a.o\n",
		"link/l.c":      "void foo(void);\nint main(void) { foo(); return 0; }\n",
	})
	want := []string{
		"csrc/a.c:3:13: warning: unused variable ‘unused’ [-Wunused-variable]",
		"csrc/a.c:4:9: error: ‘x’ undeclared (first use in this function)",
		"csrc/a.c:4:9: hint: each undeclared identifier is reported only once for each function it appears in",
		"csrc/a.c:5:18: warning: format ‘%d’ expects argument of type ‘int’, but argument 2 has type ‘char *’ [-Wformat=]",
	}
	tests := []struct {
		name    string
		dir     string
		command []string
		want    []string
	}{
		{"gcc", filepath.Join(root, "csrc"), []string{"gcc", "-Wall", "-c", "a.c", "-o", "a.o"}, want},
		// make prints "Entering directory '<root>/csrc'": gcc's paths are
		// relative to that, not to the shell's directory.
		{"make -C", root, []string{"make", "-C", "csrc"}, want},
		{"linker", filepath.Join(root, "link"), []string{"gcc", "l.c", "-o", "l"}, []string{
			"link/l.c:0:0: error: undefined reference to `foo'",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// LC_ALL=C.UTF-8 pins gcc's quotes to ‘’ whatever the locale.
			out := runTool(t, tt.dir, []string{"LC_ALL=C.UTF-8", "LANG=C.UTF-8"}, tt.command[0], tt.command[1:]...)
			diags, err := Parse(strings.Join(tt.command, " "), out, Options{Dir: tt.dir, Root: root})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, render(root, diags)); diff != "" {
				t.Errorf("mismatch (-want +got):\n%s\noutput:\n%s", diff, out)
			}
		})
	}
}

func TestPythonTraceback(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	writeFiles(t, root, map[string]string{
		"lib.py":  "import json\n\n\ndef load(s):\n    return json.loads(s)\n",
		"main.py": "from lib import load\n\n\ndef main():\n    load(\"{bad\")\n\n\nmain()\n",
		"boom.py": "def f():\n    raise ValueError(\"bad value\")\n\n\nf()\n",
		"syn.py":  "def f(:\n    pass\n",
	})
	tests := []struct {
		file string
		want string
	}{
		// The exception is raised inside the standard library: it is
		// placed on the deepest frame in the workspace.
		{"main.py", "lib.py:5:0: error: json.decoder.JSONDecodeError: Expecting property name enclosed in double quotes: line 1 column 2 (char 1)⏎(raised in "},
		{"boom.py", "boom.py:2:0: error: ValueError: bad value"},
		{"syn.py", "syn.py:1:0: error: SyntaxError: invalid syntax"},
	}
	// Version managers (pyenv) put a slow shell script first in PATH:
	// ask it once for the real interpreter.
	python := strings.TrimSpace(runTool(t, root, nil, "python3", "-c", "import sys; print(sys.executable)"))
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			out := runTool(t, root, nil, python, tt.file)
			diags, err := Parse("python3 "+tt.file, out, Options{Dir: root, Root: root})
			if err != nil {
				t.Fatal(err)
			}
			got := render(root, diags)
			if len(got) != 1 || !strings.HasPrefix(got[0], tt.want) {
				t.Errorf("got %q, want one diagnostic starting %q\noutput:\n%s", got, tt.want, out)
			}
		})
	}
}

func TestCargo(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	writeFiles(t, root, map[string]string{
		"Cargo.toml": "[package]\nname = \"rs\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\n",
		"src/main.rs": `fn main() {
    let x: i32 = "a";
}
`,
		"lib/Cargo.toml": "[package]\nname = \"lib\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\n",
		"lib/src/lib.rs": `pub fn add(a: i32, b: i32) -> i32 {
    let unused = 1;
    a + b
}

#[cfg(test)]
mod tests {
    #[test]
    fn it_works() {
        assert_eq!(super::add(2, 2), 5);
    }
}
`,
	})
	env := []string{"CARGO_TARGET_DIR=" + filepath.Join(t.TempDir(), "target"), "CARGO_TERM_COLOR=never", "RUST_BACKTRACE=0", "CARGO_NET_OFFLINE=true"}
	tests := []struct {
		name    string
		dir     string
		command []string
		want    []string
	}{
		// Run from src/: cargo prints paths relative to the package.
		{"build", filepath.Join(root, "src"), []string{"cargo", "build"}, []string{
			"src/main.rs:2:18: error: mismatched types [E0308]",
		}},
		{"test", filepath.Join(root, "lib"), []string{"cargo", "test"}, []string{
			"lib/src/lib.rs:2:9: warning: unused variable: `unused`",
			"lib/src/lib.rs:10:9: error: thread 'tests::it_works' panicked:⏎assertion `left == right` failed⏎  left: 4⏎ right: 5",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := runTool(t, tt.dir, env, tt.command[0], tt.command[1:]...)
			diags, err := Parse(strings.Join(tt.command, " "), out, Options{Dir: tt.dir, Root: root})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, render(root, diags)); diff != "" {
				t.Errorf("mismatch (-want +got):\n%s\noutput:\n%s", diff, out)
			}
		})
	}
}
