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
			again, skipped := s.delivery.skippedChange(file, tc.text, cs.Effective()[0])
			if skipped != tc.skipped {
				t.Fatalf("skipped = %v, want %v", skipped, tc.skipped)
			}
			if skipped && (again.Base() != now || again.Version != 5 || again.Result() != tc.wantResend) {
				t.Errorf("re-sent %q onto %q (version %d), want %q onto %q (version 5)", again.Result(), again.Base(), again.Version, tc.wantResend, now)
			}
		})
	}
}

// TestMadeBeforeFailure: an editor that aborts at the change that failed
// (Helix: failureHandling "abort") keeps the changes before it — a
// created file counts once both its CreateFile and its text are before
// the failure; other clients apply nothing of a refused edit.
func TestMadeBeforeFailure(t *testing.T) {
	a := &edits.FileChange{Path: "a.go", Action: edits.Modify}
	c := &edits.FileChange{Path: "c.go", Action: edits.Create}
	b := &edits.FileChange{Path: "b.go", Action: edits.Modify}
	changes := []*edits.FileChange{a, c, b}
	we := workspaceEdit{DocumentChanges: []any{
		textDocumentEdit{TextDocument: versionedID{URI: "file:///w/a.go"}},
		createFile{Kind: "create", URI: "file:///w/c.go"},
		textDocumentEdit{TextDocument: versionedID{URI: "file:///w/c.go"}},
		textDocumentEdit{TextDocument: versionedID{URI: "file:///w/b.go"}},
	}}
	at := func(i int) applyEditResult { return applyEditResult{FailedChange: &i} }
	for _, tc := range []struct {
		name     string
		handling string
		res      applyEditResult
		want     []*edits.FileChange
	}{
		{"the first failed", "abort", at(0), nil},
		{"a.go made", "abort", at(1), []*edits.FileChange{a}},
		{"c.go created, its text failed", "abort", at(2), []*edits.FileChange{a}},
		{"b.go failed", "abort", at(3), []*edits.FileChange{a, c}},
		{"an index past the edit", "abort", at(9), nil},
		{"no index", "abort", applyEditResult{}, nil},
		{"a transactional client", "transactional", at(3), nil},
		{"a client that says nothing", "", at(3), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newServer(Options{})
			testSession(s, "/w").caps.Workspace.WorkspaceEdit.FailureHandling = tc.handling
			got := s.delivery.madeBeforeFailure(we, tc.res, changes)
			if len(got) != len(tc.want) {
				t.Fatalf("made %v, want %v", files(got), files(tc.want))
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Errorf("made %v, want %v", files(got), files(tc.want))
				}
			}
		})
	}
}
