package policy

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestRepositoryConfigRunsPrograms: a repository whose config makes git run
// a program (saved by the model, or shipped by a hostile repository) turns
// allowlisted git commands into asks that name the key.
func TestRepositoryConfigRunsPrograms(t *testing.T) {
	for _, c := range []struct{ name, config, reason string }{
		{"fsmonitor", "[core]\n\tfsmonitor = \"touch marker\"\n", "core.fsmonitor, which makes git run a program"},
		{"fsmonitor true (the daemon)", "[core]\n\tfsmonitor = true\n", "core.fsmonitor"},
		{"textconv", "[diff \"evil\"]\n\ttextconv = \"touch marker; cat\"\n", "diff.evil.textconv"},
		{"pager", "[core]\n\tpager = x\n", "core.pager"},
		{"pager per command", "[pager]\n\tstatus = x\n", "pager.status"},
		{"external diff", "[diff]\n\texternal = x\n", "diff.external"},
		{"diff driver command", "[diff \"x\"]\n\tcommand = y\n", "diff.x.command"},
		{"ssh command", "[core]\n\tsshCommand = x\n", "core.sshcommand"},
		{"hooks path", "[core]\n\thooksPath = /tmp/hooks\n", "core.hookspath"},
		{"editor", "[core]\n\teditor = x\n", "core.editor"},
		{"sequence editor", "[sequence]\n\teditor = x\n", "sequence.editor"},
		{"clean filter", "[filter \"crypt\"]\n\tclean = x\n", "filter.crypt.clean"},
		{"smudge filter", "[filter \"crypt\"]\n\tsmudge = x\n", "filter.crypt.smudge"},
		{"process filter", "[filter \"crypt\"]\n\tprocess = x\n", "filter.crypt.process"},
		{"gpg program", "[gpg]\n\tprogram = x\n", "gpg.program"},
		{"ssh signing program", "[gpg \"ssh\"]\n\tprogram = x\n", "gpg.ssh.program"},
		{"credential helper", "[credential]\n\thelper = x\n", "credential.helper"},
		{"credential helper for a URL", "[credential \"https://x\"]\n\thelper = x\n", "credential.https://x.helper"},
		{"git proxy", "[core]\n\tgitProxy = x\n", "core.gitproxy"},
		{"shell alias", "[alias]\n\tst = !touch marker\n", "alias.st"},
		{"pack objects hook", "[uploadpack]\n\tpackObjectsHook = x\n", "uploadpack.packobjectshook"},
		{"askpass", "[core]\n\taskPass = x\n", "core.askpass"},
		{"another work tree", "[core]\n\tworktree = /home\n", "core.worktree"},
		{"promisor remote", "[remote \"origin\"]\n\tpromisor = true\n", "remote.origin.promisor, which makes git fetch"},
		{"partial clone", "[extensions]\n\tpartialClone = origin\n", "extensions.partialclone"},
		{"remote upload-pack", "[remote \"o\"]\n\tuploadpack = x\n", "remote.o.uploadpack"},
		// Spellings git accepts.
		{"upper case", "[CORE]\n\tFSMonitor = x\n", "core.fsmonitor"},
		{"key on the header's line", "[core] fsmonitor = x\n", "core.fsmonitor"},
		{"legacy subsection", "[diff.evil]\n\ttextconv = x\n", "diff.evil.textconv"},
		{"continued value", "[core]\n\tfsmonitor = touch \\\n marker\n", "core.fsmonitor"},
		{"after a comment", "# [core]\n[user]\n\tname = x ; fsmonitor = y\n[core]\n\tfsmonitor = x\n", "core.fsmonitor"},
		{"no value", "[core]\n\tpager\n", "core.pager"},
	} {
		t.Run(c.name, func(t *testing.T) {
			root, home := testWorkspace(t)
			appendFile(t, filepath.Join(root, ".git", "config"), c.config)
			p := mustNew(t, Config{Root: root, Home: home})
			for _, line := range []string{"git status", "git log -p", "git diff", "git show HEAD", "git -C sub blame a.go", "cd sub && git ls-files"} {
				v := p.Check(line)
				if v.Decision != Ask || !strings.Contains(v.Reason, c.reason) || !strings.Contains(v.Reason, ".git/config sets") {
					t.Errorf("Check(%q) = %+v, want ask naming %q", line, v, c.reason)
				}
			}
		})
	}

	// Harmless keys leave git allowed.
	root, home := testWorkspace(t)
	appendFile(t, filepath.Join(root, ".git", "config"),
		"[user]\n\tname = x\n[remote \"origin\"]\n\turl = https://example.com/x.git\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n"+
			"[core]\n\tfsmonitor = false\n\tautocrlf = input\n[alias]\n\tst = status\n[diff]\n\talgorithm = histogram\n[include]\n\tpath = missing.cfg\n")
	p := mustNew(t, Config{Root: root, Home: home})
	runChecks(t, p, []checkCase{{"git status && git log -p", Allow, ""}})
}

