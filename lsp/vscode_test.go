package lsp_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// TestVSCodeExtension compiles the VS Code extension (editors/vscode) and
// runs its unit tests in plain Node: the command arguments, the
// agentls/saveDocuments decision, the settings sent to the server, the
// job lists and the status text, and package.json against the code. It
// needs the extension's node_modules (npm ci in editors/vscode); without
// them it is skipped, unless AGENTLS_REQUIRE_VSCODE is set (CI sets it
// after npm ci).
func TestVSCodeExtension(t *testing.T) {
	t.Parallel()
	dir, err := filepath.Abs("../editors/vscode")
	if err != nil {
		t.Fatal(err)
	}
	required := os.Getenv("AGENTLS_REQUIRE_VSCODE") != ""
	skip := func(why string) {
		t.Helper()
		if required {
			t.Fatalf("%s, but AGENTLS_REQUIRE_VSCODE is set", why)
		}
		t.Skip(why)
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules")); err != nil {
		skip("editors/vscode has no node_modules (run npm ci there)")
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		skip("npm is not installed")
	}
	for _, script := range []string{"compile", "test"} {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		cmd := exec.CommandContext(ctx, npm, "run", "--silent", script)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		cancel()
		if err != nil {
			t.Fatalf("npm run %s in %s: %v\n%s", script, dir, err, out)
		}
	}
}
