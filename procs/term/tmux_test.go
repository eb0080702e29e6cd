package term

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// TestTmuxGolden runs deterministic commands (programs that finish, errors)
// and compares the messages with testdata/tmux.golden.
// go test ./procs/term -run TmuxGolden -update rewrites it.
func TestTmuxGolden(t *testing.T) {
	// Every program here exits, which ends the settling at once; a long
	// Settle keeps a slow start on a loaded machine from showing a blank
	// screen.
	m := newManager(t, Options{Cols: 40, Rows: 10, Settle: 10 * time.Second})
	ctx := context.Background()
	bodies := []string{
		`new-session printf 'step 1\rstep 2\rdone  \n'; echo '` + "```" + `'`,
		"inspect-pane 1",
		"inspect-pane agentls_1",
		"new-session 'exit 3'",
		"list-sessions",
		"send-keys 2 Enter",
		"kill-session 1\nkill-session agentls_2",
		"list-sessions",
		"new-session",
		"send-keys agentls_9",
		"send-keys agentls_9 x",
		"frobnicate now",
		"wait 3 soon",
		"   \n ; ",
	}
	var b strings.Builder
	for _, body := range bodies {
		fmt.Fprintf(&b, "### %s\n%s\n\n", body, m.Tmux(ctx, body))
	}
	got := b.String()
	golden := filepath.Join("testdata", "tmux.golden")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("tmux messages differ from %s (-want +got):\n%s", golden, diff)
	}
}

// TestTmuxInteractive drives a running program through every verb.
func TestTmuxInteractive(t *testing.T) {
	m := newManager(t, Options{})
	ctx := context.Background()
	expect := func(body string, want ...string) string {
		t.Helper()
		got := m.Tmux(ctx, body)
		for _, w := range want {
			if !strings.Contains(got, w) {
				t.Fatalf("%q: reply lacks %q:\n%s", body, w, got)
			}
		}
		return got
	}
	expect("new-session cat", "Running `cat` in session agentls_1.\n```output\n")
	expect("send-keys agentls_1 'hello there' Enter", "Sent ''hello there' Enter' to pane `agentls_1`\n```output\n")
	s, _ := m.Get("1")
	waitFor(t, s, regexp.MustCompile(`(?m)^hello there\nhello there$`))
	expect("inspect-pane 1", "Pane content:\n```output\nhello there\nhello there\n```")
	// Unquoted words are typed with spaces between them.
	expect("send-keys 1 two words Enter")
	waitFor(t, s, regexp.MustCompile(`(?m)^two words\ntwo words$`))
	expect("wait 1 30 0.2", "Session `agentls_1` output stabilized after", "(stable for 0.2s).\n```output\n")
	expect("wait agentls_1 timeout=30 stable=0.1", "output stabilized")
	expect("list-sessions", "Active tmux sessions:\n- agentls_1 [running] `cat`")
	expect("send-keys 1 C-d; wait 1 30", "exited with code 0 after")
	expect("inspect-pane 1", "The program has exited with code 0.")
	expect("send-keys 1 more", "Error: The program in agentls_1 has exited with code 0; nothing was sent.")
	expect("kill-session 1", "Killed tmux session with ID agentls_1")
	expect("list-sessions", "No active tmux sessions.")

	got := expect("new-session sleep 100\nsend-keys agentls_2 C-c; wait 2 30 0.1", "Running `sleep 100` in session agentls_2.", "Sent 'C-c' to pane `agentls_2`", "Session `agentls_2` exited")
	if strings.Count(got, "\n\n") < 2 {
		t.Errorf("three commands should give three messages:\n%s", got)
	}

	expect("new-session while :; do echo tick; sleep 0.05; done", "in session agentls_3")
	expect("wait 3 0.5 2", "Session `agentls_3` timed out after 0.5s (output still changing).",
		"Use `kill-session agentls_3` to terminate or `send-keys agentls_3 C-c` to interrupt.")
	expect("kill-session agentls_3", "Killed tmux session with ID agentls_3")
}

