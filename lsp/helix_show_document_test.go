package lsp_test

import (
	"testing"

	"github.com/agentls/agentls/agent/modeltest"
	"github.com/agentls/agentls/lsp/lsptest"
)

// TestHelixOpensTheChat: Helix 25.07.1 opens a window/showDocument
// request's file without announcing the capability, so "space A o"
// (agentls.chat.open) opens the chat there, instead of only naming it.
func TestHelixOpensTheChat(t *testing.T) {
	t.Parallel()
	srv := modeltest.New()
	defer srv.Close()
	e, _, err := openChat(t, lsptest.Helix(), srv)
	if err != nil {
		t.Fatal(err)
	}
	e.Await(lsptest.ShownDocument(chatPath), lsptest.NoShownMessage("your chat is "))
}
