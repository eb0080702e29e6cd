package lsp

import (
	"context"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/anchored"
	"github.com/agentls/agentls/lsp/internal/documents"
	"github.com/agentls/agentls/tools/edittool"
)

// TestEditorSourceLineHashes drives the server's own handlers: the
// hashes an anchored tool gets through the editor's source follow
// didChange and answer only for the buffer's current version (what the
// store keeps, and when: documents.TestLineHashesKeptPerVersion).
func TestEditorSourceLineHashes(t *testing.T) {
	ctx := context.Background()
	s := newServer(Options{})
	src := editorSource{docs: s.docs, disk: edittool.DiskSource{Root: "/w"}}
	u := protocol.DocumentURI("file:///w/a.go")
	text := "package p\n\nfunc f() {\n}\n"
	s.didOpen(ctx, &protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{URI: u, Version: 1, Text: text}})
	change := func(v int32, c documents.ContentChange) {
		s.didChange(ctx, &didChangeParams{
			TextDocument:   protocol.VersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: u}, Version: v},
			ContentChanges: []documents.ContentChange{c},
		})
	}
	at := func(line, char uint32) protocol.Position { return protocol.Position{Line: line, Character: char} }

	if ix := src.LineHashes("a.go", 1); ix == nil || !ix.Equal(anchored.NewTextIndex(text, anchored.Options{})) {
		t.Fatal("the first ask did not hash and keep the buffer's lines")
	}
	change(2, documents.ContentChange{Range: &protocol.Range{Start: at(3, 0), End: at(3, 0)}, Text: "\treturn\n"})
	text = "package p\n\nfunc f() {\n\treturn\n}\n"
	if ix := src.LineHashes("a.go", 2); ix == nil || !ix.Equal(anchored.NewTextIndex(text, anchored.Options{})) {
		t.Error("the kept hashes did not follow an incremental change")
	}
	if src.LineHashes("a.go", 1) != nil {
		t.Error("hashes given for a version the buffer is past")
	}
	change(3, documents.ContentChange{Range: &protocol.Range{Start: at(1, 0), End: at(1, 0)}, Text: "x\ry"})
	text = "package p\nx\ry\nfunc f() {\n\treturn\n}\n"
	if ix := src.LineHashes("a.go", 3); ix == nil || !ix.Equal(anchored.NewTextIndex(text, anchored.Options{})) {
		t.Error("the hashes of the buffer once given up are not hashed anew")
	}
	change(4, documents.ContentChange{Text: "new\n"})
	if ix := src.LineHashes("a.go", 4); ix == nil || !ix.Equal(anchored.NewTextIndex("new\n", anchored.Options{})) {
		t.Error("the hashes after a full replacement are not those of the new text")
	}
}
