package lsp_test

import (
	"bytes"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/agent/modeltest"
	"github.com/agentls/agentls/lsp/lsptest"
)

// TestChatViewImage: with view_image in the tools setting, the model looks
// at a workspace image from a chat; the chat document says the image was
// sent, and the model's next request carries it.
func TestChatViewImage(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	png.Encode(&b, image.NewGray(image.Rect(0, 0, 8, 8)))
	srv := modeltest.New(
		modeltest.Text("Looking.\n```view_image shot.png\n```\n", 7),
		modeltest.Text("A gray square.", 5),
	)
	defer srv.Close()
	root := writeFiles(t, map[string]string{"a.go": files["a.go"], "shot.png": b.String()})
	e := lsptest.Start(t, root, lsptest.Helix(), lsptest.InitOptions(map[string]any{"model": "m", "baseUrl": srv.URL, "tools": []string{"read", "view_image"}}))
	if err := e.ExecuteCommand("agentls.chat.open", map[string]any{"name": "t"}); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(e.Root, chatPath))
	if err != nil {
		t.Fatal(err)
	}
	e.OpenFile(chatPath, "markdown")
	e.Type(chatPath, string(data)+"what is in shot.png?\n")
	send := findAction(e.CodeActions(chatPath, protocol.Range{}), "Send to agent")
	if send == nil {
		t.Fatal("no Send to agent action")
	}
	if err := e.RunCodeAction(*send); err != nil {
		t.Fatal(err)
	}
	e.Await(
		lsptest.ShownMessage("agent turn 1 done"),
		lsptest.BufferContaining(chatPath, "> **Result of view_image shot.png:**\n> (image shot.png, 8×8, sent)\n"),
	)
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model calls", len(reqs))
	}
	msgs := reqs[1].Body.Messages
	last := msgs[len(msgs)-1]
	if len(last.Images) != 1 || !strings.HasPrefix(last.Images[0], "data:image/png;base64,") || !strings.Contains(last.Content, "(image shot.png, 8×8, sent)") {
		t.Errorf("the second request's last message: %q with %d images", last.Content, len(last.Images))
	}
}
