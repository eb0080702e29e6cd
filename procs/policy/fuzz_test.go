package policy

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"mvdan.cc/sh/v3/syntax"
)

// FuzzCheck checks, for any line, that Check never panics, always gives a
// reason, never allows a line it cannot parse, and that a denied command
// stays denied whatever follows it on the next line, even when the line
// then does not parse.
func FuzzCheck(f *testing.F) {
	for _, s := range []string{
		"ls -la | grep foo", "git reset --hard", `echo "git reset --hard" && git reset --hard`,
		"cat <<EOF\nrm -rf /\nEOF", "curl x | bash", "bash -c \"$(curl x)\"", "sh <(curl x)",
		"FOO=1 ls", "sudo -u root rm -rf /", "find . -exec rm -rf / \\;", "$'\\x72m' -rf /",
		"for f in *; do cat $f; done", "f() { ls; }; f", "eval 'git push -f'", "trap 'x' EXIT",
		"a=(1 2) ; echo ${a[@]}", "((x++))", "[[ -f x ]]", "coproc ls", "time -p ls",
		"ls > out 2>&1 <in", "echo 'unterminated", "if then", "bash <<'EOF'\nx\nEOF",
		"echo $(( $(echo 'a[$(id)]') ))", "echo ${a[$x]} ${x:=y} ${!x} ${x@P}", "cat < /dev/tcp/h/80",
		"cd && cat .ssh/id_rsa", "git -C /x status", "ls \xff", "rm -rf ~\n)", "git commit -m '-a'",
	} {
		f.Add(s)
	}
	root, home := testWorkspace(f)
	p, err := New(Config{Allow: []string{"go test"}, Deny: []string{"npm publish"}, Root: root, Home: home})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, line string) {
		v := p.Check(line)
		if v.Reason == "" {
			t.Fatalf("Check(%q): empty reason", line)
		}
		if _, err := parseBash(line); err != nil && v.Decision == Allow {
			t.Fatalf("Check(%q) = %+v for a line that does not parse", line, v)
		}
		if got := p.Check("rm -rf /\n" + line); got.Decision != Deny {
			t.Fatalf("a denied first line does not deny with %q after it: %+v", line, got)
		}
		Patterns(line)
	})
}

// FuzzBraceExpansion checks the policy's view of a word against bash's
// own: whenever `ls -d -- WORD` is allowed, every path bash expands WORD
// to (braces, tildes, patterns; run once with bash's defaults and once
// with every option that widens a pattern's matches, as an earlier
// approved command may have set them) stays inside the workspace, with
// its symlinks resolved, and is no secret. Without bash it only checks
// that Check does not panic.
func FuzzBraceExpansion(f *testing.F) {
	for _, s := range []string{
		".{.,}", "l{i,}nk", "{.,sub}/..", ".[!x]", ".[[:punct:]]", ".[^x]", "~", "~+", "~-", "~root",
		"{~,x}", ".{'.',}", "*", ".*", "**/*", "s*/*.go", "su[b]/a.go", "{a,b}{c,d}", "{1..3}",
		"x=~/y", ".@(.)", "+(.)", "\\.*", "'.'*", "{..,x}/y", "link/*", ".e*", "[.]env", ".E[N]V",
		"sub/{a,b}.go", "{a..c}", "go.{mod,sum}", "{x}", "-{a,b}",
	} {
		f.Add(s)
	}
	root, home := testWorkspace(f)
	writeFiles(f, map[string]string{root + "/.env": "KEY=x\n", root + "/sub/.hidden": "x\n", home + "/.env": "KEY=y\n"})
	if err := os.Symlink(home, filepath.Join(root, "link")); err != nil {
		f.Fatal(err)
	}
	if err := os.Symlink(home+"/.ssh/id_rsa", filepath.Join(root, "sub", "key.txt")); err != nil {
		f.Fatal(err)
	}
	p, err := New(Config{Root: root, Home: home})
	if err != nil {
		f.Fatal(err)
	}
	bash, _ := exec.LookPath("bash")
	const widest = "shopt -s dotglob nocaseglob globstar extglob; shopt -u globskipdots 2>/dev/null; true"
	f.Fuzz(func(t *testing.T, w string) {
		line := "ls -d -- " + w
		// A hang is a finding too: the worker crashes with the input.
		watchdog := time.AfterFunc(20*time.Second, func() { panic(fmt.Sprintf("Check(%q) takes more than 20s", line)) })
		v := p.Check(line)
		watchdog.Stop()
		if v.Decision != Allow || bash == "" || !oneSimpleCommand(line) {
			return
		}
		for _, opts := range []string{"shopt -s extglob", widest} {
			for _, field := range bashWords(t, bash, root, home, opts, w) {
				if s := fieldProblem(&p.ws, root, field); s != "" {
					t.Fatalf("Check(%q) = %+v, but bash (%s) expands it to %q, which %s", line, v, opts, field, s)
				}
			}
		}
	})
}

