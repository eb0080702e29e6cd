package lsp

import (
	"context"
	"path/filepath"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agentls/agentls/edits"
)

// TestSkippedChange judges a buffer as the editor's answer left it: a
// change is made when the buffer holds it (Neovim adding its final
// newline to a text that ends mid-line included: the chat writer's text
// was re-sent, and doubled, on each line), skipped when the buffer lacks
// it — then it comes back rebased onto the buffer as it is now.
func TestSkippedChange(t *testing.T) {
	for _, tc := range []struct {
		name            string
		base, result    string
		text            string // the buffer as the answer left it
		skipped         bool
		now, wantResend string // the buffer now, and the change re-sent onto it
	}{
		{name: "holds the result", base: "a\n", result: "a\nb\n", text: "a\nb\n"},
		{name: "holds it with Neovim's final newline", base: "## Agent\n\nHel", result: "## Agent\n\nHello wor", text: "## Agent\n\nHello wor\n"},
		{name: "holds a line with no end, with Neovim's final newline", base: "## Agent\n\n", result: "## Agent\n\nHello", text: "## Agent\n\nHello\n"},
		{name: "holds it amid the user's typing", base: "x\n\na\n", result: "x\n\nA\n", text: "typed x\n\nA\n"},
		{name: "skipped", base: "a\nb\n", result: "a\nB\n", text: "typed\na\nb\n", skipped: true,
			now: "typed\na\nb\n", wantResend: "typed\na\nB\n"},
		{name: "skipped, the buffer moved on since", base: "a\nb\n", result: "a\nB\n", text: "typed\na\nb\n", skipped: true,
			now: "typed more\na\nb\n", wantResend: "typed more\na\nB\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newServer(Options{})
			root := testSession(s, cleanFile(t.TempDir())).root
			file := filepath.Join(root, "f.go")
			now := tc.now
			if now == "" {
				now = tc.text
			}
			s.didOpen(context.Background(), &protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{URI: protocol.DocumentURI(uri.File(file)), Version: 5, Text: now}})
			var cs edits.Changeset
			cs.Write("f.go", tc.base, true, 3, tc.result)
			again, skipped := s.skippedChange(file, tc.text, cs.Effective()[0])
			if skipped != tc.skipped {
				t.Fatalf("skipped = %v, want %v", skipped, tc.skipped)
			}
			if skipped && (again.Base != now || again.Version != 5 || again.Result() != tc.wantResend) {
				t.Errorf("re-sent %q onto %q (version %d), want %q onto %q (version 5)", again.Result(), again.Base, again.Version, tc.wantResend, now)
			}
		})
	}
}