// TestRepositoryConfigElsewhere: the config git reads is not only
// .git/config.
func TestRepositoryConfigElsewhere(t *testing.T) {
	const risky = "[core]\n\tfsmonitor = \"touch marker\"\n"
	for _, c := range []struct {
		name   string
		files  map[string]string // relative to the workspace
		line   string
		reason string
	}{
		{"include", map[string]string{".git/config": "[include]\n\tpath = ../evil.cfg\n", "evil.cfg": risky}, "git status", "evil.cfg sets core.fsmonitor"},
		{"include chain", map[string]string{".git/config": "[include]\n\tpath = ../a.cfg\n", "a.cfg": "[include]\npath = b.cfg\n", "b.cfg": risky}, "git status", "b.cfg sets core.fsmonitor"},
		{"conditional include", map[string]string{".git/config": "[includeIf \"onbranch:main\"]\n\tpath = ../evil.cfg\n", "evil.cfg": risky}, "git status", "evil.cfg"},
		{"worktree config", map[string]string{".git/config.worktree": risky}, "git status", ".git/config.worktree sets core.fsmonitor"},
		{"hook", map[string]string{".git/hooks/post-index-change": "#!/bin/sh\ntouch marker\n"}, "git status", "hook .git/hooks/post-index-change"},
		{"bare repository in a subdirectory", map[string]string{"sub/bare/HEAD": "ref: refs/heads/main\n", "sub/bare/objects/x": "", "sub/bare/config": risky}, "cd sub/bare && git log", "sub/bare/config sets core.fsmonitor"},
		{"submodule", map[string]string{".gitmodules": "[submodule \"lib\"]\n\tpath = lib\n\turl = ./lib\n", "lib/.git": "gitdir: ../.git/modules/lib\n",
			".git/modules/lib/HEAD": "ref: refs/heads/main\n", ".git/modules/lib/objects/x": "", ".git/modules/lib/config": risky}, "git status", ".git/modules/lib/config sets core.fsmonitor"},
		{"embedded submodule", map[string]string{".gitmodules": "[submodule \"lib\"]\n\tpath = vendor/lib\n", "vendor/lib/.git/HEAD": "ref: refs/heads/main\n",
			"vendor/lib/.git/objects/x": "", "vendor/lib/.git/config": risky}, "git diff", "vendor/lib/.git/config sets core.fsmonitor"},
	} {
		t.Run(c.name, func(t *testing.T) {
			root, home := testWorkspace(t)
			files := map[string]string{}
			for name, content := range c.files {
				files[filepath.Join(root, name)] = content
			}
			writeFiles(t, files)
			v := mustNew(t, Config{Root: root, Home: home}).Check(c.line)
			if v.Decision != Ask || !strings.Contains(v.Reason, c.reason) {
				t.Errorf("Check(%q) = %+v, want ask naming %q", c.line, v, c.reason)
			}
		})
	}

	// A .git file pointing outside the workspace.
	t.Run("gitdir file", func(t *testing.T) {
		root, home := testWorkspace(t)
		other := t.TempDir()
		writeFiles(t, map[string]string{other + "/HEAD": "ref: refs/heads/main\n", other + "/objects/x": "", other + "/config": risky})
		if err := os.RemoveAll(filepath.Join(root, ".git")); err != nil {
			t.Fatal(err)
		}
		writeFiles(t, map[string]string{root + "/.git": "gitdir: " + other + "\n"})
		v := mustNew(t, Config{Root: root, Home: home}).Check("git status")
		if v.Decision != Ask || !strings.Contains(v.Reason, other+"/config sets core.fsmonitor") {
			t.Errorf("Check(git status) = %+v", v)
		}
	})

	// A linked worktree: the shared config is in the main repository.
	t.Run("linked worktree", func(t *testing.T) {
		root, home := testWorkspace(t)
		main := t.TempDir()
		writeFiles(t, map[string]string{
			main + "/.git/HEAD": "ref: refs/heads/main\n", main + "/.git/objects/x": "", main + "/.git/config": risky,
			main + "/.git/worktrees/ws/HEAD": "ref: refs/heads/ws\n", main + "/.git/worktrees/ws/commondir": "../..\n",
		})
		os.RemoveAll(filepath.Join(root, ".git"))
		writeFiles(t, map[string]string{root + "/.git": "gitdir: " + main + "/.git/worktrees/ws\n"})
		v := mustNew(t, Config{Root: root, Home: home}).Check("git status")
		if v.Decision != Ask || !strings.Contains(v.Reason, main+"/.git/config sets core.fsmonitor") {
			t.Errorf("Check(git status) = %+v", v)
		}
	})
}

