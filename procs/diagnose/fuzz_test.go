package diagnose

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzParse checks that Parse never panics and only returns existing
// files inside the root, whatever the command printed.
func FuzzParse(f *testing.F) {
	seeds, _ := filepath.Glob("testdata/cases/*.txtar")
	for _, s := range seeds {
		if data, err := os.ReadFile(s); err == nil {
			f.Add("go test ./...", string(data))
		}
	}
	for _, name := range presetNames {
		f.Add(name, "a.go:1:2: x\n\tcontinued\n")
	}
	f.Add("go test ./...", "--- FAIL: TestX (0.00s)\n    a.go:3: bad\n        more\npanic: x\n\t/ws/a.go:3 +0x1\nFAIL\tm/p\t0.1s\n")
	f.Add("cargo test", "error[E0308]: x\n --> a.go:1:1\nthread 'a' (1) panicked at a.go:2:3:\nmsg\n\n")
	f.Add("python3 x.py", "Traceback (most recent call last):\n  File \"a.go\", line 1, in <module>\nValueError: x\n")
	f.Add("pytest", "____ test_a ____\nE   assert 1\na.go:1: AssertionError\nFAILED a.go::test_a - x\n")
	f.Add("make", "make: Entering directory 'sub'\na.go:1:1: error: x\nmake: Leaving directory 'sub'\n\x1b[31mred\x1b]8;;x\x07\r\n")

	root := f.TempDir()
	writeFiles(f, root, map[string]string{"a.go": "package a\n", "sub/a.go": "package a\n", "go.mod": "module m\n", "a.py": "x\n"})
	f.Fuzz(func(t *testing.T, command, output string) {
		diags, err := Parse(command, output, Options{Dir: root, Root: root})
		if err != nil {
			t.Fatalf("Parse without config formats failed: %v", err)
		}
		for _, d := range diags {
			if !strings.HasPrefix(d.Path, root+string(filepath.Separator)) || d.Line < 0 || d.Col < 0 || d.Severity < Error || d.Severity > Hint {
				t.Fatalf("bad diagnostic %+v", d)
			}
		}
		_ = Summary(command, diags, 1)
	})
}

// FuzzFormats checks that a user's errorformat string either compiles or
// is refused with an error, never a panic.
func FuzzFormats(f *testing.F) {
	for _, s := range []string{`%f:%l:%c: %m`, `%E%f:%l: %m`, `%C%\t%m`, `%f:%l:%`, `%*[^)]`, `%-G%.%#`, `%+P%f`} {
		f.Add(s, "a.go:1:2: x\n")
	}
	f.Fuzz(func(t *testing.T, format, output string) {
		_, _ = Parse("tool", output, Options{Dir: "/nonexistent", Formats: []string{format}})
	})
}
