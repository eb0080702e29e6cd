package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/modeltest"
)

// TestAskSubagent: agentls ask's turn hands the rename to a subagent
// (the user's tools setting offers subagent and patch); the child's patch
// is written to disk like the turn's own, its call shows on stderr
// numbered, and its conversation has a log of its own.
func TestAskSubagent(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "")
	state, config := t.TempDir(), t.TempDir()
	t.Setenv("XDG_STATE_HOME", state)
	t.Setenv("XDG_CONFIG_HOME", config)
	os.MkdirAll(filepath.Join(config, "agentls"), 0o755)
	os.WriteFile(filepath.Join(config, "agentls", "settings.json"), []byte(`{"tools": ["read", "patch", "subagent"]}`), 0o644)
	srv := modeltest.New(
		modeltest.Text("```subagent read patch\nIn a.go, rename the type Config to Settings.\n```\n", 9),
		modeltest.Text("```patch a.go\n<<<<<<< ORIGINAL\ntype Config struct{}\n=======\ntype Settings struct{}\n>>>>>>> UPDATED\n```\n", 9),
		modeltest.Text("Renamed.", 9),
		modeltest.Text("The subagent renamed it.", 9),
	)
	defer srv.Close()
	stdout, stderr := askRename(t, srv)
	if !strings.Contains(stderr, "[agentls] subagent 1: step 1: patch a.go") || !strings.Contains(stdout, "The subagent renamed it.") {
		t.Errorf("stdout %q\nstderr %q", stdout, stderr)
	}
	logs, _ := filepath.Glob(filepath.Join(state, "agentls", "turns", "*", "*-turn1-subagent1.jsonl"))
	if len(logs) != 1 {
		t.Fatalf("subagent logs: %q", logs)
	}
	if data, _ := os.ReadFile(logs[0]); !strings.Contains(string(data), "Renamed.") {
		t.Errorf("the subagent's log: %s", data)
	}
}
