package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// TestPolicy: agentls policy prints the decision for one command line as
// JSON, with the workspace's settings file extending the rules.
func TestPolicy(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, ".agentls"), 0o755)
	os.WriteFile(filepath.Join(dir, ".agentls", "settings.json"), []byte(`{"commandAllowlist": ["go test"], "commandDenylist": ["npm publish"]}`), 0o644)
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
	if _, errs, code := runCLI(t, "", "policy", "-C", dir, "ls"); code != exitUsage {
		t.Errorf("a bad pattern: code %d, %q", code, errs)
	}
}
