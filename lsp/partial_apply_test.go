package lsp_test

import (
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/modeltest"
	"github.com/agentls/agentls/lsp/lsptest"
)

// TestPartialApplyToldToModel: Helix aborts a WorkspaceEdit at the
// change that fails and keeps the changes before it. An agent's
// two-file patch that the editor made in a.go only is told to the model
// as partly done, not as "Nothing was changed" (the old loop's words on
// every error).
func TestPartialApplyToldToModel(t *testing.T) {
	t.Parallel()
	srv := modeltest.New(
		modeltest.Text("```patch_many\n=== PATH: a.go ===\n<<<<<<< ORIGINAL\ntype Config struct{}\n=======\ntype Settings struct{}\n>>>>>>> UPDATED\n\n=== PATH: b.go ===\n<<<<<<< ORIGINAL\nvar c Config\n=======\nvar c Settings\n>>>>>>> UPDATED\n```\n", 16),
		modeltest.Text("Done.", 16),
	)
	defer srv.Close()
	root := writeFiles(t, files)
	e := lsptest.Start(t, root, lsptest.Helix(), lsptest.InitOptions(map[string]any{"model": "m", "baseUrl": srv.URL}), lsptest.FailChange(1))
	e.OpenFile("a.go", "go")
	e.OpenFile("b.go", "go")
	askAbout(t, e, "rename Config")
	e.Await(
		lsptest.ShownMessage("agent turn 1 done"),
		lsptest.BufferContent("a.go", "package p\n\n// Config holds settings.\ntype Settings struct{}\n"),
		lsptest.BufferContent("b.go", files["b.go"]),
	)
	reqs := srv.Requests()
	if len(reqs) < 2 {
		t.Fatalf("%d model calls, want the result sent back", len(reqs))
	}
	told := lastMessage(reqs[1])
	if !strings.Contains(told, "the editor made the edit in a.go") || !strings.Contains(told, "Part of this call ran before it failed") || strings.Contains(told, "Nothing was changed") {
		t.Errorf("the model was told %q; want the partial apply, not that nothing was changed", told)
	}
}
