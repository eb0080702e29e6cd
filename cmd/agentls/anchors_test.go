package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestAnchors(t *testing.T) {
	root := writeTree(t, map[string]string{"m.go": "package main\n\nfunc main() {\n\tx := 1\n}\n"})
	file := filepath.Join(root, "m.go")

	stdout, stderr, code := runCLI(t, "", "anchors", "view", "--lines", "3:4", "--json", file)
	var view []struct {
		Line   int    `json:"line"`
		Anchor string `json:"anchor"`
		Text   string `json:"text"`
	}
	if code != exitOK || json.Unmarshal([]byte(stdout), &view) != nil || len(view) != 2 || view[1].Line != 4 || view[1].Text != "\tx := 1" {
		t.Fatalf("exit %d %s: %s", code, stderr, stdout)
	}
	text, _, _ := runCLI(t, "", "anchors", "view", file)
	if !strings.Contains(text, view[1].Anchor+"│ \tx := 1\n") {
		t.Errorf("text view:\n%s", text)
	}

	ops := `[{"anchor": "` + view[1].Anchor + `", "op": "replace", "text": "\tx := 2", "expected": "\tx := 1"}]`
	stdout, stderr, code = runCLI(t, ops, "anchors", "apply", file)
	if code != exitOK || !strings.Contains(stdout, "Anchored patch applied to m.go") {
		t.Fatalf("apply: exit %d %s %s", code, stdout, stderr)
	}
	if data, _ := os.ReadFile(file); string(data) != "package main\n\nfunc main() {\n\tx := 2\n}\n" {
		t.Errorf("file = %q", data)
	}
	// Stale now: refused, file unchanged, fresh anchors shown.
	before, _ := os.ReadFile(file)
	_, stderr, code = runCLI(t, ops, "anchors", "apply", file)
	after, _ := os.ReadFile(file)
	if code != exitFailed || string(before) != string(after) || !strings.Contains(stderr, "│ \tx := 2") {
		t.Errorf("stale: exit %d, changed %v, stderr %s", code, string(before) != string(after), stderr)
	}

	// agentls apply runs patch_anchored blocks too.
	fresh, _, _ := runCLI(t, "", "anchors", "view", "--json", file)
	json.Unmarshal([]byte(fresh), &view)
	reply := "```patch_anchored m.go\n[{\"anchor\": \"" + view[3].Anchor + "\", \"op\": \"insert_after\", \"text\": \"\\ty := x\"}]\n```\n"
	if _, stderr, code := runCLI(t, reply, "apply", "-C", root); code != exitOK {
		t.Fatalf("apply: %s", stderr)
	}
	if data, _ := os.ReadFile(file); string(data) != "package main\n\nfunc main() {\n\tx := 2\n\ty := x\n}\n" {
		t.Errorf("file = %q", data)
	}

	for _, args := range [][]string{{"anchors"}, {"anchors", "frob"}, {"anchors", "view"}, {"anchors", "view", "--lines", "x", file}, {"anchors", "apply"}} {
		if _, _, code := runCLI(t, "", args...); code != exitUsage {
			t.Errorf("%q: exit %d, want %d", args, code, exitUsage)
		}
	}
	if _, _, code := runCLI(t, "not json", "anchors", "apply", file); code != exitFailed {
		t.Errorf("bad ops: exit %d", code)
	}
}