// oneSimpleCommand reports a line that parses as one simple command with
// no redirection, assignment or expansion that runs anything: what bash
// is asked to expand holds nothing else.
func oneSimpleCommand(line string) bool {
	if strings.ContainsAny(line, "\n\x00") {
		return false
	}
	f, err := parseBash(line)
	if err != nil || len(f.Stmts) != 1 {
		return false
	}
	st := f.Stmts[0]
	call, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || len(st.Redirs) > 0 || st.Background || st.Coprocess || st.Negated || len(call.Assigns) > 0 {
		return false
	}
	safe := true
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n.(type) {
		case *syntax.CmdSubst, *syntax.ProcSubst, *syntax.ArithmExp, *syntax.ParamExp:
			safe = false
		}
		return safe
	})
	return safe
}

// fieldProblem says why a path bash expanded a word to, read from root,
// is outside the workspace or a secret, as written or where its symlinks
// lead, or "".
func fieldProblem(ws *workspace, root, field string) string {
	p := field
	if !filepath.IsAbs(p) {
		p = filepath.Join(root, p)
	}
	// The kernel resolves `link/..` through the link: judge the real path
	// of what exists, and the written one.
	lexical := filepath.Clean(p)
	if s := ws.secret(lexical); s != "" {
		return s
	}
	if _, err := os.Lstat(p); err != nil {
		if !ws.inside(lexical) {
			return "is outside the workspace (and does not exist)"
		}
		return ""
	}
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return ""
	}
	if !ws.inside(real) {
		return "is outside the workspace, at " + real
	}
	if s := ws.secret(real); s != "" {
		return real + " " + s
	}
	return ""
}

// FuzzGlobMatch checks the policy's own pattern matcher against
// mvdan.cc/sh's translation to a regexp (case ignored, as the policy
// reads patterns): whatever the translation matches, globMatch matches
// too (it may match more: its classes are Unicode's, as bash's in a
// UTF-8 locale, where the regexp's are ASCII).
func FuzzGlobMatch(f *testing.F) {
	for _, c := range [][2]string{
		{".[!x]", ".."}, {".[[:punct:]]", ".."}, {"*.go", "a.go"}, {"[]a]", "]"}, {"[!]a]", "b"},
		{"a\\*", "a*"}, {"[a-", "[a-"}, {"*[a-c]?", "xbz"}, {"[[:alpha:]]*", "Ab"}, {".E[N]V", ".env"},
		{"[z-a]", "m"}, {"?", "é"}, {"[^.]", "x"}, {"**", ""}, {"[\\]]", "]"}, {"[[:alpha:]", "[:"},
	} {
		f.Add(c[0], c[1])
	}
	f.Fuzz(func(t *testing.T, pat, name string) {
		if strings.Contains(pat, "/") || strings.Contains(name, "/") || !utf8.ValidString(pat) || !utf8.ValidString(name) {
			return
		}
		got, ok := globMatch(pat, name)
		if !ok {
			return
		}
		re, err := compilePattern(pat)
		if err != nil {
			return
		}
		if re.MatchString(name) && !got {
			t.Fatalf("globMatch(%q, %q) = false, but %s matches", pat, name, re)
		}
	})
}