// TestRepositoryConfigChangesAreSeen: the parsed config is kept, but a
// changed file is read again.
func TestRepositoryConfigChangesAreSeen(t *testing.T) {
	root, home := testWorkspace(t)
	p := mustNew(t, Config{Root: root, Home: home})
	config := filepath.Join(root, ".git", "config")
	steps := []struct {
		content string
		want    Decision
	}{
		{"[core]\n\tbare = false\n", Allow},
		{"[core]\n\tpager = x\n", Ask},      // same size as before
		{"[core]\n\tbare = false\n", Allow}, // and back
		{"[include]\n\tpath = ../x.cfg\n", Allow},
	}
	for i, s := range steps {
		if err := os.WriteFile(config, []byte(s.content), 0o644); err != nil {
			t.Fatal(err)
		}
		// A distinct mtime for each step, as any real edit gets.
		mtime := time.Now().Add(time.Duration(i) * time.Second)
		if err := os.Chtimes(config, mtime, mtime); err != nil {
			t.Fatal(err)
		}
		if got := p.Check("git status"); got.Decision != s.want {
			t.Fatalf("step %d: %+v, want %s", i, got, s.want)
		}
	}
	// The included file appears later.
	writeFiles(t, map[string]string{root + "/x.cfg": "[core]\n\tfsmonitor = x\n"})
	if got := p.Check("git status"); got.Decision != Ask {
		t.Fatalf("after the include appeared: %+v", got)
	}
}

// TestGitChainsWithRealGit runs the two chains with real git: the model
// saves a config (and an attributes file) that makes git run a program,
// then runs an allowlisted git command. Without the policy git runs the
// program; with it, the command asks and the program never runs.
func TestGitChainsWithRealGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	for _, c := range []struct {
		name  string
		setup func(t *testing.T, repo, marker string)
		line  string
		key   string
	}{
		{
			name: "fsmonitor",
			setup: func(t *testing.T, repo, marker string) {
				appendFile(t, filepath.Join(repo, ".git", "config"), "[core]\n\tfsmonitor = \"touch "+marker+"; false\"\n")
			},
			line: "git status",
			key:  "core.fsmonitor",
		},
		{
			name: "textconv",
			setup: func(t *testing.T, repo, marker string) {
				writeFiles(t, map[string]string{repo + "/notes.txt": "changed\n", repo + "/.gitattributes": "*.txt diff=evil\n"})
				appendFile(t, filepath.Join(repo, ".git", "config"), "[diff \"evil\"]\n\ttextconv = \"touch "+marker+"; cat\"\n")
			},
			line: "git diff",
			key:  "diff.evil.textconv",
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			// The control: git really runs the program.
			control := gitRepo(t)
			controlMarker := filepath.Join(t.TempDir(), "ran")
			c.setup(t, control, controlMarker)
			runGit(t, control, strings.Fields(c.line)[1:]...)
			if _, err := os.Stat(controlMarker); err != nil {
				t.Fatalf("without the policy, %s did not run the program (is this git too old?): %v", c.line, err)
			}

			repo := gitRepo(t)
			marker := filepath.Join(t.TempDir(), "ran")
			c.setup(t, repo, marker)
			p := mustNew(t, Config{Root: repo, Home: t.TempDir()})
			v := p.Check(c.line)
			if v.Decision == Allow {
				runGit(t, repo, strings.Fields(c.line)[1:]...) // what the shell would do
			}
			if _, err := os.Stat(marker); err == nil {
				t.Fatalf("%s ran the program: %+v", c.line, v)
			}
			if v.Decision != Ask || !strings.Contains(v.Reason, c.key) {
				t.Errorf("Check(%q) = %+v, want ask naming %s", c.line, v, c.key)
			}
		})
	}
}

