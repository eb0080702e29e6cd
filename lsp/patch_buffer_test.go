package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agentls/agentls/edits"
	"github.com/agentls/agentls/lsp/internal/documents"
	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/edittool"
)

// textOnlySource is the editor's source without its buffers
// (tools.BufferSource): the text of an open buffer, joined, as the edit
// tools read it before they resolved patches on the buffer's chunks.
type textOnlySource struct{ src editorSource }

func (t textOnlySource) Read(ctx context.Context, rel string) (string, int32, bool, error) {
	return t.src.Read(ctx, rel)
}

// openTyped opens each file of files (relative to the server's root) in
// the editor, and types a character on its first line and deletes it:
// the buffers are at version 3, their text not joined since.
func openTyped(t testing.TB, s *Server, root string, files map[string]string) {
	t.Helper()
	ctx := context.Background()
	for rel, text := range files {
		u := protocol.DocumentURI(uri.File(filepath.Join(root, rel)))
		s.didOpen(ctx, &protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{URI: u, Version: 1, Text: text}})
		at := protocol.Position{}
		for v, change := range []documents.ContentChange{
			{Range: &protocol.Range{Start: at, End: at}, Text: "x"},
			{Range: &protocol.Range{Start: at, End: protocol.Position{Character: 1}}},
		} {
			s.didChange(ctx, &didChangeParams{
				TextDocument:   protocol.VersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: u}, Version: int32(v + 2)},
				ContentChanges: []documents.ContentChange{change},
			})
		}
		if d, ok := s.docs.Get(u); !ok || d.Version != 3 || d.Buf.Len() != len(text) {
			t.Fatalf("%s not open at version 3 with its text", rel)
		}
	}
}

