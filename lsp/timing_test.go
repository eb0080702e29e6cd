package lsp_test

import (
	"testing"

	"github.com/agentls/agentls/agent/modeltest"
	"github.com/agentls/agentls/lsp/lsptest"
)

// TestToolTimingInOutput: each tool call of an agent turn leaves its
// timing line in the output channel — the tool, what it ran, how long it
// took and how it ended ("[shell] false … ms, exit 1").
func TestToolTimingInOutput(t *testing.T) {
	srv := modeltest.New(
		modeltest.Text("```read a.go\n```\n", 7),
		modeltest.Text("```shell\nfalse\n```\n", 7),
		modeltest.Text("It fails.", 4),
	)
	defer srv.Close()
	root := writeFiles(t, files)
	e := lsptest.Start(t, root, lsptest.Helix(), lsptest.InitOptions(map[string]any{"model": "m", "baseUrl": srv.URL, "commandAllowlist": []string{"false"}}))
	if err := e.ExecuteCommand("agentls.ask", map[string]any{"prompt": "does it fail?"}); err != nil {
		t.Fatal(err)
	}
	e.Await(
		lsptest.ShownMessage("agent turn 1 done"),
		lsptest.LoggedMessage("[read] a.go", "ms"),
		lsptest.LoggedMessage("[shell] false", "ms, exit 1"),
	)
}
