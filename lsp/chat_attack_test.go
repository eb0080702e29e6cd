package lsp_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/modeltest"
	"github.com/agentls/agentls/lsp/lsptest"
)

// TestChatOutsideWorkspace is the attack of a cloned repository whose
// .agentls/chat leads out of the workspace — the folder a symlink to the
// user's home, or a chat document a symlink to a file there. Opening,
// sending and rewinding a chat must neither create, read nor write
// anything outside the workspace: the user is told, the model is asked
// nothing.
func TestChatOutsideWorkspace(t *testing.T) {
	for _, tc := range []struct {
		name string
		// plant makes the repository's .agentls/chat point at outside.
		plant func(t *testing.T, root, outside string)
		// open is the chat the user opens (and sends, and rewinds).
		open string
	}{
		{"the chat folder is a symlink", func(t *testing.T, root, outside string) {
			os.MkdirAll(filepath.Join(root, ".agentls"), 0o755)
			if err := os.Symlink(outside, filepath.Join(root, ".agentls", "chat")); err != nil {
				t.Fatal(err)
			}
		}, "chat"},
		{"the chat document is a symlink", func(t *testing.T, root, outside string) {
			os.MkdirAll(filepath.Join(root, ".agentls", "chat"), 0o755)
			if err := os.Symlink(filepath.Join(outside, "victim.md"), filepath.Join(root, ".agentls", "chat", "t.md")); err != nil {
				t.Fatal(err)
			}
		}, "t"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			outside := t.TempDir()
			// The victim holds what a chat would: a rewind's marker, and a
			// message waiting to be sent.
			victim := "## You\n\nhi\n\n## Agent\n\nhello\n" + agent.ChatTurnMarker(1, false) + "\n\n## You\n\nsend me\n"
			os.WriteFile(filepath.Join(outside, "victim.md"), []byte(victim), 0o644)
			srv := modeltest.New(modeltest.Text("Hello.", 5))
			defer srv.Close()
			root := writeFiles(t, files)
			tc.plant(t, root, outside)
			e := lsptest.Start(t, root, lsptest.Helix(), lsptest.Settings(map[string]any{"model": "m", "baseUrl": srv.URL}))

			err := e.ExecuteCommand("agentls.chat.open", map[string]any{"name": tc.open})
			if err == nil || !strings.Contains(err.Error(), "outside the workspace") {
				t.Errorf("chat.open: %v, want a refusal naming the way out of the workspace", err)
			}
			uri := "file://" + filepath.Join(e.Root, ".agentls", "chat", tc.open+".md")
			if err := e.ExecuteCommand("agentls.chat.send", map[string]any{"uri": uri}); err == nil {
				t.Error("chat.send through the symlink was taken")
			}
			// Undoing a turn looks for its chat: not through the symlink.
			e.OpenFile("a.go", "go")
			patch := "```patch a.go\n<<<<<<< ORIGINAL\ntype Config struct{}\n=======\ntype Settings struct{}\n>>>>>>> UPDATED\n```\n"
			if err := e.ExecuteCommand("agentls.applyReply", map[string]any{"text": patch}); err != nil {
				t.Fatal(err)
			}
			e.Await(lsptest.ShownMessage("applied", "agent turn 1"))
			if err := e.ExecuteCommand("agentls.turn.undo", map[string]any{"turn": 1}); err != nil {
				t.Fatal(err)
			}
			e.Await(lsptest.ShownMessage("undone", "agent turn 1"))

			entries, _ := os.ReadDir(outside)
			if len(entries) != 1 {
				t.Errorf("outside the workspace now holds %d files, want only victim.md", len(entries))
			}
			if data, _ := os.ReadFile(filepath.Join(outside, "victim.md")); string(data) != victim {
				t.Errorf("the file outside the workspace was changed:\n%s", data)
			}
			if n := len(srv.Requests()); n != 0 {
				t.Errorf("the model was asked %d times", n)
			}
		})
	}
}
