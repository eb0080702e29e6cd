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

// TestChat: a chat document is created and shown; "Send to agent" streams
// the reply into it as edits, with the tool's result quoted under its call,
// while the edit lands in the code; a second message is sent with the
// first exchange as history.
func TestChat(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	for _, p := range lsptest.Profiles() {
		t.Run(p.Name, func(t *testing.T) {
			srv := modeltest.New(
				modeltest.Text("Renaming.\n```patch a.go\n<<<<<<< ORIGINAL\ntype Config struct{}\n=======\ntype Settings struct{}\n>>>>>>> UPDATED\n```\n\nand more text the cut drops\n", 7),
				modeltest.Text("Renamed Config to Settings.", 5),
				modeltest.Text("b.go is fine as it is.", 5),
			)
			defer srv.Close()
			root := writeFiles(t, files)
			e := lsptest.StartWith(t, root, p, map[string]any{"model": "m", "baseUrl": srv.URL}, nil)
			e.OpenFile("a.go", "go")
			if err := e.ExecuteCommand("agentls.chat.open", map[string]any{"name": "t"}); err != nil {
				t.Fatal(err)
			}
			data, err := os.ReadFile(filepath.Join(e.Root, chatPath))
			if err != nil || !strings.HasSuffix(string(data), "## You\n\n") {
				t.Fatalf("chat file: %q, %v", data, err)
			}
			e.Await("the chat shown or named", func() bool {
				return len(e.ShownLocked()) == 1 || e.HasMessageLocked("your chat is "+chatPath)
			})
			e.OpenFile(chatPath, "markdown")
			e.Type(chatPath, string(data)+"rename Config to Settings\n")
			send := findAction(e.CodeActions(chatPath, protocol.Range{}), "Send to agent")
			if send == nil {
				t.Fatalf("no Send to agent action in %v", e.CodeActions(chatPath, protocol.Range{}))
			}
			if err := e.RunCodeAction(*send); err != nil {
				t.Fatal(err)
			}
			e.Await("turn 1 done", func() bool { return e.HasMessageLocked("agent turn 1 done") })
			e.Await("the reply ends with a new heading", func() bool {
				b, _ := e.BufferIfOpenLocked(chatPath)
				return strings.HasSuffix(b, "Renamed Config to Settings.\n\n<!-- agent turn 1 -->\n\n## You\n\n")
			})
			chat := e.Buffer(chatPath)
			want := "rename Config to Settings\n\n## Agent\n\nRenaming.\n```patch a.go\n<<<<<<< ORIGINAL\ntype Config struct{}\n=======\ntype Settings struct{}\n>>>>>>> UPDATED\n```\n\n> **Result of patch a.go:**\n"
			if !strings.Contains(chat, want) || strings.Contains(chat, "the cut drops") {
				t.Errorf("chat document:\n%s", chat)
			}
			if got := e.Buffer("a.go"); !strings.Contains(got, "type Settings struct{}") {
				t.Errorf("a.go = %q", got)
			}

			e.Type(chatPath, chat+"and b.go?\n")
			if err := e.ExecuteCommand("agentls.chat.send", map[string]any{"uri": string(protocol.DocumentURI("file://" + filepath.Join(e.Root, chatPath)))}); err != nil {
				t.Fatal(err)
			}
			e.Await("turn 2 done", func() bool { return e.HasMessageLocked("agent turn 2 done") })
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
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	srv := modeltest.New(modeltest.Text("Hello from disk.", 5))
	defer srv.Close()
	root := writeFiles(t, files)
	e := lsptest.StartWith(t, root, lsptest.Helix(), map[string]any{"model": "m", "baseUrl": srv.URL}, nil)
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
	e.Await("turn done", func() bool { return e.HasMessageLocked("agent turn 1 done") })
	got, _ := os.ReadFile(file) // written before the turn's end is told
	if !strings.HasSuffix(string(got), "hi\n\n## Agent\n\nHello from disk.\n\n<!-- agent turn 1 -->\n\n## You\n\n") {
		t.Errorf("chat on disk:\n%s", got)
	}
}
