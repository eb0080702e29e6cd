package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPolicy: agentls policy prints the decision for one command line as
// JSON, with the workspace's settings file extending the rules.
func TestPolicy(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, ".agentls"), 0o755)
	os.WriteFile(filepath.Join(dir, ".agentls", "settings.json"), []byte(`{"commandAllowlist": ["go test"], "commandDenylist": ["npm publish"]}`), 0o644)
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	// Untrusted, the file's denylist applies and its allowlist does not.
	if out, errs, _ := runCLI(t, "", "policy", "-C", dir, "go test ./..."); !strings.Contains(out, `"ask"`) || !strings.Contains(errs, "ignored until you trust") {
		t.Errorf("untrusted allowlist: %q %q", out, errs)
	}
	if out, _, _ := runCLI(t, "", "policy", "-C", dir, "npm publish"); !strings.Contains(out, `"deny"`) {
		t.Errorf("untrusted denylist: %q", out)
	}
	if _, errs, code := runCLI(t, "", "trust", dir); code != exitOK {
		t.Fatalf("trust: %d %q", code, errs)
	}
	tests := []struct {
		line string
		want string
	}{
		{"ls -la", "allow"},
		{"go test ./...", "allow"},
		{"go build ./...", "ask"},
		{"npm publish", "deny"},
		{`echo "git reset --hard" && git reset --hard`, "deny"},
		{"cat <<EOF\nrm -rf /\nEOF", "allow"},
	}
	for _, tt := range tests {
		out, errs, code := runCLI(t, "", "policy", "-C", dir, tt.line)
		var v struct{ Decision, Reason string }
		if code != exitOK || json.Unmarshal([]byte(out), &v) != nil || v.Decision != tt.want || v.Reason == "" {
			t.Errorf("policy %q: code %d, out %q, stderr %q; want %s", tt.line, code, out, errs, tt.want)
		}
	}
	if _, _, code := runCLI(t, "", "policy"); code != exitUsage {
		t.Errorf("no argument: code %d", code)
	}
	os.WriteFile(filepath.Join(dir, ".agentls", "settings.json"), []byte(`{"commandAllowlist": ["a && b"]}`), 0o644)
	runCLI(t, "", "trust", dir)
	if _, errs, code := runCLI(t, "", "policy", "-C", dir, "ls"); code != exitUsage {
		t.Errorf("a bad pattern: code %d, %q", code, errs)
	}
}

// TestTrust: agentls trust records the file as it is; a changed file is
// untrusted again; --revoke forgets; no file is exit 1.
func TestTrust(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	dir := t.TempDir()
	if _, errs, code := runCLI(t, "", "trust", dir); code != exitFailed || !strings.Contains(errs, "nothing to trust") {
		t.Errorf("no file: exit %d, %q", code, errs)
	}
	os.MkdirAll(filepath.Join(dir, ".agentls"), 0o755)
	file := filepath.Join(dir, ".agentls", "settings.json")
	os.WriteFile(file, []byte(`{"commandAllowlist": ["touch"]}`), 0o644)
	decision := func() string {
		out, _, _ := runCLI(t, "", "policy", "-C", dir, "touch x")
		var v struct{ Decision string }
		json.Unmarshal([]byte(out), &v)
		return v.Decision
	}
	if d := decision(); d != "ask" {
		t.Errorf("untrusted: %s", d)
	}
	if out, errs, code := runCLI(t, "", "trust", dir); code != exitOK || !strings.Contains(out, "trusted .agentls/settings.json as it is now") {
		t.Fatalf("trust: exit %d, %q %q", code, out, errs)
	}
	if d := decision(); d != "allow" {
		t.Errorf("trusted: %s", d)
	}
	os.WriteFile(file, []byte(`{"commandAllowlist": ["touch", "rm"]}`), 0o644)
	if d := decision(); d != "ask" {
		t.Errorf("changed after trust: %s", d)
	}
	runCLI(t, "", "trust", dir)
	if out, _, code := runCLI(t, "", "trust", "--revoke", dir); code != exitOK || !strings.Contains(out, "no longer trusted") {
		t.Errorf("revoke: %d %q", code, out)
	}
	if d := decision(); d != "ask" {
		t.Errorf("revoked: %s", d)
	}
	if _, _, code := runCLI(t, "", "trust", "a", "b"); code != exitUsage {
		t.Errorf("two folders: exit %d", code)
	}
}
