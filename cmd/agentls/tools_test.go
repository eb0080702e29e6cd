package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTools: agentls tools lists what a turn offers under the workspace's
// settings, and with --all every tool with why one is not offered — a
// program it needs missing, disabled by default, left out — as the
// contract's JSON.
func TestTools(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	dir := t.TempDir()
	list := func(args ...string) map[string]toolJSON {
		t.Helper()
		out, errs, code := runCLI(t, "", append([]string{"tools", "-C", dir, "--json"}, args...)...)
		if code != exitOK {
			t.Fatalf("exit %d: %s", code, errs)
		}
		var ts []toolJSON
		if err := json.Unmarshal([]byte(out), &ts); err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		m := map[string]toolJSON{}
		for _, x := range ts {
			if x.Source != "builtin" || x.Description == "" {
				t.Errorf("%+v", x)
			}
			m[x.Name] = x
		}
		return m
	}
	def := list()
	for _, name := range []string{"read", "patch", "save", "shell"} {
		if !def[name].Offered {
			t.Errorf("a turn does not offer %s: %+v", name, def[name])
		}
	}
	if _, ok := def["patch_anchored"]; ok {
		t.Error("without --all, a tool not offered is listed")
	}
	all := list("--all")
	if x := all["patch_anchored"]; x.Offered || !x.DisabledByDefault || !strings.Contains(x.Why, "disabled by default") {
		t.Errorf("patch_anchored: %+v", x)
	}

	// Without python3 on PATH, ipython is unavailable, and says why.
	t.Setenv("PATH", t.TempDir())
	if x := list("--all")["ipython"]; x.Available || x.Offered || x.Why != "needs python3 on PATH" {
		t.Errorf("ipython without python3: %+v", x)
	}
	t.Setenv("PATH", os.Getenv("PATH"))

	// The workspace's tools setting counts once the file is trusted.
	os.MkdirAll(filepath.Join(dir, ".agentls"), 0o755)
	os.WriteFile(filepath.Join(dir, ".agentls", "settings.json"), []byte(`{"tools": ["read"]}`), 0o644)
	if !list()["shell"].Offered {
		t.Error("an untrusted tools setting applied")
	}
	runCLI(t, "", "trust", dir)
	got := list("--all")
	if !got["read"].Offered || got["shell"].Offered || got["shell"].Why != "left out by the tools setting" {
		t.Errorf("trusted tools [read]: read %+v, shell %+v", got["read"], got["shell"])
	}
	if out, _, code := runCLI(t, "", "tools", "-C", dir, "--format", "xml"); code != exitOK || !strings.Contains(out, "<tool-use><read>") {
		t.Errorf("--format xml: %d %q", code, out)
	}
	if _, _, code := runCLI(t, "", "tools", "--format", "yaml"); code != exitUsage {
		t.Errorf("--format yaml: exit %d", code)
	}
}
