package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/modeltest"
)

// TestAskSaysWhatWasRead: the line agentls ask prints for a read names the
// path however the model wrote the call; a native call's path is a named
// argument, and the line read "[agentls] read " with nothing after it.
func TestAskSaysWhatWasRead(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	cases := []struct {
		format string
		reply  modeltest.Reply
	}{
		{"markdown", modeltest.Text("```read a.go\n```\n", 9)},
		{"xml", modeltest.Text("<tool-use>\n<read path=\"a.go\"></read>\n</tool-use>\n", 9)},
		{"tool", modeltest.Reply{Chunks: []modeltest.Chunk{{ToolCall: &modeltest.ToolCallDelta{ID: "c1", Name: "read", Args: `{"path": "a.go"}`}}}}},
	}
	for _, c := range cases {
		t.Run(c.format, func(t *testing.T) {
			srv := modeltest.New(c.reply, modeltest.Text("Read it.", 9))
			defer srv.Close()
			dir := t.TempDir()
			os.WriteFile(filepath.Join(dir, "a.go"), []byte("package p\n"), 0o644)
			_, stderr, code := runCLI(t, "", "ask", "-C", dir, "--model", "m", "--base-url", srv.URL, "--format", c.format, "read a.go")
			if code != exitOK {
				t.Fatalf("exit %d\nstderr: %s", code, stderr)
			}
			if !strings.Contains(stderr, "[agentls] read a.go\n") {
				t.Errorf("stderr = %q; want the line naming a.go", stderr)
			}
		})
	}
}