// TestPatchOpenBufferSameAsText: a patch to buffers open in the editor,
// resolved on their chunks and recorded on them (editorSource is a
// tools.BufferSource), gives what it gives on their joined text: the same
// message or error and the same WorkspaceEdit, in UTF-16 and UTF-8, for
// non-ASCII lines, CRLF, hunks across the buffer's chunk seams, a file
// not open, no match and an ambiguous one.
func TestPatchOpenBufferSameAsText(t *testing.T) {
	var sb strings.Builder
	for i := range 600 { // about 40 KB: ten chunks
		fmt.Fprintf(&sb, "// f%d grüßt 日本 😀 %d.\nfunc f%d(x int) int {\n\treturn x + %d\n}\n\n", i, i, i, i%7)
	}
	big := sb.String()
	crlf := strings.ReplaceAll(big, "\n", "\r\n")
	open := map[string]string{"big.go": big, "crlf.go": crlf}
	hunk := func(orig, upd string) string {
		return "<<<<<<< ORIGINAL\n" + orig + "=======\n" + upd + ">>>>>>> UPDATED\n"
	}
	// Hunks of six lines around each 8 KB of the text: the buffer's
	// chunks end at the first line break past each 4 KB.
	seams := func(text string) string {
		var p strings.Builder
		lines := strings.SplitAfter(text, "\n")
		at := 0
		for i, next := 0, 4<<10; i < len(lines); i++ {
			if at += len(lines[i]); at > next && i+3 < len(lines) {
				orig := strings.Join(lines[i-2:i+4], "")
				p.WriteString(hunk(orig, strings.ReplaceAll(orig, "return x", "return -x")))
				next += 8 << 10
			}
		}
		return strings.ReplaceAll(p.String(), "\r\n", "\n")
	}
	f300 := "func f300(x int) int {\n\treturn x + 6\n}\n"
	tests := []struct {
		name, file, patch string
		many              []string // patch_many: path, patch, path, patch...
	}{
		{name: "exact", file: "big.go", patch: hunk(f300, strings.Replace(f300, "x + 6", "x * 6", 1))},
		{name: "non-ASCII line", file: "big.go", patch: hunk("// f42 grüßt 日本 😀 42.\n", "// f42 sagt 日本語 🙂 42.\n")},
		{name: "across seams", file: "big.go", patch: seams(big)},
		{name: "first and last lines", file: "big.go", patch: hunk("// f0 grüßt 日本 😀 0.\n", "// f0.\n") + hunk("func f599(x int) int {\n\treturn x + 4\n}\n\n", "")},
		{name: "CRLF", file: "crlf.go", patch: hunk(f300, strings.Replace(f300, "x + 6", "x * 6", 1))},
		{name: "CRLF across seams", file: "crlf.go", patch: seams(crlf)},
		{name: "no match", file: "big.go", patch: hunk("func f300(x int) int {\n\treturn x + 5\n", "func f300() {\n")},
		{name: "ambiguous", file: "big.go", patch: hunk("\treturn x + 6\n}\n", "\treturn x + 60\n}\n")},
		{name: "patch_many with a file not open", many: []string{
			"big.go", hunk(f300, ""),
			"disk.go", hunk("package disk\n", "package d\n"),
			"crlf.go", hunk("// f1 grüßt 日本 😀 1.\n", "// f1 ✓\n"),
		}},
	}
	for _, enc := range []edits.Encoding{edits.UTF16, edits.UTF8} {
		for _, tc := range tests {
			t.Run(fmt.Sprintf("%s/%v", tc.name, enc), func(t *testing.T) {
				ctx := context.Background()
				dir := t.TempDir()
				for rel, text := range map[string]string{"big.go": big, "crlf.go": crlf, "disk.go": "package disk\n"} {
					if err := os.WriteFile(filepath.Join(dir, rel), []byte(text), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				s := newServer(Options{})
				sess := testSession(s, cleanFile(dir))
				sess.encoding = enc
				openTyped(t, s, sess.root, open)
				run := func(src edittool.Source) (string, string) {
					b := &edittool.Batch{Root: sess.root, Source: src}
					var msg string
					var err error
					if tc.many != nil {
						var list []any
						for i := 0; i < len(tc.many); i += 2 {
							list = append(list, map[string]any{"path": tc.many[i], "patch": tc.many[i+1]})
						}
						msg, err = b.PatchMany(ctx, tools.ToolUse{}, list)
					} else {
						msg, err = b.Patch(ctx, tc.file, tc.patch)
					}
					if err != nil {
						return msg, "error: " + err.Error()
					}
					we, err := s.delivery.workspaceEditFor(&b.Changes)
					if err != nil {
						return msg, "workspace edit: " + err.Error()
					}
					data, err := json.Marshal(we)
					if err != nil {
						t.Fatal(err)
					}
					return msg, string(data)
				}
				wantMsg, want := run(textOnlySource{s.source()})
				gotMsg, got := run(s.source())
				if gotMsg != wantMsg || got != want {
					t.Errorf("on the buffers: %q\n%.2000s\non the text: %q\n%.2000s", gotMsg, got, wantMsg, want)
				}
			})
		}
	}
}

// TestPatchOpenBufferJoinsNothing: the first patch after a keystroke on a
// large open buffer, and the WorkspaceEdit made of it, allocate about the
// size of the change, not a copy of the document (its text joined into
// one string, before, for the patch to be resolved on and recorded
// against).
func TestPatchOpenBufferJoinsNothing(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	text := benchSource(4 << 20)
	if err := os.WriteFile(filepath.Join(dir, "big.go"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	s := newServer(Options{})
	root := testSession(s, cleanFile(dir)).root
	openTyped(t, s, root, map[string]string{"big.go": text})
	lines := strings.SplitAfter(text, "\n")
	mid := len(lines) / 2
	mid -= mid % 8
	orig := strings.Join(lines[mid+1:mid+5], "")
	patch := "<<<<<<< ORIGINAL\n" + orig + "=======\n" + strings.Replace(orig, "return fmt", "return wrap(fmt", 1) + ">>>>>>> UPDATED\n"

	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	b := &edittool.Batch{Root: root, Source: s.source()}
	if _, err := b.Patch(ctx, "big.go", patch); err != nil {
		t.Fatal(err)
	}
	we, err := s.delivery.workspaceEditFor(&b.Changes)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > uint64(len(text)/4) {
		t.Errorf("the patch allocated %d bytes for a document of %d", n, len(text))
	}
	tde := we.DocumentChanges[0].(textDocumentEdit)
	if len(tde.Edits) != 1 || tde.Edits[0].NewText != "wrap(" || tde.Edits[0].Range.Start.Line != uint32(mid+3) || *tde.TextDocument.Version != 3 {
		t.Errorf("edits %+v at version %d", tde.Edits, *tde.TextDocument.Version)
	}
	// What reads the change's base later (the journal, review) still
	// gets the document's text.
	if c := b.Changes.Changes[0]; c.Base() != text || c.Result() != strings.Replace(text, orig, strings.Replace(orig, "return fmt", "return wrap(fmt", 1), 1) {
		t.Error("the change's base or result is not the document's text and the patched text")
	}
}
