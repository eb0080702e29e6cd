package shell

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func TestWithGitPins(t *testing.T) {
	pins := func(from int) []string {
		return []string{
			"GIT_CONFIG_KEY_" + strconv.Itoa(from) + "=core.fsmonitor", "GIT_CONFIG_VALUE_" + strconv.Itoa(from) + "=false",
			"GIT_CONFIG_KEY_" + strconv.Itoa(from+1) + "=log.showSignature", "GIT_CONFIG_VALUE_" + strconv.Itoa(from+1) + "=false",
			"GIT_CONFIG_COUNT=" + strconv.Itoa(from+2),
		}
	}
	tests := []struct {
		name string
		env  []string
		want []string // appended to env; nil: env unchanged
	}{
		{"no count", []string{"HOME=/h"}, pins(0)},
		{"empty count", []string{"GIT_CONFIG_COUNT="}, pins(0)},
		{"the user's entries are kept", []string{"GIT_CONFIG_COUNT=2", "GIT_CONFIG_KEY_0=a.b", "GIT_CONFIG_VALUE_0=1", "GIT_CONFIG_KEY_1=c.d", "GIT_CONFIG_VALUE_1=2"}, pins(2)},
		{"the last count is the one git sees", []string{"GIT_CONFIG_COUNT=5", "GIT_CONFIG_COUNT=1"}, pins(1)},
		{"as strtoul reads it", []string{"GIT_CONFIG_COUNT= +3"}, pins(3)},
		{"minus zero", []string{"GIT_CONFIG_COUNT=-0"}, pins(0)},
		{"bogus count: git refuses every command", []string{"GIT_CONFIG_COUNT=abc"}, nil},
		{"digits then text", []string{"GIT_CONFIG_COUNT=3x"}, nil},
		{"negative", []string{"GIT_CONFIG_COUNT=-1"}, nil},
		{"past INT_MAX", []string{"GIT_CONFIG_COUNT=2147483648"}, nil},
		{"only white space", []string{"GIT_CONFIG_COUNT= "}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := withGitPins(slices.Clone(tt.env))
			want := append(slices.Clone(tt.env), tt.want...)
			if !slices.Equal(got, want) {
				t.Errorf("withGitPins(%q)\n got %q\nwant %q", tt.env, got, want)
			}
		})
	}
}

