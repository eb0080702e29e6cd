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

const chatPath = ".agentls/chat/t.md"

// openChat starts an editor of profile p on the test files, with the
// model srv, opens a.go and the chat "t" (agentls.chat.open), and
// returns the editor and what the chat file holds.
func openChat(t *testing.T, p lsptest.Profile, srv *modeltest.Server) (*lsptest.Editor, []byte, error) {
	t.Helper()
	e := lsptest.Start(t, writeFiles(t, files), p, lsptest.InitOptions(map[string]any{"model": "m", "baseUrl": srv.URL}))
	e.OpenFile("a.go", "go")
	if err := e.ExecuteCommand("agentls.chat.open", map[string]any{"name": "t"}); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(e.Root, chatPath))
	return e, data, err
}

// TestChat: a chat document is created and shown; "Send to agent" streams
// the reply into it as edits, with the tool's result quoted under its call,
// while the edit lands in the code; a second message is sent with the
// first exchange as history.
func TestChat(t *testing.T) {
	t.Parallel()
	for _, p := range lsptest.Profiles() {
		t.Run(p.Name, func(t *testing.T) {
			t.Parallel()
			srv := modeltest.New(
				modeltest.Text("Renaming.\n```patch a.go\n<<<<<<< ORIGINAL\ntype Config struct{}\n=======\ntype Settings struct{}\n>>>>>>> UPDATED\n```\n\nand more text the cut drops\n", 7),
				modeltest.Text("Renamed Config to Settings.", 5),
				modeltest.Text("b.go is fine as it is.", 5),
			)
			defer srv.Close()
			e, data, err := openChat(t, p, srv)
			if err != nil || !strings.HasSuffix(string(data), "## You\n\n") {
				t.Fatalf("chat file: %q, %v", data, err)
			}
			// An editor that shows documents shows it; the others are told
			// where it is and what to do.
			e.Await(lsptest.AnyOf(lsptest.ShownDocument(chatPath), lsptest.ShownMessage("your chat is "+chatPath, "Send to agent")))
			e.OpenFile(chatPath, "markdown")
			e.Type(chatPath, string(data)+"rename Config to Settings\n")
			send := findAction(e.CodeActions(chatPath, protocol.Range{}), "Send to agent")
			if send == nil {
				t.Fatalf("no Send to agent action in %v", e.CodeActions(chatPath, protocol.Range{}))
			}
			if err := e.RunCodeAction(*send); err != nil {
				t.Fatal(err)
			}
			// The reply streamed in with the tool's result under its call,
			// cut where the call ends, and a new heading to write under.
			e.Await(
				lsptest.ShownMessage("agent turn 1 done"),
				lsptest.BufferEndingWith(chatPath, "Renamed Config to Settings.\n\n<!-- agent turn 1 -->\n\n## You\n\n"),
				lsptest.BufferContaining(chatPath, "rename Config to Settings\n\n## Agent\n\nRenaming.\n```patch a.go\n<<<<<<< ORIGINAL\ntype Config struct{}\n=======\ntype Settings struct{}\n>>>>>>> UPDATED\n```\n\n> **Result of patch a.go:**\n"),
				lsptest.BufferNotContaining(chatPath, "the cut drops"),
				lsptest.BufferContaining("a.go", "type Settings struct{}"),
			)
			chat := e.Buffer(chatPath)

			e.Type(chatPath, chat+"and b.go?\n")
			if err := e.ExecuteCommand("agentls.chat.send", map[string]any{"uri": string(protocol.DocumentURI("file://" + filepath.Join(e.Root, chatPath)))}); err != nil {
				t.Fatal(err)
			}
			e.Await(lsptest.ShownMessage("agent turn 2 done"))
			msgs := srv.Requests()[2].Body.Messages
			if len(msgs) != 4 || msgs[1].Role != "user" || msgs[1].Content != "rename Config to Settings" ||
				msgs[2].Role != "assistant" || !strings.HasPrefix(msgs[2].Content, "Renaming.\n```patch a.go") || !strings.Contains(msgs[3].Content, "and b.go?") {
				t.Errorf("the second message's conversation: %+v", msgs[1:])
			}
		})
	}
}

// TestChatErrors: nothing to send, a document that is not a chat, a bad
// name, and a chat that is not open in the editor (written on disk).
func TestChatErrors(t *testing.T) {
	t.Parallel()
	srv := modeltest.New(modeltest.Text("Hello from disk.", 5))
	defer srv.Close()
	root := writeFiles(t, files)
	e := lsptest.Start(t, root, lsptest.Helix(), lsptest.InitOptions(map[string]any{"model": "m", "baseUrl": srv.URL}))
	uri := "file://" + filepath.Join(e.Root, chatPath)
	if err := e.ExecuteCommand("agentls.chat.open", map[string]any{"name": "../x"}); err == nil {
		t.Error("a name with a slash was taken")
	}
	if err := e.ExecuteCommand("agentls.chat.open", map[string]any{"name": "t"}); err != nil {
		t.Fatal(err)
	}
	if err := e.ExecuteCommand("agentls.chat.send", map[string]any{"uri": uri}); err == nil || !strings.Contains(err.Error(), "nothing to send") {
		t.Errorf("empty message: %v", err)
	}
	if err := e.ExecuteCommand("agentls.chat.send", map[string]any{"uri": "file://" + filepath.Join(e.Root, "a.go")}); err == nil || !strings.Contains(err.Error(), "not a chat document") {
		t.Errorf("a.go: %v", err)
	}
	file := filepath.Join(e.Root, chatPath)
	data, _ := os.ReadFile(file)
	os.WriteFile(file, append(data, "hi\n"...), 0o644)
	if err := e.ExecuteCommand("agentls.chat.send", map[string]any{"uri": uri}); err != nil {
		t.Fatal(err)
	}
	// Written on disk before the turn's end is told.
	e.Await(
		lsptest.ShownMessage("agent turn 1 done"),
		lsptest.FileContent(chatPath, string(data)+"hi\n\n## Agent\n\nHello from disk.\n\n<!-- agent turn 1 -->\n\n## You\n\n"),
	)
}
