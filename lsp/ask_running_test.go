package lsp_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/agent/modeltest"
	"github.com/agentls/agentls/lsp/lsptest"
)

// TestAskNotOfferedWhileItRuns: while the turn an AI! comment's "Agent: …"
// started waits for the user's approval, the same action is not offered
// again (Helix's space a offered "Agent: run the tests" beside
// "Approve: …", and picking it started the same work twice); once the
// turn ended, it is offered again.
func TestAskNotOfferedWhileItRuns(t *testing.T) {
	t.Parallel()
	model := modeltest.New(modeltest.Text("Making it.\n```shell\ntouch approved.txt\n```\n", 16), modeltest.Text("Made it.", 16))
	defer model.Close()
	root := writeFiles(t, map[string]string{"b.go": "package p\n\n// AI! make approved.txt\nvar c int\n"})
	e := lsptest.Start(t, root, lsptest.Helix(), lsptest.InitOptions(map[string]any{"model": "m", "baseUrl": model.URL}))
	e.OpenFile("b.go", "go")
	cursor := protocol.Range{Start: protocol.Position{Line: 2}, End: protocol.Position{Line: 2, Character: 1}}
	titles := func() []string {
		var out []string
		for _, a := range e.CodeActions("b.go", cursor) {
			out = append(out, a.Title)
		}
		return out
	}
	ask := findAction(e.CodeActions("b.go", cursor), "Agent: make approved.txt")
	if ask == nil {
		t.Fatalf("no \"Agent: make approved.txt\": %q", titles())
	}
	if err := e.RunCodeAction(*ask); err != nil {
		t.Fatal(err)
	}
	e.Await(lsptest.Diagnostics(lsptest.ForFile("b.go"), lsptest.WithCode("pending-approval")))
	got := titles()
	approve := findAction(e.CodeActions("b.go", cursor), "Approve: ")
	if approve == nil || strings.Contains(strings.Join(got, "\n"), "Agent: make approved.txt") {
		t.Fatalf("while the turn waits for approval, the actions are %q: want Approve and no second \"Agent: make approved.txt\"", got)
	}
	if err := e.RunCodeAction(*approve); err != nil {
		t.Fatal(err)
	}
	e.Await(lsptest.ShownMessage("agent turn 1 done"))
	if _, err := os.Stat(filepath.Join(root, "approved.txt")); err != nil {
		t.Errorf("the approved command did not run: %v", err)
	}
	if findAction(e.CodeActions("b.go", cursor), "Agent: make approved.txt") == nil {
		t.Errorf("the turn ended, and the action is not offered again: %q", titles())
	}
}
