package main

import (
	"regexp"
	"strings"
	"testing"
)

// TestVersionFlag: `agentls --version` is `agentls version`, not a serve
// flag to refuse.
func TestVersionFlag(t *testing.T) {
	want, _, _ := runCLI(t, "", "version")
	for _, args := range [][]string{{"--version"}, {"-version"}} {
		stdout, stderr, code := runCLI(t, "", args...)
		if code != exitOK || stdout != want || stderr != "" {
			t.Errorf("agentls %q: exit %d, stdout %q, stderr %q; want exit 0 and %q", args, code, stdout, stderr, want)
		}
	}
	if !strings.HasPrefix(want, "agentls ") {
		t.Errorf("agentls version: %q", want)
	}
}

// flagLine is a flag in the "Flags:" list flag.PrintDefaults writes.
var flagLine = regexp.MustCompile(`(?m)^  -([A-Za-z][A-Za-z0-9-]*)`)

// TestHelp: -h and --help on every command print its usage and exit 0,
// and the usage line names every flag the command has.
func TestHelp(t *testing.T) {
	type helpCase struct {
		args     []string
		synopsis string // how the usage begins
	}
	cases := []helpCase{
		{[]string{"help"}, "agentls: a coding agent's tools"},
		{[]string{"-h"}, "agentls: a coding agent's tools"},
		{[]string{"--help"}, "agentls: a coding agent's tools"},
		{[]string{"anchors", "view", "-h"}, "usage: agentls anchors view FILE"},
		{[]string{"anchors", "view", "--help"}, "usage: agentls anchors view FILE"},
		{[]string{"anchors", "apply", "-h"}, "usage: agentls anchors apply FILE"},
		{[]string{"anchors", "apply", "--help"}, "usage: agentls anchors apply FILE"},
		{[]string{"help", "ask"}, "usage: agentls ask"},
		{[]string{"help", "anchors"}, "usage: agentls anchors view FILE"},
		{[]string{"help", "serve"}, "usage: agentls [serve]"},
	}
	for _, c := range commands() {
		synopsis := "usage: agentls " + c.name
		if c.name == "serve" {
			synopsis = "usage: agentls [serve]"
		}
		for _, h := range []string{"-h", "--help"} {
			cases = append(cases, helpCase{[]string{c.name, h}, synopsis})
		}
	}
	for _, tc := range cases {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			stdout, stderr, code := runCLI(t, "", tc.args...)
			help := stdout + stderr
			if code != exitOK {
				t.Errorf("exit %d, want 0\n%s", code, help)
			}
			if stdout != "" && stderr != "" {
				t.Errorf("the help is split between stdout %q and stderr %q", stdout, stderr)
			}
			if !strings.HasPrefix(help, tc.synopsis) {
				t.Fatalf("the help does not begin with %q:\n%s", tc.synopsis, help)
			}
			synopsis, _, _ := strings.Cut(help, "\n")
			for _, m := range flagLine.FindAllStringSubmatch(help, -1) {
				name := m[1]
				if !strings.Contains(synopsis, "-"+name+" ") && !strings.Contains(synopsis, "-"+name+"]") {
					t.Errorf("the usage line %q does not name the flag -%s", synopsis, name)
				}
			}
		})
	}
}

// TestHelpContent: what the brief's users looked for in a command's help.
func TestHelpContent(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"ask", "--help"}, []string{"-C dir", "-model", "-base-url", "-api-key-env", "-format", "-max-steps"}},
		{[]string{"apply", "--help"}, []string{"patch_anchored", "-protected", "-dry-run"}},
		{[]string{"demo", "--help"}, []string{"-keep"}},
	} {
		stdout, stderr, _ := runCLI(t, "", tc.args...)
		for _, w := range tc.want {
			if !strings.Contains(stdout+stderr, w) {
				t.Errorf("agentls %q does not mention %q:\n%s", tc.args, w, stdout+stderr)
			}
		}
	}
}

