package jobs

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestJobGitIgnoresRewrittenFSMonitor: a background job's git runs with
// the shell's pins (shell.Environ), so a .git/config rewritten after the
// policy checked it cannot make the job's `git status` run core.fsmonitor;
// the user's own GIT_CONFIG_COUNT entries are kept.
func TestJobGitIgnoresRewrittenFSMonitor(t *testing.T) {
	t.Parallel()
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("no git")
	}
	dir := t.TempDir()
	isolated := []string{"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "HOME=" + dir}
	repo, pwned := filepath.Join(dir, "repo"), filepath.Join(dir, "PWNED")
	for _, args := range [][]string{
		{"init", "-q", repo},
		{"-C", repo, "config", "core.fsmonitor", "touch " + pwned},
	} {
		cmd := exec.Command(git, args...)
		cmd.Env = append(os.Environ(), isolated...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	if err := os.WriteFile(filepath.Join(repo, "f"), []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	env := append(isolated, "GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=user.name", "GIT_CONFIG_VALUE_0=The User")
	m := newTestManager(t, Options{Dir: repo, Env: env})
	info := waitEnded(t, m, start(t, m, "git status --short && git config user.name").ID)
	out, err := m.Output(info.ID, 0, 0)
	if err != nil || info.ExitCode != 0 || out.Stdout != "?? f\nThe User\n" {
		t.Errorf("the job: exit %d, output %+v, %v; want `?? f` and the user's name", info.ExitCode, out, err)
	}
	if _, err := os.Stat(pwned); err == nil {
		t.Error("the job's git status ran the core.fsmonitor of a rewritten .git/config")
	}
}
