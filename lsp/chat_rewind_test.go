package lsp_test

import (
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/modeltest"
	"github.com/agentls/agentls/lsp/lsptest"
)

// TestChatRewind: undoing a turn started from a chat document reverts its
// files and rewinds the chat with it — the exchange stays in the document,
// marked undone, and the next message sent from the chat leaves it out of
// the conversation; redo brings both back.
func TestChatRewind(t *testing.T) {
	t.Parallel()
	for _, p := range lsptest.Profiles() {
		t.Run(p.Name, func(t *testing.T) {
			t.Parallel()
			srv := modeltest.New(
				modeltest.Text("```patch a.go\n<<<<<<< ORIGINAL\ntype Config struct{}\n=======\ntype Settings struct{}\n>>>>>>> UPDATED\n```\n", 7),
				modeltest.Text("Renamed.", 5),
				modeltest.Text("Nothing else to do.", 5),
			)
			defer srv.Close()
			e, data, _ := openChat(t, p, srv)
			e.OpenFile(chatPath, "markdown")
			e.Type(chatPath, string(data)+"rename Config\n")
			uri := string(protocol.DocumentURI("file://" + filepath.Join(e.Root, chatPath)))
			if err := e.ExecuteCommand("agentls.chat.send", map[string]any{"uri": uri}); err != nil {
				t.Fatal(err)
			}
			e.Await(
				lsptest.ShownMessage("agent turn 1 done"),
				lsptest.BufferEndingWith(chatPath, agent.ChatTurnMarker(1, false)+"\n\n## You\n\n"),
			)

			if err := e.ExecuteCommand("agentls.turn.undo", map[string]any{"turn": 1}); err != nil {
				t.Fatal(err)
			}
			e.Await(
				lsptest.ShownMessage("undone", "agent turn 1"),
				lsptest.BufferContent("a.go", files["a.go"]),
				// The exchange stays, marked undone.
				lsptest.BufferContaining(chatPath, "rename Config", agent.ChatTurnMarker(1, true)),
				lsptest.BufferNotContaining(chatPath, agent.ChatTurnMarker(1, false)),
			)

			// The next message is sent without the undone exchange.
			e.Type(chatPath, e.Buffer(chatPath)+"anything else?\n")
			if err := e.ExecuteCommand("agentls.chat.send", map[string]any{"uri": uri}); err != nil {
				t.Fatal(err)
			}
			e.Await(lsptest.ShownMessage("agent turn 2 done"))
			msgs := srv.Requests()[2].Body.Messages
			for _, m := range msgs[1:] {
				if strings.Contains(m.Content, "rename Config") || strings.Contains(m.Content, "Renamed.") {
					t.Errorf("the undone exchange was sent: %+v", msgs[1:])
				}
			}
			if last := msgs[len(msgs)-1]; last.Role != "user" || !strings.Contains(last.Content, "anything else?") {
				t.Errorf("the last message: %+v", last)
			}

			// Redo puts the file and the exchange back.
			if err := e.ExecuteCommand("agentls.turn.redo", map[string]any{"turn": 1}); err != nil {
				t.Fatal(err)
			}
			e.Await(
				lsptest.ShownMessage("redone", "agent turn 1"),
				lsptest.BufferContaining("a.go", "type Settings struct{}"),
				lsptest.BufferContaining(chatPath, agent.ChatTurnMarker(1, false)),
				lsptest.BufferNotContaining(chatPath, agent.ChatTurnMarker(1, true)),
			)
		})
	}
}
