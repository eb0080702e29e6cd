package lsp

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/anchored"
	"github.com/agentls/agentls/edits"
	"github.com/agentls/agentls/tools/edittool"
)

// BenchmarkDidChangeServer measures the server's handling of one typed
// (or deleted) character in documents of growing size (the handler
// alone): it should not grow with the size. "hashed" documents keep line
// hashes for the anchored tools, which the change updates.
func BenchmarkDidChangeServer(b *testing.B) {
	for _, hashed := range []bool{false, true} {
		for _, lines := range []int{1_000, 10_000, 100_000} {
			name := fmt.Sprintf("%dlines", lines)
			if hashed {
				name += "/hashed"
			}
			b.Run(name, func(b *testing.B) { benchmarkDidChange(b, lines, hashed) })
		}
	}
}

func benchmarkDidChange(b *testing.B, lines int, hashed bool) {
	s := newServer(Options{})
	text := strings.Repeat("func f() int { return 42 }\n", lines)
	u := protocol.DocumentURI("file:///w/big.go")
	s.didOpen(context.Background(), &protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{URI: u, Version: 1, Text: text}})
	if hashed && (editorSource{s: s, disk: edittool.DiskSource{Root: "/w"}}).LineHashes("big.go", 1) == nil {
		b.Fatal("no line hashes")
	}
	pos := protocol.Position{Line: uint32(lines / 2)}
	next := protocol.Position{Line: pos.Line, Character: 1}
	v := int32(1)
	for b.Loop() {
		// Type a character, then delete it: the document keeps its
		// size however long the benchmark runs.
		v++
		change := contentChange{Range: &protocol.Range{Start: pos, End: pos}, Text: "x"}
		if v%2 == 1 {
			change = contentChange{Range: &protocol.Range{Start: pos, End: next}}
		}
		s.didChange(context.Background(), &didChangeParams{
			TextDocument:   protocol.VersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: u}, Version: v},
			ContentChanges: []contentChange{change},
		})
	}
	d, _ := s.docs.get(u)
	if d.text() != text && d.text() != text[:len(text)/2]+"x"+text[len(text)/2:] {
		b.Fatal("the document drifted from what was typed")
	}
	if hashed && (d.hashes == nil || !d.hashes.Equal(anchored.NewTextIndex(d.text(), anchored.Options{}))) {
		b.Fatal("the line hashes drifted from the document")
	}
}

// BenchmarkWorkspaceEdit measures building the WorkspaceEdit of a
// changeset with 1,000 changed hunks in a 10,000-line file.
func BenchmarkWorkspaceEdit(b *testing.B) {
	s := newServer(Options{})
	s.root = "/w"
	s.caps.Workspace.WorkspaceEdit.DocumentChanges = true
	var before, after strings.Builder
	for i := range 10_000 {
		fmt.Fprintf(&before, "\tx%d := compute(%d)\n", i, i)
		if i%10 == 5 {
			fmt.Fprintf(&after, "\tx%d := compute(%d) + 1\n", i, i)
		} else {
			fmt.Fprintf(&after, "\tx%d := compute(%d)\n", i, i)
		}
	}
	var cs edits.Changeset
	cs.Write("big.go", before.String(), true, 3, after.String())
	b.SetBytes(int64(before.Len()))
	for b.Loop() {
		we, err := s.workspaceEditFor(&cs)
		if err != nil || len(we.DocumentChanges) != 1 || len(we.DocumentChanges[0].(textDocumentEdit).Edits) != 1000 {
			b.Fatalf("%v %d %d", err, len(we.DocumentChanges), len(we.DocumentChanges[0].(textDocumentEdit).Edits))
		}
	}
}
