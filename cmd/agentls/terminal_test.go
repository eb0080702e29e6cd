package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/creack/pty"

	"github.com/agentls/agentls/agent/modeltest"
)

// TestIsTerminal: only a terminal counts as one. /dev/null is a character
// device too, and was taken for a terminal: `agentls ask … < /dev/null`
// prompted, read the end of input, and told the model the user declined.
func TestIsTerminal(t *testing.T) {
	devNull, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer devNull.Close()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	file, err := os.Create(filepath.Join(t.TempDir(), "f"))
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	cases := []struct {
		name string
		in   io.Reader
		want bool
	}{
		{"/dev/null", devNull, false},
		{"a pipe", r, false},
		{"a file", file, false},
		{"a reader", strings.NewReader("y\n"), false},
	}
	if ptmx, tty, err := pty.Open(); err == nil {
		defer ptmx.Close()
		defer tty.Close()
		cases = append(cases, struct {
			name string
			in   io.Reader
			want bool
		}{"a pseudo-terminal", tty, true})
	}
	for _, tc := range cases {
		if got := isTerminal(tc.in); got != tc.want {
			t.Errorf("isTerminal(%s) = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestAskDevNullAsksNobody: with /dev/null as stdin, a command that needs
// approval is refused as "nobody can be asked here", with no prompt.
func TestAskDevNullAsksNobody(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	srv := modeltest.New(modeltest.Text("```shell\ntouch made\n```\n\n", 6), modeltest.Text("Done.", 9))
	defer srv.Close()
	dir := t.TempDir()
	devNull, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer devNull.Close()
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"ask", "-C", dir, "--model", "m", "--base-url", srv.URL, "make a file"}, devNull, &stdout, &stderr)
	if code != exitOK {
		t.Fatalf("exit %d\nstderr: %s", code, stderr.String())
	}
	if strings.Contains(stderr.String(), "[y]es") {
		t.Errorf("it prompted on /dev/null:\n%s", stderr.String())
	}
	reqs := srv.Requests()
	last := reqs[len(reqs)-1].Body.Messages
	told := last[len(last)-1].Content
	if !strings.Contains(told, "nobody can be asked here") || strings.Contains(told, "declined") {
		t.Errorf("the model was told %q; want \"nobody can be asked here\"", told)
	}
	if _, err := os.Stat(filepath.Join(dir, "made")); err == nil {
		t.Error("the command ran")
	}
}
