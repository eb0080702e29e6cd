package diagnose

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// writeFiles writes files (slash paths relative to dir) under dir.
func writeFiles(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// runTool runs a real program in dir and returns its combined output, as
// the shell tool would capture it. The test is skipped when the program
// is not installed; a failing exit status is expected.
func runTool(t *testing.T, dir string, env []string, name string, args ...string) string {
	t.Helper()
	if _, err := exec.LookPath(name); err != nil {
		t.Skipf("%s is not installed", name)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}

// goEnv keeps the user's go.work and flags out of a temporary module.
var goEnv = []string{"GOWORK=off", "GOFLAGS=", "GOTOOLCHAIN=local", "GO111MODULE=on"}

// render writes diags one a line with paths relative to root, for
// comparing: "sub/a.go:3:2: error: message [code]", newlines in messages
// shown as ⏎.
func render(root string, diags []Diagnostic) []string {
	var lines []string
	for _, d := range diags {
		rel, err := filepath.Rel(root, d.Path)
		if err != nil {
			rel = d.Path
		}
		line := fmt.Sprintf("%s:%d:%d: %s: %s", filepath.ToSlash(rel), d.Line, d.Col, d.Severity, strings.ReplaceAll(d.Message, "\n", "⏎"))
		if d.Code != "" {
			line += " [" + d.Code + "]"
		}
		lines = append(lines, line)
	}
	return lines
}