func TestTmuxLongCaptureIsTruncated(t *testing.T) {
	m := newManager(t, Options{})
	m.Tmux(context.Background(), "new-session seq 1 500")
	s, _ := m.Get("1")
	waitDone(t, s)
	got := m.Tmux(context.Background(), "inspect-pane 1")
	for _, want := range []string{"\n1\n2\n", "\n50\n... (300 lines truncated) ...\n351\n", "\n500\n```"} {
		if !strings.Contains(got, want) {
			t.Errorf("reply lacks %q", want)
		}
	}
}

func TestSplitCommands(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"list-sessions", []string{"list-sessions"}},
		{"a\nb;c", []string{"a", "b", "c"}},
		{"send-keys 1 'a; b' Enter; inspect-pane 1", []string{"send-keys 1 'a; b' Enter", "inspect-pane 1"}},
		{`send-keys 1 "it's; fine" Enter`, []string{`send-keys 1 "it's; fine" Enter`}},
		{`send-keys 1 don\'t Enter; list-sessions`, []string{`send-keys 1 don\'t Enter`, "list-sessions"}},
		{`send-keys 1 a\;b`, []string{`send-keys 1 a\;b`}},
		{"  \n\n ;; ", nil},
		{"new-session while :; do date; done\nwait 1; list-sessions", []string{"new-session while :; do date; done", "wait 1", "list-sessions"}},
		{"new-session; list-sessions", []string{"new-session", "list-sessions"}},
		{"new-sessions a; b", []string{"new-sessions a", "b"}},
		{"send-keys 1 'open\nlist-sessions", []string{"send-keys 1 'open\nlist-sessions"}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, splitCommands(tt.in)); diff != "" {
			t.Errorf("splitCommands(%q) (-want +got):\n%s", tt.in, diff)
		}
	}
}

func TestSplitKeys(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"C-c", []string{"C-c"}},
		{"'print(1)' Enter", []string{"print(1)", "Enter"}},
		{`"say \"hi\"" Enter`, []string{`say "hi"`, "Enter"}},
		{`a\ b c`, []string{"a b", "c"}},
		{`'' x`, []string{"", "x"}},
		{`"a\nb"`, []string{`a\nb`}},
		{"'unclosed Enter", []string{"'unclosed Enter"}},
		{`trailing\`, []string{`trailing\`}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, splitKeys(tt.in)); diff != "" {
			t.Errorf("splitKeys(%q) (-want +got):\n%s", tt.in, diff)
		}
	}
}

func TestJoinLiterals(t *testing.T) {
	got := joinLiterals([]string{"echo", "hello", "world", "Enter", "ls", "C-c", "x"})
	want := []string{"echo hello world", "Enter", "ls", "C-c", "x"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestKeyBytes(t *testing.T) {
	tests := []struct {
		key       string
		appCursor bool
		want      string
	}{
		{"Enter", false, "\r"},
		{"enter", false, "\r"},
		{"C-c", false, "\x03"},
		{"C-C", false, "\x03"},
		{"^D", false, "\x04"},
		{"C-[", false, "\x1b"},
		{"C-Space", false, "\x00"},
		{"C-?", false, "\x7f"},
		{"Escape", false, "\x1b"},
		{"Tab", false, "\t"},
		{"BTab", false, "\x1b[Z"},
		{"BSpace", false, "\x7f"},
		{"Space", false, " "},
		{"Up", false, "\x1b[A"},
		{"Up", true, "\x1bOA"},
		{"Left", false, "\x1b[D"},
		{"Home", true, "\x1bOH"},
		{"End", false, "\x1b[F"},
		{"PageUp", false, "\x1b[5~"},
		{"NPage", false, "\x1b[6~"},
		{"DC", false, "\x1b[3~"},
		{"F1", false, "\x1bOP"},
		{"F5", false, "\x1b[15~"},
		{"F12", false, "\x1b[24~"},
		{"M-x", false, "\x1bx"},
		{"M-Enter", false, "\x1b\r"},
		{"F13", false, "F13"},
		{"C-cc", false, "C-cc"},
		{"hello", false, "hello"},
		{"f", false, "f"},
		{"", false, ""},
	}
	for _, tt := range tests {
		if got := keyBytes(tt.key, tt.appCursor); got != tt.want {
			t.Errorf("keyBytes(%q, %v) = %q, want %q", tt.key, tt.appCursor, got, tt.want)
		}
	}
}
