package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

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

// TestReadmeUsage: each command's section in the README opens with the
// usage line its -h prints (the demo's said only `[--keep]` long after
// it had --editor, --dir and --listen).
func TestReadmeUsage(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range commands() {
		t.Run(c.name, func(t *testing.T) {
			stdout, stderr, _ := runCLI(t, "", c.name, "-h")
			synopsis, _, _ := strings.Cut(stdout+stderr, "\n")
			synopsis = strings.TrimPrefix(synopsis, "usage: ")
			_, section, ok := strings.Cut(string(readme), "\n### `agentls "+c.name+"`\n")
			if !ok {
				t.Skipf("the README has no section for agentls %s", c.name)
			}
			block, ok := strings.CutPrefix(section, "\n```\n")
			if !ok {
				return // no usage block at the section's start (version's is a sentence)
			}
			block, _, _ = strings.Cut(block, "\n```")
			if !slices.Contains(strings.Split(block, "\n"), synopsis) {
				t.Errorf("README's agentls %s section says\n%s\nwant its -h usage line\n%s", c.name, block, synopsis)
			}
		})
	}
}
