package lsp

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agentls/agentls/edits"
	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/edittool"
)

// conflictPatch writes one conflict-marker hunk per (original, updated)
// pair.
func conflictPatch(pairs ...string) string {
	var b strings.Builder
	for i := 0; i+1 < len(pairs); i += 2 {
		b.WriteString("<<<<<<< ORIGINAL\n" + pairs[i] + "=======\n" + pairs[i+1] + ">>>>>>> UPDATED\n")
	}
	return b.String()
}

// manyLines returns n numbered lines of about 40 bytes, so a buffer of a
// few hundred spans several chunks.
func manyLines(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "\tvalue%04d := compute(%d) // ünïcode 😀\n", i, i)
	}
	return b.String()
}

// TestTextEditsFromHunks checks the TextEdits a patch sends: made from
// the hunks the patch resolved (not a diff of the whole file), they must
// turn the document into exactly the patched text when an editor applies
// them in the negotiated encoding, and be as small as the whole-file
// minimal diff (a hunk's context lines are not rewritten, so cursors
// there stay put) — the same edits, where both are the obvious ones.
func TestTextEditsFromHunks(t *testing.T) {
	big := manyLines(400) // ~20 KB: several chunks of the buffer
	for _, tc := range []struct {
		name  string
		text  string
		tool  string // "patch" (the default), "patch_many", "append", "apply_patch"
		patch string
		enc   edits.Encoding
		open  bool
		// sameAsDiff: the edits must equal the whole-file minimal diff's.
		sameAsDiff bool
		want       []protocol.TextEdit // if set, exactly these
	}{
		{
			name: "single hunk", text: "package a\n\nfunc f() int {\n\treturn 1\n}\n",
			patch: conflictPatch("func f() int {\n\treturn 1\n}\n", "func f() int {\n\treturn 2\n}\n"),
			open:  true, sameAsDiff: true,
			want: []protocol.TextEdit{{Range: lspRange(3, 8, 3, 9), NewText: "2"}},
		},
		{
			name: "several hunks", text: "a := 1\nb := 2\nc := 3\nd := 4\ne := 5\n",
			patch: conflictPatch("a := 1\n", "a := 10\n", "d := 4\ne := 5\n", "d := 40\ne := 5\n"),
			open:  true, sameAsDiff: true,
			want: []protocol.TextEdit{{Range: lspRange(0, 6, 0, 6), NewText: "0"}, {Range: lspRange(3, 6, 3, 6), NewText: "0"}},
		},
		{
			name: "context lines between two changes stay", text: "one\ntwo\nthree\nfour\nfive\n",
			patch: conflictPatch("one\ntwo\nthree\nfour\nfive\n", "ONE\ntwo\nthree\nfour\nFIVE\n"),
			open:  true, sameAsDiff: true,
			want: []protocol.TextEdit{{Range: lspRange(0, 0, 0, 3), NewText: "ONE"}, {Range: lspRange(4, 0, 4, 4), NewText: "FIVE"}},
		},
		{
			name: "CRLF", text: "first\r\nsecond\r\nthird\r\n",
			patch: conflictPatch("second\n", "second line\nmore\n"),
			open:  true, sameAsDiff: true,
			want: []protocol.TextEdit{{Range: lspRange(1, 6, 1, 6), NewText: " line\r\nmore"}},
		},
		{
			name: "non-ASCII in UTF-16", text: "x := \"😀 é\" // 😀\ny := 1\n",
			patch: conflictPatch("x := \"😀 é\" // 😀\n", "x := \"😀 è\" // 😀\n"),
			enc:   edits.UTF16, open: true, sameAsDiff: true,
			want: []protocol.TextEdit{{Range: lspRange(0, 9, 0, 10), NewText: "è"}},
		},
		{
			name: "non-ASCII in UTF-8", text: "x := \"😀 é\" // 😀\ny := 1\n",
			patch: conflictPatch("x := \"😀 é\" // 😀\n", "x := \"😀 è\" // 😀\n"),
			enc:   edits.UTF8, open: true, sameAsDiff: true,
			want: []protocol.TextEdit{{Range: lspRange(0, 11, 0, 13), NewText: "è"}},
		},
		{
			name: "hunk at the end, no final newline", text: "a\nb\nlast",
			patch: conflictPatch("b\nlast\n", "b\nlast line\n"),
			open:  true, sameAsDiff: true,
			want: []protocol.TextEdit{{Range: lspRange(2, 4, 2, 4), NewText: " line"}},
		},
		{
			name: "new text shares a prefix and a suffix", text: "call(alpha, omega)\nnext\n",
			patch: conflictPatch("call(alpha, omega)\n", "call(alpha, beta, omega)\n"),
			open:  true, sameAsDiff: true,
			want: []protocol.TextEdit{{Range: lspRange(0, 12, 0, 12), NewText: "beta, "}},
		},
		{
			name: "a line added next to an equal one", text: "}\n}\nend\n",
			patch: conflictPatch("}\n}\n", "}\n}\n}\n"),
			open:  true,
		},
		// Where a line equal to its neighbour is added, the diff of the
		// whole file puts it after that neighbour (an insertion of "y\n"
		// at 2:0); the hunk's edit goes where the hunk matched, after "x".
		// These fail if a tool stops recording its edits (and the change
		// is diffed instead).
		{
			name: "the edit lands where the hunk matched", text: "x\ny\nz\n",
			patch: conflictPatch("x\n", "x\ny\n"), open: true,
			want: []protocol.TextEdit{{Range: lspRange(0, 1, 0, 1), NewText: "\ny"}},
		},
		{
			name: "the edit lands where the hunk matched, apply_patch", text: "x\ny\nz\n", tool: "apply_patch", open: true,
			patch: "*** Begin Patch\n*** Update File: f.go\n@@\n x\n+y\n*** End Patch\n",
			want:  []protocol.TextEdit{{Range: lspRange(0, 1, 0, 1), NewText: "\ny"}},
		},
		{
			name: "the edit lands where the hunk matched, patched twice", text: "x\ny\nz\n", tool: "patch_many", open: true,
			patch: "=== PATH: f.go ===\n" + conflictPatch("x\n", "x\ny\n") + "=== PATH: f.go ===\n" + conflictPatch("z\n", "Z\n"),
			want:  []protocol.TextEdit{{Range: lspRange(0, 1, 0, 1), NewText: "\ny"}, {Range: lspRange(2, 0, 2, 1), NewText: "Z"}},
		},
		{
			name: "a byte-order mark", text: "\ufefffirst\nsecond\n", enc: edits.UTF16,
			patch: conflictPatch("first\n", "First\n"), open: true, sameAsDiff: true,
			want: []protocol.TextEdit{{Range: lspRange(0, 1, 0, 2), NewText: "F"}},
		},
		{
			name: "deleted lines", text: "keep\ndrop1\ndrop2\nkeep too\n",
			patch: conflictPatch("keep\ndrop1\ndrop2\nkeep too\n", "keep\nkeep too\n"),
			open:  true, sameAsDiff: true,
			want: []protocol.TextEdit{{Range: lspRange(1, 0, 3, 0), NewText: ""}},
		},
		{
			name: "open buffer of several chunks", text: big,
			patch: conflictPatch("\tvalue0350 := compute(350) // ünïcode 😀\n", "\tvalue0350 := compute(351) // ünïcode 😀\n"),
			open:  true, sameAsDiff: true,
			want: []protocol.TextEdit{{Range: lspRange(350, 24, 350, 25), NewText: "1"}},
		},
		// A file not open is replaced whole (unseen_buffer.go): a buffer
		// agentls cannot see may hold other lines.
		{
			name: "file not open", text: big,
			patch: conflictPatch("\tvalue0350 := compute(350) // ünïcode 😀\n", "\tvalue0350 := compute(351) // ünïcode 😀\n"),
			want:  []protocol.TextEdit{{Range: protocol.Range{End: wholeDocumentEnd}, NewText: strings.Replace(big, "compute(350)", "compute(351)", 1)}},
		},
		{
			name: "file not open, UTF-8, CRLF and a lone CR", text: "a\r\nb\rc é\r\nd\n",
			patch: conflictPatch("d\n", "D\n"), enc: edits.UTF8,
			want: []protocol.TextEdit{{Range: protocol.Range{End: wholeDocumentEnd}, NewText: "a\r\nb\rc é\r\nD\n"}},
		},
		{
			name: "the same file patched twice in one call", text: big, tool: "patch_many", open: true, sameAsDiff: true,
			patch: "=== PATH: f.go ===\n" + conflictPatch("\tvalue0010 := compute(10) // ünïcode 😀\n", "\tvalue0010 := compute(11) // ünïcode 😀\n") +
				"=== PATH: f.go ===\n" + conflictPatch("\tvalue0011 := compute(11) // ünïcode 😀\n\tvalue0012 := compute(12) // ünïcode 😀\n", "\tvalue0011 := compute(11) // ünïcode 😀\n\tvalue0012 := compute(12) // ünïcode 😀 !\n"),
			want: []protocol.TextEdit{{Range: lspRange(10, 23, 10, 24), NewText: "1"}, {Range: lspRange(12, 39, 12, 39), NewText: " !"}},
		},
		{
			name: "the second patch changes what the first added", text: "a\nb\nc\n", tool: "patch_many", open: true, sameAsDiff: true,
			patch: "=== PATH: f.go ===\n" + conflictPatch("b\n", "b2\n") + "=== PATH: f.go ===\n" + conflictPatch("b2\nc\n", "b23\nC\n"),
			want:  []protocol.TextEdit{{Range: lspRange(1, 1, 2, 1), NewText: "23\nC"}},
		},
		{
			name: "append", text: "one\r\ntwo", tool: "append", patch: "three\n", open: true, sameAsDiff: true,
			want: []protocol.TextEdit{{Range: lspRange(1, 3, 1, 3), NewText: "\r\nthree\r\n"}},
		},
		{
			name: "apply_patch update", text: "alpha\nbeta\ngamma\n", tool: "apply_patch", open: true, sameAsDiff: true,
			patch: "*** Begin Patch\n*** Update File: f.go\n@@\n alpha\n-beta\n+BETA\n gamma\n*** End Patch\n",
			want:  []protocol.TextEdit{{Range: lspRange(1, 0, 1, 4), NewText: "BETA"}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			s, src := serverWithFile(t, tc.text, tc.enc, tc.open)
			batch := &edittool.Batch{Root: s.session().root, Source: src}
			var err error
			switch tc.tool {
			case "", "patch":
				_, err = batch.Patch(ctx, "f.go", tc.patch)
			case "patch_many":
				_, err = batch.PatchMany(ctx, tools.ToolUse{Tool: "patch_many", Content: tc.patch}, nil)
			case "append":
				_, err = batch.Append(ctx, "f.go", tc.patch)
			case "apply_patch":
				_, err = batch.ApplyPatch(ctx, tc.patch)
			}
			if err != nil {
				t.Fatal(err)
			}
			got := sentEdits(t, s, &batch.Changes)
			c := batch.Changes.Effective()[0]
			if out := applyLSPEdits(t, c.Base(), got, tc.enc); out != c.Result() {
				t.Fatalf("the edits %v turn the document into\n%q\nnot the patched text\n%q", got, out, c.Result())
			}
			if tc.want != nil && !slices.Equal(got, tc.want) {
				t.Errorf("edits %v, want %v", got, tc.want)
			}
			if diff := diffEdits(t, c.Base(), c.Result(), tc.enc); tc.sameAsDiff && !slices.Equal(got, diff) {
				t.Errorf("edits %v, but the whole-file minimal diff sends %v", got, diff)
			}
		})
	}
}

