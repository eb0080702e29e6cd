package agent

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestGitDiffRefusesAConfiguredProgram: #git-diff runs git only where the
// policy would let git diff run unasked; a repository whose own config
// names a program git would run (diff.external) gets no diff, and the
// program never runs.
func TestGitDiffRefusesAConfiguredProgram(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	t.Setenv("HOME", t.TempDir())
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	root := t.TempDir()
	git := func(args ...string) {
		cmd := exec.Command("git", append([]string{"-c", "user.email=t@t", "-c", "user.name=t"}, args...)...)
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	writeFiles(t, root, map[string]string{"a.go": "package a\n"})
	git("init", "-q")
	git("add", ".")
	git("commit", "-qm", "init")
	writeFiles(t, root, map[string]string{"a.go": "package a\n\nvar b = 1\n"})
	if d, err := GitDiff(context.Background(), root); err != nil || !strings.Contains(d, "+var b = 1") {
		t.Fatalf("a plain repository: %q, %v", d, err)
	}
	pwned := filepath.Join(t.TempDir(), "PWNED")
	git("config", "diff.external", "sh -c 'touch "+pwned+"'")
	d, err := GitDiff(context.Background(), root)
	if err == nil || d != "" || !strings.Contains(err.Error(), "diff.external") {
		t.Errorf("a repository naming diff.external: %q, %v; want refused, naming the key", d, err)
	}
	if _, err := os.Stat(pwned); err == nil {
		t.Error("the repository's diff.external ran")
	}
}
