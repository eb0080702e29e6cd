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
