package policy

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"mvdan.cc/sh/v3/syntax"
)

// TestBraceExpansionReachesOutside: bash expands `.{.,}` to `..` and `.`,
// so `grep -r … .{.,}` searched the parent of the workspace (and with it
// ~/.ssh) while the policy judged the word `.{.,}`, a name inside it
// (issue 24). Every allowlisted reader, and the redirections.
func TestBraceExpansionReachesOutside(t *testing.T) {
	root, home := testWorkspace(t)
	if err := os.Symlink(home, filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	writeFiles(t, map[string]string{root + "/.env": "KEY=x\n"})
	runChecks(t, mustNew(t, Config{Root: root, Home: home}), []checkCase{
		{"grep -r -h -I '' --include=id_rsa .{.,}", Ask, "`..` leaves the working directory"},
		{"grep -r root l{i,}nk", Ask, "symlink"},
		{"ls .{.,}", Ask, "leaves"},
		{"ls -a .{.,}/home/.ssh", Ask, ""},
		{"tree .{.,}", Ask, "leaves"},
		{"find .{.,} -name id_rsa", Ask, "leaves"},
		{"du -a .{.,}", Ask, "leaves"},
		{"rg -uuu x .{.,}", Ask, "leaves"},
		{"cat {.,sub}/../home/.netrc", Ask, ""},
		{"cat .{env,x}", Ask, "secrets"},
		{"head {.e,x}nv", Ask, "secrets"},
		{"wc -c {~,x}/.netrc", Ask, "home directory"},
		{"cat {..,sub}/x", Ask, "leaves"},
		{"ls {.,.}.", Ask, "leaves"},
		{"ls .{'.',}", Ask, "leaves"},
		{`ls .{".",}`, Ask, "leaves"},
		{"ls .{.,}{.,}", Ask, "leaves"},
		{"ls {/,x}", Ask, "root directory"},
		{"ls .{{.,x},y}", Ask, "leaves"},
		{"cat < {.env,}", Ask, "secrets"},
		{"cat < l{i,}nk/.netrc", Ask, ""},
		{"git -C .{.,} status", Ask, ""},
		{"git diff -- .{.,}", Ask, "leaves"},
		// Brace expansion makes the command itself.
		{"{rm,-rf,/}", Deny, reasonFile},
		{"rm -rf {/,x}", Deny, reasonFile},
		{"{git,reset,--hard}", Deny, reasonGit},
		// Too many words to judge one by one: the worst case.
		{"ls {a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}", Ask, "too many to check"},
		{"ls {1..100000}", Ask, "too many to check"},
		{"cat {1..9223372036854775807}", Ask, "too many to check"},
		{"rm -rf {1..100000}/ /", Deny, reasonFile},
		// What bash leaves alone, and expansions that stay inside.
		{"ls {a,b}.go sub/{a,b}.go", Allow, ""},
		{"cat sub/{a,b}.go go.{mod,sum}", Allow, ""},
		{"ls {x} '{a,b}' \\{a,b\\}", Allow, ""},
		{"ls {1..3} {a..c}", Allow, ""},
		{"go list -f {{.Dir}} ./...", Allow, ""},
		{"echo {a,b} {1..200}", Allow, ""},
		{"echo {1..1000}", Ask, "too many"},
	})
}

// TestTildeForms: every tilde bash expands reaches the home directory
// or a directory only known when the line runs.
func TestTildeForms(t *testing.T) {
	root, home := testWorkspace(t)
	runChecks(t, mustNew(t, Config{Root: root, Home: home}), []checkCase{
		{"cat ~/.netrc", Ask, "home directory"},
		{"ls ~", Ask, "home directory"},
		{"ls ~root", Ask, "another user's home directory"},
		{"ls ~+/..", Ask, ""},
		{"ls ~+", Ask, "current or previous directory"},
		{"ls ~-", Ask, "current or previous directory"},
		{"ls ~/", Ask, "home directory"},
		{"cat x=~/.netrc", Ask, "home directory"},
		{"cat x=a:~/.netrc", Ask, "home directory"},
		{"ls {~,x}", Ask, "home directory"},
		{"ls ~{,/.ssh}", Ask, "home directory"},
		// Quoted, or not where bash expands it.
		{"cat '~/x'", Allow, ""},
		{`cat "~"`, Allow, ""},
		{"cat a~b", Allow, ""},
		{"cat --x=~", Ask, "not permitted"},
		{"git show HEAD~1", Allow, ""},
		{"echo ~", Allow, ""},
	})
}

// TestGlobsWithBashSemantics: Go's path.Match read `[!x]` as a class of
// `!` and `x` and `[[:punct:]]` as something else, so `ls .[!x]`, which
// lists `..` on bash before 5.2, was allowed.
func TestGlobsWithBashSemantics(t *testing.T) {
	root, home := testWorkspace(t)
	writeFiles(t, map[string]string{root + "/.env": "KEY=x\n", root + "/main.go": "package main\n"})
	if err := os.Symlink(home, filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	p := mustNew(t, Config{Root: root, Home: home})
	runChecks(t, p, []checkCase{
		{"ls .[!x]", Ask, "`..`"},
		{"ls .[^x]", Ask, "`..`"},
		{"ls .[[:punct:]]", Ask, "`..`"},
		{"ls .[!a-z]/home", Ask, "`..`"},
		{"cat .?/home/.netrc", Ask, ""},
		{"ls .*", Ask, "`..`"},
		{"ls \\.*", Ask, "`..`"},
		{"ls '.'*", Ask, "`..`"},
		{"ls .@(.)", Ask, ""},
		{"ls +(.)", Ask, ""},
		{"ls !(x)", Ask, ""},
		// The widest options: dotglob, nocaseglob, globstar.
		{"cat *", Ask, "secrets"},
		{"cat .E[N]V", Ask, "secrets"},
		{"cat [.]env", Ask, "secrets"},
		{"cat l[i]nk/.netrc", Ask, ""},
		{"cat l?nk/notes.txt", Ask, "symlink"},
		{"grep -r x l*", Ask, "symlink"},
		{"cat **/id_rsa", Ask, "secrets"},
		{"ls su[b]/../..", Ask, "leaves"},
		// Inside, and nothing secret.
		{"ls *.go", Allow, ""},
		{"cat s*/*.go", Allow, ""},
		{"ls su[!x] su[^x] su[[:alpha:]]", Allow, ""},
		{"wc -l **/*.go", Allow, ""},
	})
}

// TestBashAgreesOnExpansions runs bash on the words the tests above rely
// on: the policy's brace expansion gives the words bash gives, and bash
// without globskipdots (as before 5.2) lists `..` for `.[!x]`.
func TestBashAgreesOnExpansions(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	dir := t.TempDir()
	for _, src := range []string{
		".{.,}", "l{i,}nk", "{rm,-rf,/}", ".{'.',}", `.{".",}`, "{~,x}", "{x}", "'{a,b}'", `\{a,b\}`,
		"{1..3}", "{a..c}", "{01..3}", "{1..10..4}", "{a,b}{,c}", ".{{.,x},y}", "{,}", `""{,}`, "{a,b",
		"{a..}", "{1..2..3..4}", "x{a,\"b,c\"}", "{a,b}$x", "{{a,b}}", "-{a,b}=c",
	} {
		got := policyWords(t, src, bashHome(dir))
		want := bashWords(t, bash, dir, bashHome(dir), "", src)
		if len(got) == 0 {
			got = []string{""} // printf with no arguments prints its format once
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: policy sees %q, bash %q", src, got, want)
		}
	}
	if got := bashWords(t, bash, dir, dir, "shopt -u globskipdots 2>/dev/null || exit 1", ".[!x]"); got != nil && !slices.Contains(got, "..") {
		t.Errorf("bash without globskipdots expands .[!x] to %q, want it to hold ..", got)
	}
}

func bashHome(dir string) string { return filepath.Join(dir, "home") }

// policyWords is the words the policy judges for the arguments src, with
// a leading tilde replaced by home as bash does.
func policyWords(t testing.TB, src, home string) []string {
	f, err := parseBash("printf '%s\\0' " + src)
	if err != nil {
		t.Fatalf("%s: %v", src, err)
	}
	call, ok := f.Stmts[0].Cmd.(*syntax.CallExpr)
	if !ok {
		t.Fatalf("%s: not a simple command", src)
	}
	ws, problem := expandWords(call.Args[2:])
	if problem != "" {
		t.Fatalf("%s: %s", src, problem)
	}
	var out []string
	for _, w := range ws {
		v := w.val
		if w.tilde && (v == "~" || strings.HasPrefix(v, "~/")) {
			v = home + v[1:]
		}
		out = append(out, v)
	}
	return out
}

// bashWords is what bash makes of the words src, run in dir with HOME
// set to home: the arguments printf gets.
func bashWords(t testing.TB, bash, dir, home, opts, src string) []string {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bash, "--noprofile", "--norc", "-c", opts+"\nprintf '%s\\0' "+src)
	cmd.Dir = dir
	cmd.Env = []string{"HOME=" + home, "PATH=" + os.Getenv("PATH")}
	out, err := cmd.Output()
	if ctx.Err() != nil {
		t.Fatalf("bash takes more than 20s to expand %q", src)
	}
	if err != nil {
		return nil
	}
	words := strings.Split(string(bytes.TrimSuffix(out, []byte{0})), "\x00")
	if len(out) == 0 {
		words = nil
	}
	return slices.Clip(words)
}

// TestEchoListsNamesOutside: echo reads no file, but bash lists a
// directory to expand its pattern, and the names are printed: `echo
// ~/.ssh/*` showed the user's key files to the model (issue 24).
func TestEchoListsNamesOutside(t *testing.T) {
	root, home := testWorkspace(t)
	if err := os.Symlink(home, filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	runChecks(t, mustNew(t, Config{Root: root, Home: home}), []checkCase{
		{"echo ~/.ssh/*", Ask, "home directory"},
		{"echo ~/*", Ask, "home directory"},
		{"echo ../*", Ask, "outside the working directory"},
		{"echo ../../*/.ssh/*", Ask, "outside"},
		{"printf '%s\\n' ../*", Ask, ""},
		{"echo /*", Ask, "outside the workspace"},
		{"echo " + home + "/.ss?/*", Ask, ""},
		{"echo .*/*", Ask, "outside the working directory"},
		{"echo .[!x]/*", Ask, "outside the working directory"},
		{"echo {..,.}/*", Ask, "outside the working directory"},
		{"echo link/*", Ask, "symlink"},
		{"echo l*/*", Ask, "symlink"},
		{"echo -n x; echo ~/.ssh/id*", Ask, "home directory"},
		{"echo $HOME/.ssh/*", Ask, "only known when it runs"},
		{`echo "$HOME"/*`, Ask, "only known when it runs"},
		// Names in the workspace, or no pattern at all.
		{"echo *", Allow, ""},
		{"echo *.go sub/*", Allow, ""},
		{"echo .*", Allow, ""},
		{"echo ~ ../x /etc/*.conf'*'", Ask, "outside"},
		{"echo ~ ../x '/etc/*'", Allow, ""},
		{"echo '../*' \"~/*\"", Allow, ""},
	})
}
