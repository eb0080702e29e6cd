package lsp_test

import (
	"strings"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/lsp/lsptest"
)

// TestReplyCountFollowsEdits: the count of a Markdown reply's edits is
// kept per document version, so a block typed into the buffer, or a
// buffer closed and reopened with other text at the same version, shows
// at once.
func TestReplyCountFollowsEdits(t *testing.T) {
	t.Parallel()
	block := "```save a.txt\nhello\n```\n"
	title := func(e *lsptest.Editor) string {
		for _, a := range e.CodeActions("reply.md", protocol.Range{}) {
			if strings.HasPrefix(a.Title, "Apply agent reply") {
				return a.Title
			}
		}
		return ""
	}
	e := lsptest.Start(t, t.TempDir(), lsptest.Neovim07())
	e.OpenBuffer("reply.md", "markdown", block)
	if got := title(e); got != "Apply agent reply (1 edit in 1 file)" {
		t.Fatalf("first: %q", got)
	}
	e.Type("reply.md", block+"\n```save b.txt\nhi\n```\n")
	if got := title(e); got != "Apply agent reply (2 edits in 2 files)" {
		t.Errorf("after typing a block: %q", got)
	}
	e.CloseFile("reply.md")
	e.OpenBuffer("reply.md", "markdown", "no blocks here\n")
	if got := title(e); got != "" {
		t.Errorf("reopened without blocks: %q", got)
	}
}