// TestTextEditsAfterTheChangeMoved is the change whose Result is set again
// after its tool recorded its edits (a rebase, a review's accept): the
// recorded edits no longer make Result, and sending them would corrupt the
// buffer; the edits sent must be those of the texts as they are.
func TestTextEditsAfterTheChangeMoved(t *testing.T) {
	ctx := context.Background()
	text := "alpha\nbeta\ngamma\n"
	s, src := serverWithFile(t, text, edits.UTF16, true)
	batch := &edittool.Batch{Root: s.session().root, Source: src}
	if _, err := batch.Patch(ctx, "f.go", conflictPatch("beta\n", "BETA\n")); err != nil {
		t.Fatal(err)
	}
	c := batch.Changes.Effective()[0]
	// The same length, so only comparing the texts tells them apart.
	c.SetResult(strings.Replace(c.Result(), "alpha", "ALPHA", 1))
	got := sentEdits(t, s, &batch.Changes)
	if out := applyLSPEdits(t, c.Base(), got, edits.UTF16); out != c.Result() {
		t.Fatalf("the edits %v turn the document into %q, not the change's result %q", got, out, c.Result())
	}
}

// serverWithFile returns a server whose workspace holds f.go with text,
// open in the editor (version 3) if open is set, and the editor's source.
func serverWithFile(t *testing.T, text string, enc edits.Encoding, open bool) (*Server, editorSource) {
	t.Helper()
	root := t.TempDir()
	name := filepath.Join(root, "f.go")
	if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	s := newServer(Options{})
	testSession(s, cleanFile(root)).encoding = enc
	if open {
		s.didOpen(context.Background(), &protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{URI: protocol.DocumentURI(uri.File(name)), Version: 3, Text: text}})
	}
	return s, editorSource{docs: s.docs, disk: edittool.DiskSource{Root: s.session().root}}
}