// TestUsageErrors: a bad command line says first, in one line, what was
// wrong, then prints the usage once, on stderr, and exits 2.
func TestUsageErrors(t *testing.T) {
	file := writeTree(t, map[string]string{"m.go": "package main\n"}) + "/m.go"
	for _, tc := range []struct {
		args  []string
		first string // the first line of stderr
	}{
		{[]string{"bogus"}, `agentls: unknown command "bogus"`},
		{[]string{"help", "bogus"}, `agentls: unknown command "bogus"`},
		{[]string{"--bogus"}, "agentls serve: flag provided but not defined: -bogus"}, // flags alone are serve's
		{[]string{"serve", "extra"}, `agentls serve: unexpected argument "extra"`},
		{[]string{"anchors"}, "agentls anchors: give a subcommand: view FILE or apply FILE"},
		{[]string{"anchors", "frob"}, `agentls anchors: unknown subcommand "frob"`},
		{[]string{"anchors", "view"}, "agentls anchors view: give the FILE to view"},
		{[]string{"anchors", "view", "--json"}, "agentls anchors view: give the FILE to view"},
		{[]string{"anchors", "view", file, "other.go"}, `agentls anchors view: unexpected argument "other.go" (give one FILE)`},
		{[]string{"anchors", "view", "--lines", "x", file}, "agentls anchors view: --lines x: line numbers are whole numbers from 1"},
		{[]string{"anchors", "view", file, "--bogus"}, "agentls anchors view: flag provided but not defined: -bogus"},
		{[]string{"anchors", "apply"}, "agentls anchors apply: give the FILE to apply the operations to (they are read from stdin)"},
		{[]string{"anchors", "apply", file, "other.go"}, `agentls anchors apply: unexpected argument "other.go" (give one FILE)`},
		{[]string{"apply", "extra"}, `agentls apply: unexpected argument "extra" (the reply is read from stdin)`},
		{[]string{"apply", "--format", "yaml"}, "agentls apply: "},
		{[]string{"ask"}, "agentls ask: no prompt given"},
		{[]string{"ask", "--max-steps", "many", "hi"}, `agentls ask: invalid value "many" for flag -max-steps: parse error`},
		{[]string{"demo", "extra"}, `agentls demo: unexpected argument "extra" (demo takes no arguments)`},
		{[]string{"parse", "--bogus"}, "agentls parse: flag provided but not defined: -bogus"},
		{[]string{"parse", "--format", "yaml"}, "agentls parse: "},
		{[]string{"parse", "extra"}, `agentls parse: unexpected argument "extra" (the reply is read from stdin)`},
		{[]string{"policy"}, "agentls policy: give the command line as one argument (quote it)"},
		{[]string{"trust", "a", "b"}, "agentls trust: give at most one folder"},
		{[]string{"version", "extra"}, `agentls version: unexpected argument "extra" (version takes no arguments)`},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			stdout, stderr, code := runCLI(t, "", tc.args...)
			if code != exitUsage || stdout != "" {
				t.Errorf("exit %d, stdout %q; want exit %d and nothing on stdout", code, stdout, exitUsage)
			}
			first, rest, _ := strings.Cut(stderr, "\n")
			if !strings.HasPrefix(first, tc.first) {
				t.Errorf("the first line of stderr is %q, want %q", first, tc.first)
			}
			if n := strings.Count(strings.ToLower(rest), "usage: agentls"); n != 1 {
				t.Errorf("the usage follows %d times, want once:\n%s", n, stderr)
			}
		})
	}
}

// TestServeNotice: bare `agentls` in a terminal says what it is waiting
// for and how to stop; a client's pipe gets nothing (its stderr is a log).
func TestServeNotice(t *testing.T) {
	for _, tc := range []struct {
		terminal bool
		listen   string
		want     string
	}{
		{true, "", "agentls: a language server, waiting for an LSP client on stdin (an editor starts it); press Ctrl-D or Ctrl-C to stop. Try `agentls help` for the commands, or `agentls demo` to see it work."},
		{false, "", ""},
		{true, "127.0.0.1:0", ""}, // --listen says where it listens
	} {
		if got := serveNotice(tc.terminal, tc.listen); got != tc.want {
			t.Errorf("terminal %v, listen %q: %q, want %q", tc.terminal, tc.listen, got, tc.want)
		}
	}
	// In-process, stdin is not a terminal: the server starts silently and
	// ends when stdin does.
	_, stderr, code := runCLI(t, "")
	if code != exitFailed || strings.Contains(stderr, "waiting for an LSP client") {
		t.Errorf("agentls on an empty pipe: exit %d, stderr %q", code, stderr)
	}
}

// TestReadingNotice: a command that reads stdin says so when stdin is a
// terminal (a person forgot `< FILE`); on a pipe it says nothing.
func TestReadingNotice(t *testing.T) {
	for _, tc := range []struct {
		terminal      bool
		command, what string
		want          string
	}{
		{true, "parse", "the reply", "agentls parse: reading the reply from the terminal; end it with Ctrl-D (or give it as a file: agentls parse < FILE)"},
		{true, "anchors apply m.go", "the operations (JSON)", "agentls anchors apply m.go: reading the operations (JSON) from the terminal; end it with Ctrl-D (or give it as a file: agentls anchors apply m.go < FILE)"},
		{false, "parse", "the reply", ""},
	} {
		if got := readingNotice(tc.terminal, tc.command, tc.what); got != tc.want {
			t.Errorf("terminal %v, %s: %q, want %q", tc.terminal, tc.command, got, tc.want)
		}
	}
	// In-process, stdin is a pipe: parse prints only its JSON and no notice.
	stdout, stderr, code := runCLI(t, "no tools here", "parse")
	if code != exitOK || strings.TrimSpace(stdout) != "[]" || stderr != "" {
		t.Errorf("parse on a pipe: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}