// hostileGitRepo makes a repository whose config is clean when the shell
// starts; rewrite then turns it hostile, as a background job the policy
// let run (a build script, a test) could while the model's next `git
// status` waits: core.fsmonitor and, for git log, log.showSignature with
// gpg.program on a signed commit, in the repository and in its
// submodule. Each program the config names creates a file in pwned.
func hostileGitRepo(t *testing.T) (repo, pwned string, rewrite func()) {
	t.Helper()
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("no git")
	}
	out, err := exec.Command(git, "version").Output()
	if m := regexp.MustCompile(`(\d+)\.(\d+)`).FindStringSubmatch(string(out)); err != nil || m == nil || atoiOr0(m[1])*100+atoiOr0(m[2]) < 231 {
		t.Skipf("git %s reads no GIT_CONFIG_COUNT (2.31 and later do)", strings.TrimSpace(string(out)))
	}
	dir := t.TempDir()
	repo, pwned = filepath.Join(dir, "repo"), filepath.Join(dir, "pwned")
	if err := os.Mkdir(pwned, 0o755); err != nil {
		t.Fatal(err)
	}
	run := func(in string, args ...string) {
		t.Helper()
		cmd := exec.Command(git, args...)
		cmd.Dir = in
		cmd.Env = append(os.Environ(), isolatedGit(dir)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	sub := filepath.Join(dir, "sub")
	for _, r := range []string{repo, sub} {
		run(dir, "init", "-q", r)
		write(t, filepath.Join(r, "f"), "one\n")
		run(r, "add", "f")
		run(r, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "first")
	}
	run(repo, "-c", "protocol.file.allow=always", "submodule", "-q", "add", sub, "sub")
	run(repo, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "sub")
	// A signed commit on top (its signature is never checked but by
	// gpg.program, which is the point).
	signed := filepath.Join(dir, "signed-commit")
	treeOut, err := exec.Command(git, "-C", repo, "rev-parse", "HEAD^{tree}").Output()
	if err != nil {
		t.Fatal(err)
	}
	headOut, err := exec.Command(git, "-C", repo, "rev-parse", "HEAD").Output()
	if err != nil {
		t.Fatal(err)
	}
	write(t, signed, "tree "+strings.TrimSpace(string(treeOut))+"\nparent "+strings.TrimSpace(string(headOut))+
		"\nauthor t <t@example.com> 1 +0000\ncommitter t <t@example.com> 1 +0000\n"+
		"gpgsig -----BEGIN PGP SIGNATURE-----\n \n -----END PGP SIGNATURE-----\n\nsigned\n")
	hash, err := exec.Command(git, "-C", repo, "hash-object", "-t", "commit", "-w", signed).Output()
	if err != nil {
		t.Fatal(err)
	}
	run(repo, "update-ref", "HEAD", strings.TrimSpace(string(hash)))
	// Changes for status and diff to look at, in both.
	write(t, filepath.Join(repo, "f"), "two\n")
	write(t, filepath.Join(repo, "sub", "f"), "two\n")
	gpg := filepath.Join(dir, "gpg")
	write(t, gpg, "#!/bin/sh\ntouch "+filepath.Join(pwned, "gpg.program")+"\ncat >/dev/null\n")
	if err := os.Chmod(gpg, 0o755); err != nil {
		t.Fatal(err)
	}
	rewrite = func() {
		t.Helper()
		run(repo, "config", "core.fsmonitor", "touch "+filepath.Join(pwned, "fsmonitor"))
		run(repo, "config", "log.showSignature", "true")
		run(repo, "config", "gpg.program", gpg)
		run(repo, "config", "-f", filepath.Join(repo, ".git", "modules", "sub", "config"), "core.fsmonitor", "touch "+filepath.Join(pwned, "submodule-fsmonitor"))
	}
	return repo, pwned, rewrite
}

// isolatedGit keeps the machine's and the user's git config out of a
// test.
func isolatedGit(home string) []string {
	return []string{"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "HOME=" + home, "GIT_PAGER=cat"}
}

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func atoiOr0(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

// TestGitConfigRewrittenAfterTheCheck: the policy found the repository's
// config clean and let `git status` and `git log` run; meanwhile the
// config was rewritten to run programs. The shell's pins keep git from
// running them, in the repository and its submodule, and keep the
// user's own GIT_CONFIG_COUNT entries.
func TestGitConfigRewrittenAfterTheCheck(t *testing.T) {
	tests := []struct {
		name string
		env  []string
	}{
		{"no config in the environment", nil},
		{"the user's own command-line config", []string{"GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=user.name", "GIT_CONFIG_VALUE_0=The User"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			repo, pwned, rewrite := hostileGitRepo(t)
			s := startSession(t, Options{Dir: repo, Env: append(isolatedGit(filepath.Dir(repo)), tt.env...)})
			rewrite()
			for _, line := range []string{"git status --short", "git diff --stat", "git log --oneline -3", "git status --short --ignore-submodules=none sub"} {
				if c := only(t, mustRun(t, s, line)); c.ExitCode != 0 {
					t.Errorf("%s: exit %d: %s", line, c.ExitCode, c.Stderr)
				}
			}
			if ran, _ := os.ReadDir(pwned); len(ran) > 0 {
				var names []string
				for _, e := range ran {
					names = append(names, e.Name())
				}
				t.Errorf("git ran the programs the rewritten config names: %s", strings.Join(names, ", "))
			}
			if tt.env != nil {
				if c := only(t, mustRun(t, s, "git config user.name")); c.Stdout != "The User\n" {
					t.Errorf("the user's GIT_CONFIG_KEY_0 was lost: git config user.name printed %q", c.Stdout)
				}
			}
		})
	}
}
