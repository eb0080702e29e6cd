package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for p, c := range files {
		full := filepath.Join(root, p)
		os.MkdirAll(filepath.Dir(full), 0o755)
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func readTree(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.Walk(root, func(p string, info os.FileInfo, err error) error {
		if err == nil && info.Mode().IsRegular() {
			data, _ := os.ReadFile(p)
			rel, _ := filepath.Rel(root, p)
			out[filepath.ToSlash(rel)] = string(data)
		}
		return nil
	})
	return out
}

const twoFileReply = "Renaming.\n\n```patch_many\n=== PATH: a.go ===\n<<<<<<< ORIGINAL\ntype Config struct{}\n=======\ntype Settings struct{}\n>>>>>>> UPDATED\n\n=== PATH: b.go ===\n<<<<<<< ORIGINAL\nvar c Config\n=======\nvar c Settings\n>>>>>>> UPDATED\n```\n\n```save c.go\npackage p\n```\n\n```shell\ngo build ./...\n```\n"

func TestApply(t *testing.T) {
	files := map[string]string{"a.go": "package p\n\ntype Config struct{}\n", "b.go": "package p\n\nvar c Config\n"}

	t.Run("applies all", func(t *testing.T) {
		root := writeTree(t, files)
		stdout, stderr, code := runCLI(t, twoFileReply, "apply", "-C", root)
		if code != exitOK {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		if stdout != "M a.go\nM b.go\nA c.go\n" {
			t.Errorf("stdout %q", stdout)
		}
		if !strings.Contains(stderr, "skipped call 3 (shell)") {
			t.Errorf("stderr does not list the skipped shell call: %q", stderr)
		}
		got := readTree(t, root)
		if got["a.go"] != "package p\n\ntype Settings struct{}\n" || got["b.go"] != "package p\n\nvar c Settings\n" || got["c.go"] != "package p\n" {
			t.Errorf("files: %q", got)
		}
	})

	t.Run("dry run writes nothing", func(t *testing.T) {
		root := writeTree(t, files)
		stdout, _, code := runCLI(t, twoFileReply, "apply", "-C", root, "--dry-run")
		if code != exitOK || !strings.Contains(stdout, "--- a/a.go\n+++ b/a.go\n") || !strings.Contains(stdout, "+type Settings struct{}") || !strings.Contains(stdout, "--- /dev/null\n+++ b/c.go") {
			t.Errorf("exit %d, diff:\n%s", code, stdout)
		}
		if got := readTree(t, root); len(got) != 2 || got["a.go"] != files["a.go"] {
			t.Errorf("dry run changed files: %q", got)
		}
	})

	t.Run("a failing hunk writes nothing", func(t *testing.T) {
		root := writeTree(t, map[string]string{"a.go": files["a.go"], "b.go": "package p\n\nvar c Other\n"})
		before := readTree(t, root)
		_, stderr, code := runCLI(t, twoFileReply, "apply", "-C", root)
		if code != exitFailed {
			t.Fatalf("exit %d", code)
		}
		for _, want := range []string{"call 1 (patch_many", "file 2/2: patch b.go", "The nearest lines", "3\tvar c Other", "Nothing was written."} {
			if !strings.Contains(stderr, want) {
				t.Errorf("stderr does not say %q:\n%s", want, stderr)
			}
		}
		if after := readTree(t, root); len(after) != len(before) || after["a.go"] != before["a.go"] {
			t.Errorf("files changed: %q", after)
		}
	})

	t.Run("json", func(t *testing.T) {
		root := writeTree(t, files)
		stdout, _, code := runCLI(t, twoFileReply, "apply", "-C", root, "--json")
		var res struct {
			OK    bool `json:"ok"`
			Files []struct{ Path, Action string }
			Error string `json:"error"`
		}
		if err := json.Unmarshal([]byte(stdout), &res); err != nil || code != exitOK || !res.OK || len(res.Files) != 3 || res.Files[2].Path != "c.go" || res.Files[2].Action != "create" {
			t.Errorf("exit %d, %+v, %v\n%s", code, res, err, stdout)
		}
		stdout, _, code = runCLI(t, twoFileReply, "apply", "-C", root, "--json")
		json.Unmarshal([]byte(stdout), &res)
		if code != exitFailed || res.OK || !strings.Contains(res.Error, "already applied") {
			t.Errorf("second apply: exit %d, %+v", code, res)
		}
	})

	t.Run("no edits", func(t *testing.T) {
		_, stderr, code := runCLI(t, "just text\n", "apply", "-C", t.TempDir())
		if code != exitFailed || !strings.Contains(stderr, "no edits") {
			t.Errorf("exit %d: %s", code, stderr)
		}
	})

	t.Run("outside the root", func(t *testing.T) {
		root := writeTree(t, files)
		_, stderr, code := runCLI(t, "```save ../evil.go\nx\n```\n", "apply", "-C", root)
		if code != exitFailed || !strings.Contains(stderr, "outside the workspace") {
			t.Errorf("exit %d: %s", code, stderr)
		}
		if _, err := os.Stat(filepath.Join(filepath.Dir(root), "evil.go")); err == nil {
			t.Error("wrote outside the root")
		}
	})

	t.Run("xml format", func(t *testing.T) {
		root := writeTree(t, files)
		reply := "<tool-use>\n<save path=\"d.go\">\npackage p\n</save>\n</tool-use>\n"
		if _, stderr, code := runCLI(t, reply, "apply", "-C", root, "--format", "xml"); code != exitOK {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		if got := readTree(t, root)["d.go"]; got != "package p\n" {
			t.Errorf("d.go = %q", got)
		}
	})

	t.Run("usage", func(t *testing.T) {
		for _, args := range [][]string{{"apply", "x"}, {"apply", "--format", "json"}, {"apply", "-C", "/no/such/dir"}} {
			if _, _, code := runCLI(t, "", args...); code != exitUsage {
				t.Errorf("%q: exit %d", args, code)
			}
		}
	})
}

func TestApplyOtherFormats(t *testing.T) {
	root := writeTree(t, map[string]string{"main.go": "package main\n\nfunc main() {\n\tfmt.Println(greeting)\n}\n", "hello.py": "print(\"hi\")\n"})
	reply := "First the Go side:\n\n```apply_patch\n*** Begin Patch\n*** Update File: main.go\n@@ func main() {\n-\tfmt.Println(greeting)\n+\tlog.Print(greeting)\n*** End Patch\n```\n\n" +
		"Then the Python one:\n\nhello.py\n```python\n<<<<<<< SEARCH\nprint(\"hi\")\n=======\nprint(\"hello\")\n>>>>>>> REPLACE\n```\n"
	stdout, stderr, code := runCLI(t, reply, "apply", "-C", root)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if stdout != "M hello.py\nM main.go\n" {
		t.Errorf("stdout %q", stdout)
	}
	got := readTree(t, root)
	if got["main.go"] != "package main\n\nfunc main() {\n\tlog.Print(greeting)\n}\n" || got["hello.py"] != "print(\"hello\")\n" {
		t.Errorf("files %q", got)
	}
}

// TestApplyProtected: a reply that edits a file configuring what runs
// (here .git/config with core.fsmonitor, which `git status` would run) is
// refused whole unless --protected is given; nothing is written.
func TestApplyProtected(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, ".git"), 0o755)
	os.WriteFile(filepath.Join(dir, ".git", "config"), []byte("[core]\n"), 0o644)
	reply := "```save a.txt\nhello\n```\n\n```save .git/config\n[core]\n\tfsmonitor = touch PWNED\n```\n"
	_, stderr, code := runCLI(t, reply, "apply", "-C", dir)
	if code != exitFailed || !strings.Contains(stderr, "editing .git/config needs the user's approval") || !strings.Contains(stderr, "--protected") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "a.txt")); err == nil {
		t.Error("part of a refused reply was written")
	}
	if data, _ := os.ReadFile(filepath.Join(dir, ".git", "config")); string(data) != "[core]\n" {
		t.Errorf(".git/config = %q", data)
	}
	if _, stderr, code := runCLI(t, reply, "apply", "-C", dir, "--protected"); code != exitOK {
		t.Errorf("--protected: exit %d, %q", code, stderr)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, ".git", "config")); !strings.Contains(string(data), "fsmonitor") {
		t.Errorf("--protected: .git/config = %q", data)
	}
}
