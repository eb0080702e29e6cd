package lsp_test

import (
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/modeltest"
	"github.com/agentls/agentls/lsp/lsptest"
)

// TestRagSearchesBuffers: rag in an agent turn searches what the editor
// holds: a word typed into a buffer and not saved is found, and quoted,
// in the model's next request.
func TestRagSearchesBuffers(t *testing.T) {
	t.Parallel()
	srv := modeltest.New(
		modeltest.Text("```rag\nwhere is zanzibarFactor\n```\n", 7),
		modeltest.Text("In a.go.", 4),
	)
	defer srv.Close()
	root := writeFiles(t, files)
	e := lsptest.Start(t, root, lsptest.Helix(), lsptest.InitOptions(map[string]any{"model": "m", "baseUrl": srv.URL, "tools": []string{"rag"}}))
	e.OpenFile("a.go", "go")
	e.Type("a.go", files["a.go"]+"\nvar zanzibarFactor = 3\n")
	if err := e.ExecuteCommand("agentls.ask", map[string]any{"prompt": "where is it?"}); err != nil {
		t.Fatal(err)
	}
	e.Await(lsptest.ShownMessage("agent turn 1 done"))
	msgs := srv.Requests()[1].Body.Messages
	if last := msgs[len(msgs)-1].Content; !strings.Contains(last, "a.go lines") || !strings.Contains(last, "var zanzibarFactor = 3") {
		t.Errorf("the model read %q", last)
	}
}
