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
// is not installed or does not run (see requireUsable); a failing exit
// status is expected.
func runTool(t *testing.T, dir string, env []string, name string, args ...string) string {
	t.Helper()
	requireUsable(t, dir, env, name)
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

// requireUsable skips the test unless name is installed and answers its
// version question in dir with env. Being on PATH is not enough: rustup's
// cargo shim is there on a machine with no default toolchain (a fresh
// HOME, or RUSTUP_HOME pointing at an empty folder) and fails every
// command with "rustup could not choose a version of cargo to run"; a
// version manager's shim can fail the same way.
func requireUsable(t *testing.T, dir string, env []string, name string) {
	t.Helper()
	if _, err := exec.LookPath(name); err != nil {
		t.Skipf("%s is not installed", name)
	}
	versionArgs := []string{"--version"}
	if filepath.Base(name) == "go" {
		versionArgs = []string{"version"}
	}
	if reason := unusableReason(dir, env, name, versionArgs...); reason != "" {
		t.Skip(reason)
	}
}

// unusableReason runs `name versionArgs...` and says why name cannot be
// used ("" if it ran): the command and the first line of its output.
func unusableReason(dir string, env []string, name string, versionArgs ...string) string {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, versionArgs...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err == nil {
		return ""
	}
	first, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	if first == "" {
		first = err.Error()
	}
	return fmt.Sprintf("%s is installed but does not run here (`%s %s`: %s)", name, name, strings.Join(versionArgs, " "), first)
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

// TestUnusableReason: a program on PATH that cannot run (rustup's shim
// with no default toolchain, written here as a script that fails the same
// way) is named with its first line of output, so the tool tests skip it
// with a reason instead of failing on a fresh HOME.
func TestUnusableReason(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"shim":  "#!/bin/sh\necho \"error: rustup could not choose a version of cargo to run, because one wasn't specified explicitly, and no default is configured.\" >&2\necho 'help: run rustup default stable' >&2\nexit 1\n",
		"works": "#!/bin/sh\necho 'works 1.0'\n",
	})
	for _, name := range []string{"shim", "works"} {
		if err := os.Chmod(filepath.Join(dir, name), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	shim, works := filepath.Join(dir, "shim"), filepath.Join(dir, "works")
	if got, want := unusableReason(dir, nil, shim, "--version"), shim+" is installed but does not run here (`"+shim+" --version`: error: rustup could not choose a version of cargo to run, because one wasn't specified explicitly, and no default is configured.)"; got != want {
		t.Errorf("a failing shim:\n got %q\nwant %q", got, want)
	}
	if got := unusableReason(dir, nil, works, "--version"); got != "" {
		t.Errorf("a working program: %q, want \"\"", got)
	}
}
