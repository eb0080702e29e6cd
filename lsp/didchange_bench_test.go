package lsp

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agentls/agentls/anchored"
	"github.com/agentls/agentls/edits"
	"github.com/agentls/agentls/lsp/internal/documents"
	"github.com/agentls/agentls/tools/edittool"
)

// BenchmarkDidChangeServer measures the server's handling of one typed
// (or deleted) character in documents of growing size (the handler
// alone): it should not grow with the size. The server has a workspace
// root, as a real one does, so the document is a file of the workspace
// and each change also asks whether it has pending review hunks or
// answers to republish (with no root it skipped that). "hashed"
// documents keep line hashes for the anchored tools, which the change
// updates.
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
	root := testSession(s, cleanFile(b.TempDir())).root
	text := strings.Repeat("func f() int { return 42 }\n", lines)
	u := protocol.DocumentURI(uri.File(filepath.Join(root, "big.go")))
	s.didOpen(context.Background(), &protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{URI: u, Version: 1, Text: text}})
	opened, _ := s.docs.Get(u)
	if _, err := s.relPath(opened); err != nil {
		b.Fatalf("the document is no file of the workspace: %v", err)
	}
	if hashed && (editorSource{docs: s.docs, disk: edittool.DiskSource{Root: root}}).LineHashes("big.go", 1) == nil {
		b.Fatal("no line hashes")
	}
	pos := protocol.Position{Line: uint32(lines / 2)}
	next := protocol.Position{Line: pos.Line, Character: 1}
	v := int32(1)
	for b.Loop() {
		// Type a character, then delete it: the document keeps its
		// size however long the benchmark runs.
		v++
		change := documents.ContentChange{Range: &protocol.Range{Start: pos, End: pos}, Text: "x"}
		if v%2 == 1 {
			change = documents.ContentChange{Range: &protocol.Range{Start: pos, End: next}}
		}
		s.didChange(context.Background(), &didChangeParams{
			TextDocument:   protocol.VersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: u}, Version: v},
			ContentChanges: []documents.ContentChange{change},
		})
	}
	d, _ := s.docs.Get(u)
	if d.Text() != text && d.Text() != text[:len(text)/2]+"x"+text[len(text)/2:] {
		b.Fatal("the document drifted from what was typed")
	}
	if hashed && !s.docs.LineHashes(d.Path, d.Version).Equal(anchored.NewTextIndex(d.Text(), anchored.Options{})) {
		b.Fatal("the line hashes drifted from the document")
	}
}

// BenchmarkWorkspaceEdit measures building the WorkspaceEdit of a
// changeset with 1,000 changed hunks in a 10,000-line file not open in
// the editor: "diff" for a change made without its edits (a save of the
// whole file, a rebase), which is diffed whole; "recorded" for one whose
// tool recorded the edits it made.
func BenchmarkWorkspaceEdit(b *testing.B) {
	var before, after strings.Builder
	var made []edits.TextEdit
	for i := range 10_000 {
		fmt.Fprintf(&before, "\tx%d := compute(%d)\n", i, i)
		if i%10 == 5 {
			at := before.Len() - 1
			made = append(made, edits.TextEdit{Start: at, End: at, New: " + 1"})
			fmt.Fprintf(&after, "\tx%d := compute(%d) + 1\n", i, i)
		} else {
			fmt.Fprintf(&after, "\tx%d := compute(%d)\n", i, i)
		}
	}
	for _, recorded := range []bool{false, true} {
		name := "diff"
		if recorded {
			name = "recorded"
		}
		b.Run(name, func(b *testing.B) {
			s := newServer(Options{})
			testSession(s, cleanFile(b.TempDir()))
			var cs edits.Changeset
			if recorded {
				cs.WriteEdits("big.go", before.String(), true, edits.NotOpen, after.String(), made)
			} else {
				cs.Write("big.go", before.String(), true, edits.NotOpen, after.String())
			}
			b.SetBytes(int64(before.Len()))
			for b.Loop() {
				we, err := s.delivery.workspaceEditFor(&cs)
				if err != nil {
					b.Fatal(err)
				}
				if len(we.DocumentChanges) != 1 {
					b.Fatalf("%d document changes, want 1", len(we.DocumentChanges))
				}
				if n := len(we.DocumentChanges[0].(textDocumentEdit).Edits); n != 1000 {
					b.Fatalf("%d edits, want 1000", n)
				}
			}
		})
	}
}
