package lsp_test

import (
	"encoding/json"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/lsp/lsptest"
)

// TestProgress: applying a reply shows as one cancellable work-done
// progress, begun and ended on the token the editor was asked to create,
// its title naming agentls unless the editor does.
func TestProgress(t *testing.T) {
	t.Parallel()
	for _, p := range lsptest.Profiles() {
		t.Run(p.Name, func(t *testing.T) {
			root := writeFiles(t, files)
			e := lsptest.Start(t, root, p)
			title := "agentls: apply reply"
			if p.ClientInfo["name"] == "helix" {
				title = "apply reply" // Helix names the server before it
			}
			e.ExecuteCommand("agentls.applyReply", map[string]any{"text": reply})
			e.Await(lsptest.CompletedWorkSaying(title, "done"))
			ev := e.Progress()
			if len(ev) != 3 || ev[0].Kind != "begin" || ev[0].Title != title || !ev[0].Cancellable ||
				ev[1].Kind != "report" || ev[1].Message != "sending 2 edits in 3 files" || ev[2].Message != "done" {
				t.Errorf("progress = %+v", ev)
			}
			for _, x := range ev {
				if x.Token != ev[0].Token || x.Token == "" {
					t.Errorf("progress on tokens %+v", ev)
				}
			}
		})
	}
}

// TestCancel: cancelling a task before it sends its edit applies nothing,
// from the progress's cancel button or with agentls.cancel; agentls.cancel
// with nothing running says so.
func TestCancel(t *testing.T) {
	t.Parallel()
	for _, how := range []string{"button", "command"} {
		t.Run(how, func(t *testing.T) {
			root := writeFiles(t, files)
			// Cancel while the server waits for the progress token: the
			// task has started and not yet sent anything.
			e := lsptest.Start(t, root, lsptest.VSCode(), lsptest.OnRequest("window/workDoneProgress/create", func(e *lsptest.Editor, params json.RawMessage) {
				var p struct{ Token string }
				json.Unmarshal(params, &p)
				if how == "button" {
					e.Cancel(p.Token)
					// Notifications are handled in order with requests:
					// once this one is answered, the cancel has been seen.
					e.CodeActions("a.go", protocol.Range{})
				} else if err := e.ExecuteCommand("agentls.cancel", nil); err != nil {
					t.Error(err)
				}
			}))
			e.OpenFile("a.go", "go")
			e.ExecuteCommand("agentls.applyReply", map[string]any{"text": reply})
			e.Await(
				lsptest.ShownMessage("cancelled", "nothing applied"),
				lsptest.CompletedWorkSaying("agentls: apply reply", "cancelled"),
				lsptest.BufferContent("a.go", files["a.go"]),
				lsptest.FileContent("b.go", files["b.go"]),
				lsptest.NoFile("c.go"),
			)
			if n := e.EditsApplied(); n != 0 {
				t.Errorf("a cancelled apply sent %d edits", n)
			}
			e.ExecuteCommand("agentls.cancel", nil)
			e.Await(lsptest.ShownMessage("nothing to cancel"))
		})
	}
}