// gitRepo makes a repository with one commit of notes.txt, with git
// blind to the user's own configuration.
func gitRepo(t *testing.T) string {
	t.Helper()
	repo := filepath.Join(t.TempDir(), "repo")
	writeFiles(t, map[string]string{repo + "/notes.txt": "first\n"})
	runGit(t, repo, "init", "-q")
	runGit(t, repo, "add", "notes.txt")
	runGit(t, repo, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "first")
	return repo
}

func runGit(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "HOME="+dir, "GIT_PAGER=cat")
	if out, err := cmd.CombinedOutput(); err != nil && args[0] != "status" {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

func appendFile(t *testing.T, name, text string) {
	t.Helper()
	f, err := os.OpenFile(name, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(text); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestUserGitConfigRunsPrograms: a home folder opened as the workspace
// lets the model save ~/.gitconfig; with `diff.external` in it, the next
// allowed `git diff` ran the model's program (issue 24). The user's and
// the system's config are checked for the keys that make a read-only git
// command run a program on its own; the keys users set for themselves
// that cannot run under one still allow it.
func TestUserGitConfigRunsPrograms(t *testing.T) {
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("no git")
	}
	dir := t.TempDir()
	root, home := filepath.Join(dir, "ws"), filepath.Join(dir, "home")
	pwned := filepath.Join(dir, "PWNED")
	env := []string{"HOME=" + home, "GIT_CONFIG_NOSYSTEM=1", "PATH=" + os.Getenv("PATH"), "GIT_PAGER=cat"}
	runGit := func(args ...string) {
		t.Helper()
		cmd := exec.Command(git, args...)
		cmd.Dir, cmd.Env = root, env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	writeFiles(t, map[string]string{root + "/a.txt": "one\n", home + "/.keep": ""})
	runGit("init", "-q")
	runGit("add", "a.txt")
	runGit("-c", "user.name=t", "-c", "user.email=t@x", "commit", "-qm", "x")
	writeFiles(t, map[string]string{
		root + "/a.txt":      "two\n",
		home + "/.gitconfig": "[diff]\n\texternal = sh -c 'touch " + pwned + "'\n",
	})
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	t.Setenv("GIT_CONFIG_GLOBAL", "")
	t.Setenv("XDG_CONFIG_HOME", "")
	p := mustNew(t, Config{Root: root, Home: home})
	v := p.Check("git diff")
	if v.Decision == Allow {
		cmd := exec.Command(git, "diff")
		cmd.Dir, cmd.Env = root, env
		cmd.Run()
	}
	if _, err := os.Stat(pwned); err == nil {
		t.Fatalf("Check(git diff) = %+v, and git diff ran the home's diff.external", v)
	}
	if v.Decision != Ask || !strings.Contains(v.Reason, ".gitconfig sets diff.external") {
		t.Errorf("Check(git diff) = %+v, want ask naming ~/.gitconfig's diff.external", v)
	}

	for _, c := range []struct {
		name, file, config, reason string
	}{
		{"external diff", ".gitconfig", "[diff]\n\texternal = x\n", "diff.external"},
		{"textconv", ".gitconfig", "[diff \"pdf\"]\n\ttextconv = x\n", "diff.pdf.textconv"},
		{"diff command", ".gitconfig", "[diff \"pdf\"]\n\tcommand = x\n", "diff.pdf.command"},
		{"filter", ".gitconfig", "[filter \"crypt\"]\n\tclean = x\n", "filter.crypt.clean"},
		{"lfs filter changed", ".gitconfig", "[filter \"lfs\"]\n\tprocess = sh -c x\n", "filter.lfs.process"},
		{"fsmonitor hook", ".gitconfig", "[core]\n\tfsmonitor = /tmp/x\n", "core.fsmonitor"},
		{"promisor", ".gitconfig", "[remote \"origin\"]\n\tpromisor = true\n", "remote.origin.promisor"},
		{"xdg file", ".config/git/config", "[diff]\n\texternal = x\n", "config/git/config sets diff.external"},
		{"included", ".gitconfig", "[include]\n\tpath = ~/more.inc\n", "more.inc sets diff.external"},
		{"included if", ".gitconfig", "[includeIf \"gitdir:~/\"]\n\tpath = more.inc\n", "more.inc sets diff.external"},
		{"hooks path", ".gitconfig", "[core]\n\thooksPath = ~/hooks\n", "post-index-change"},
		// The user's own settings that no read-only command runs here.
		{"pager", ".gitconfig", "[core]\n\tpager = delta\n[pager]\n\tdiff = delta\n", ""},
		{"editor and credentials", ".gitconfig", "[core]\n\teditor = vim\n[credential]\n\thelper = store\n", ""},
		{"signing", ".gitconfig", "[gpg]\n\tprogram = gpg2\n[gpg \"ssh\"]\n\tprogram = op-ssh-sign\n", ""},
		{"alias", ".gitconfig", "[alias]\n\tup = !git pull --rebase\n", ""},
		{"git lfs", ".gitconfig", "[filter \"lfs\"]\n\tclean = git-lfs clean -- %f\n\tsmudge = git-lfs smudge -- %f\n\tprocess = git-lfs filter-process\n\trequired = true\n", ""},
		{"fsmonitor daemon", ".gitconfig", "[core]\n\tfsmonitor = true\n", ""},
		{"hooks path without the hook", ".gitconfig", "[core]\n\thooksPath = ~/nohooks\n", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			root, home := testWorkspace(t)
			writeFiles(t, map[string]string{
				home + "/" + c.file:               c.config,
				home + "/more.inc":                "[diff]\n\texternal = x\n",
				home + "/hooks/post-index-change": "#!/bin/sh\n",
				home + "/nohooks/pre-commit":      "#!/bin/sh\n",
			})
			p := mustNew(t, Config{Root: root, Home: home})
			for _, line := range []string{"git status", "git diff", "git log -p"} {
				v := p.Check(line)
				if c.reason == "" {
					if v.Decision != Allow {
						t.Errorf("Check(%q) = %+v, want allow", line, v)
					}
					continue
				}
				if v.Decision != Ask || !strings.Contains(v.Reason, c.reason) {
					t.Errorf("Check(%q) = %+v, want ask naming %q", line, v, c.reason)
				}
			}
		})
	}

	// GIT_CONFIG_GLOBAL and GIT_CONFIG_SYSTEM name the files git reads.
	other := filepath.Join(t.TempDir(), "cfg")
	writeFiles(t, map[string]string{other: "[diff]\n\texternal = x\n"})
	for _, name := range []string{"GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM"} {
		t.Run(name, func(t *testing.T) {
			t.Setenv("GIT_CONFIG_NOSYSTEM", "")
			t.Setenv(name, other)
			root, home := testWorkspace(t)
			if v := mustNew(t, Config{Root: root, Home: home}).Check("git status"); v.Decision != Ask || !strings.Contains(v.Reason, "diff.external") {
				t.Errorf("with %s: %+v, want ask naming diff.external", name, v)
			}
		})
	}
}
