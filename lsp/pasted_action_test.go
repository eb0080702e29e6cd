package lsp_test

import (
	"strings"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/agent/modeltest"
	"github.com/agentls/agentls/lsp/lsptest"
)

// TestApplyPastedReply: a chat answer whose edits are a unified diff and a
// whole file under its path (no tool call) is offered as "Apply agent
// reply" with its edits counted, and applies as one edit.
func TestApplyPastedReply(t *testing.T) {
	t.Parallel()
	root := writeFiles(t, map[string]string{"a.go": "package p\n\nconst A = 1\n", "b.go": "package p\n"})
	reply := "Change A:\n\n```diff\n--- a/a.go\n+++ b/a.go\n@@ -1,3 +1,3 @@\n package p\n \n-const A = 1\n+const A = 2\n```\n\n**b.go**\n```go\npackage p\n\nconst B = 3\n```\n"
	e := lsptest.Start(t, root, lsptest.Helix())
	e.OpenFile("a.go", "go")
	e.OpenFile("b.go", "go")
	e.OpenBuffer("reply.md", "markdown", reply)
	var apply *protocol.CodeAction
	for _, a := range e.CodeActions("reply.md", protocol.Range{}) {
		if strings.HasPrefix(a.Title, "Apply agent reply") {
			apply = &a
		}
	}
	if apply == nil || apply.Title != "Apply agent reply (2 edits in 2 files)" {
		t.Fatalf("the action: %+v", apply)
	}
	if err := e.RunCodeAction(*apply); err != nil {
		t.Fatal(err)
	}
	e.Await(lsptest.BufferContent("a.go", "package p\n\nconst A = 2\n"), lsptest.BufferContent("b.go", "package p\n\nconst B = 3\n"))
}

// TestNeovimMessagesWithoutTabs: Neovim echoes a tab as "^I", so its
// messages carry spaces where the model's answer had tabs; other editors
// get the answer as written.
func TestNeovimMessagesWithoutTabs(t *testing.T) {
	t.Parallel()
	for _, p := range []lsptest.Profile{lsptest.Neovim07(), lsptest.Helix()} {
		t.Run(p.Name, func(t *testing.T) {
			t.Parallel()
			srv := modeltest.New(modeltest.Text("Use:\n\tfmt.Println(x)", 9))
			defer srv.Close()
			e := lsptest.Start(t, writeFiles(t, files), p, lsptest.InitOptions(map[string]any{"model": "m", "baseUrl": srv.URL}))
			if err := e.ExecuteCommand("agentls.ask", map[string]any{"prompt": "how do I print?"}); err != nil {
				t.Fatal(err)
			}
			e.Await(lsptest.ShownMessage("agent turn 1 done"))
			for _, m := range e.Messages() {
				if strings.Contains(m.Message, "fmt.Println") && strings.Contains(m.Message, "\t") == (p.Name == "neovim-0.7") {
					t.Errorf("%s: %q", p.Name, m.Message)
				}
			}
		})
	}
}

// TestHelixSeesCommandErrors: Helix keeps a command's error in its log
// only, so agentls.ask picked without a prompt said nothing on screen; the
// error is shown as a message too (to Helix only: the others show it).
func TestHelixSeesCommandErrors(t *testing.T) {
	t.Parallel()
	for _, p := range []lsptest.Profile{lsptest.Helix(), lsptest.VSCode()} {
		t.Run(p.Name, func(t *testing.T) {
			t.Parallel()
			e := lsptest.Start(t, writeFiles(t, files), p)
			err := e.ExecuteCommand("agentls.ask", map[string]any{})
			if err == nil || !strings.Contains(err.Error(), "needs a prompt") {
				t.Fatalf("err %v", err)
			}
			if p.Name == "helix" {
				e.Await(lsptest.ShownMessageOfType(protocol.MessageTypeError, "agentls.ask needs a prompt", `{"prompt": "what to do"}`))
			} else if err := e.ExecuteCommand("agentls.status", map[string]any{}); err != nil {
				t.Fatal(err)
			} else {
				// The status line comes after any error message would
				// have: none was shown.
				e.Await(lsptest.ShownMessage("agentls: "), lsptest.NoShownMessage("needs a prompt"))
			}
		})
	}
}
