package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/modeltest"
)

// TestAsk runs agentls ask against a fake model: the model reads a file,
// patches it, and says so; the patch is on disk, the text on stdout.
func TestAsk(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	srv := modeltest.New(
		modeltest.Text("Reading.\n```read a.go\n```\n\n", 6),
		modeltest.Text("```patch a.go\n<<<<<<< ORIGINAL\ntype Config struct{}\n=======\ntype Settings struct{}\n>>>>>>> UPDATED\n```\n", 9),
		modeltest.Text("Renamed Config to Settings.", 9),
	)
	defer srv.Close()
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.go"), []byte("package p\n\ntype Config struct{}\n"), 0o644)
	stdout, stderr, code := runCLI(t, "", "ask", "-C", dir, "--model", "m", "--base-url", srv.URL, "rename", "Config")
	if code != exitOK {
		t.Fatalf("exit %d\nstderr: %s", code, stderr)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "a.go")); string(data) != "package p\n\ntype Settings struct{}\n" {
		t.Errorf("a.go = %q", data)
	}
	if !strings.Contains(stdout, "Reading.") || !strings.Contains(stdout, "Renamed Config to Settings.") {
		t.Errorf("stdout = %q", stdout)
	}
	if !strings.Contains(stderr, "Written to disk: a.go") || !strings.Contains(stderr, "done: 3 steps, 2 tool calls") || !strings.Contains(stderr, "conversation log: "+os.Getenv("XDG_STATE_HOME")) {
		t.Errorf("stderr = %q", stderr)
	}
	reqs := srv.Requests()
	if len(reqs) != 3 || reqs[0].Body.Messages[1].Content != "rename Config\n" || !strings.Contains(reqs[1].Body.Messages[3].Content, "3\ttype Config struct{}") {
		t.Errorf("requests = %+v", reqs)
	}
}

func TestAskUsage(t *testing.T) {
	t.Setenv("AGENTLS_MODEL", "")
	for _, args := range [][]string{
		{"ask"},                          // no prompt
		{"ask", "--format", "yaml", "x"}, // bad format
		{"ask", "x"},                     // no model
	} {
		_, stderr, code := runCLI(t, "", args...)
		if code != exitUsage || stderr == "" {
			t.Errorf("agentls %q: exit %d, stderr %q", args, code, stderr)
		}
	}
}

// TestAskShell: without a terminal, an allowlisted command runs (here by
// the workspace's settings file) and one that needs approval is refused,
// the model told why; nothing it would have done is done.
func TestAskShell(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	srv := modeltest.New(
		modeltest.Text("```shell\nls\n```\n\n", 6),
		modeltest.Text("```shell\ntouch made\n```\n\n", 6),
		modeltest.Text("```shell\nmkdir -p out\n```\n\n", 6),
		modeltest.Text("Done.", 9),
	)
	defer srv.Close()
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.go"), []byte("package p\n"), 0o644)
	os.MkdirAll(filepath.Join(dir, ".agentls"), 0o755)
	os.WriteFile(filepath.Join(dir, ".agentls", "settings.json"), []byte(`{"commandAllowlist": ["mkdir"]}`), 0o644)
	_, stderr, code := runCLI(t, "", "ask", "-C", dir, "--model", "m", "--base-url", srv.URL, "look around")
	if code != exitOK {
		t.Fatalf("exit %d\nstderr: %s", code, stderr)
	}
	reqs := srv.Requests()
	if got := reqs[1].Body.Messages[3].Content; !strings.Contains(got, "a.go") {
		t.Errorf("ls: the model read %q", got)
	}
	if got := reqs[2].Body.Messages[5].Content; !strings.Contains(got, "needs the user's approval") {
		t.Errorf("touch: the model read %q", got)
	}
	if _, err := os.Stat(filepath.Join(dir, "made")); err == nil {
		t.Error("a command that needs approval ran without a terminal")
	}
	if _, err := os.Stat(filepath.Join(dir, "out")); err != nil {
		t.Errorf("the settings' allowlisted mkdir did not run: %v", err)
	}
}