// sentEdits builds the WorkspaceEdit of a changeset of one file and
// returns that document's edits.
func sentEdits(t *testing.T, s *Server, cs *edits.Changeset) []protocol.TextEdit {
	t.Helper()
	we, err := s.delivery.workspaceEditFor(cs)
	if err != nil {
		t.Fatal(err)
	}
	if len(we.DocumentChanges) != 1 {
		t.Fatalf("%d document changes, want 1", len(we.DocumentChanges))
	}
	return we.DocumentChanges[0].(textDocumentEdit).Edits
}

func lspRange(sl, sc, el, ec uint32) protocol.Range {
	return protocol.Range{Start: protocol.Position{Line: sl, Character: sc}, End: protocol.Position{Line: el, Character: ec}}
}

// applyLSPEdits applies LSP text edits to text as an editor does: every
// range is in the original text, in the given encoding.
func applyLSPEdits(t *testing.T, text string, es []protocol.TextEdit, enc edits.Encoding) string {
	t.Helper()
	m := edits.NewMapper(text)
	// Editors clamp a position past the last line to the end of the text.
	offset := func(p protocol.Position) (int, error) {
		if int(p.Line) >= m.Lines() {
			return len(text), nil
		}
		return m.Offset(int(p.Line), int(p.Character), enc)
	}
	var bs []edits.TextEdit
	for _, e := range es {
		start, err := offset(e.Range.Start)
		if err != nil {
			t.Fatal(err)
		}
		end, err := offset(e.Range.End)
		if err != nil {
			t.Fatal(err)
		}
		bs = append(bs, edits.TextEdit{Start: start, End: end, New: e.NewText})
	}
	slices.SortStableFunc(bs, func(a, b edits.TextEdit) int { return a.Start - b.Start })
	for i := 1; i < len(bs); i++ {
		if bs[i].Start < bs[i-1].End {
			t.Fatalf("edits %v overlap", es)
		}
	}
	return edits.ApplyEdits(text, bs)
}

// diffEdits is what the server sent before edits travelled with their
// change: the minimal diff of the two whole texts, placed with a Mapper
// of the whole text.
func diffEdits(t *testing.T, before, after string, enc edits.Encoding) []protocol.TextEdit {
	t.Helper()
	m := edits.NewMapper(before)
	out := []protocol.TextEdit{}
	for _, e := range edits.MinimalEdits(before, after) {
		sl, sc, err := m.Position(e.Start, enc)
		if err != nil {
			t.Fatal(err)
		}
		el, ec, err := m.Position(e.End, enc)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, protocol.TextEdit{Range: lspRange(uint32(sl), uint32(sc), uint32(el), uint32(ec)), NewText: e.New})
	}
	return out
}
