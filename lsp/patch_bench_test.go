package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agentls/agentls/anchored"
	"github.com/agentls/agentls/lsp/internal/documents"
	"github.com/agentls/agentls/tools/edittool"
)

// BenchmarkPatchOpenBuffer measures what the server does for one exact
// patch to a file open in the editor, from the tool's Batch reading the
// buffer to the WorkspaceEdit built for it (no pipe, no editor): reading
// the buffer, resolving the hunk and the TextEdits. The new text, for the
// echo check, the journal, review and disk, is not made here: it is made
// from the recorded edits once the edit is sent (FileChange.Result). It
// should cost about the size of the change, not of the document.
//
// "typed" first changes the buffer by a keystroke, as a user does while
// the agent works: the patch then reads a new version of the buffer,
// whose text is not joined: the hunk is resolved on its chunks and the
// change recorded on it (editorSource is a tools.BufferSource), so this
// costs the search, as the untyped case does. "anchored" makes the same
// change with patch_anchored on a buffer whose line hashes are kept, a
// change made without its edits, which is diffed.
func BenchmarkPatchOpenBuffer(b *testing.B) {
	for _, size := range []int{10 << 10, 1 << 20, 10 << 20} {
		for _, mode := range []string{"", "typed", "anchored"} {
			name := benchSizeLabel(size)
			if mode != "" {
				name += "/" + mode
			}
			b.Run(name, func(b *testing.B) { benchmarkPatchOpenBuffer(b, size, mode) })
		}
	}
}

func benchmarkPatchOpenBuffer(b *testing.B, size int, mode string) {
	ctx := context.Background()
	root := b.TempDir()
	text := benchSource(size)
	name := filepath.Join(root, "big.go")
	if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
		b.Fatal(err)
	}
	s := newServer(Options{})
	root = testSession(s, cleanFile(root)).root
	u := protocol.DocumentURI(uri.File(name))
	s.didOpen(ctx, &protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{URI: u, Version: 1, Text: text}})
	src := editorSource{docs: s.docs, disk: edittool.DiskSource{Root: root}}

	// The function in the middle of the file gets a wrapped return.
	lines := strings.SplitAfter(text, "\n")
	mid := len(lines) / 2
	mid -= mid % 8
	orig := strings.Join(lines[mid+1:mid+5], "")
	upd := strings.Replace(orig, "\t\treturn fmt", "\t\treturn wrap(fmt", 1)
	patch := "<<<<<<< ORIGINAL\n" + orig + "=======\n" + upd + ">>>>>>> UPDATED\n"
	wantLine := uint32(mid + 3)
	var ops string
	if mode == "anchored" {
		if src.LineHashes("big.go", 1) == nil {
			b.Fatal("no line hashes kept")
		}
		view, err := anchored.View(text, int(wantLine)+1, int(wantLine)+1, anchored.Options{})
		if err != nil {
			b.Fatal(err)
		}
		newLine, _ := json.Marshal(strings.TrimSuffix(strings.SplitAfter(upd, "\n")[2], "\n"))
		ops = `[{"anchor": "` + view[0].Anchor + `", "op": "replace", "text": ` + string(newLine) + `}]`
	}

	v := int32(1)
	keystroke := protocol.Position{Line: 0}
	b.SetBytes(int64(size))
	for b.Loop() {
		if mode == "typed" {
			// Type a character on the first line, then delete it, so the
			// document keeps its size; either way it is a new version.
			v++
			change := documents.ContentChange{Range: &protocol.Range{Start: keystroke, End: keystroke}, Text: "x"}
			if v%2 == 1 {
				change = documents.ContentChange{Range: &protocol.Range{Start: keystroke, End: protocol.Position{Character: 1}}}
			}
			s.didChange(ctx, &didChangeParams{
				TextDocument:   protocol.VersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: u}, Version: v},
				ContentChanges: []documents.ContentChange{change},
			})
		}
		batch := &edittool.Batch{Root: root, Source: src}
		var err error
		if mode == "anchored" {
			_, err = batch.PatchAnchored(ctx, "big.go", ops)
		} else {
			_, err = batch.Patch(ctx, "big.go", patch)
		}
		if err != nil {
			b.Fatal(err)
		}
		we, err := s.delivery.workspaceEditFor(&batch.Changes)
		if err != nil {
			b.Fatal(err)
		}
		if len(we.DocumentChanges) != 1 {
			b.Fatalf("%d document changes, want 1", len(we.DocumentChanges))
		}
		tde := we.DocumentChanges[0].(textDocumentEdit)
		if len(tde.Edits) != 1 || tde.Edits[0].Range.Start.Line != wantLine || tde.Edits[0].NewText != "wrap(" || *tde.TextDocument.Version != v {
			b.Fatalf("edits %+v at version %d, want one inserting wrap( on line %d at version %d", tde.Edits, *tde.TextDocument.Version, wantLine, v)
		}
	}
}

// benchSource returns Go-like source of about size bytes whose functions
// all differ, so a hunk taken from it is unique.
func benchSource(size int) string {
	var sb strings.Builder
	for i := 0; sb.Len() < size; i++ {
		fmt.Fprintf(&sb, "// handle%d serves one kind of request.\nfunc handle%d(ctx context.Context, r *Request) error {\n\tif err := r.Validate(); err != nil {\n\t\treturn fmt.Errorf(\"handle%d: %%w\", err)\n\t}\n\treturn nil\n}\n\n", i, i, i)
	}
	return sb.String()
}

func benchSizeLabel(n int) string {
	if n >= 1<<20 {
		return fmt.Sprintf("%dMB", n>>20)
	}
	return fmt.Sprintf("%dKB", n>>10)
}
