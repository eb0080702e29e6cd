package documents

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/anchored"
	"github.com/agentls/agentls/edits"
)

// TestLineHashesFollowChanges makes random changes, as an editor sends
// them (ranges in LSP lines, texts with line breaks, CRLF, a lone "\r", a
// byte-order mark, a last line without a line break), and checks after
// each that the hashes kept up to date are those of the new text hashed
// afresh, or were given up because the text now has a lone "\r".
func TestLineHashesFollowChanges(t *testing.T) {
	pieces := []string{"", "x", "\n", "\r\n", "ab\ncd", "\n\n", "\ufeff", "}\n", "\r", "tail"}
	r := rand.New(rand.NewPCG(3, 4))
	// offset picks a byte offset the way Buffer.Offset gives one: never
	// inside a character, nor between the "\r" and "\n" of a line break.
	offset := func(text string) int {
		o := r.IntN(len(text) + 1)
		for o < len(text) && !utf8.RuneStart(text[o]) {
			o--
		}
		if o > 0 && o < len(text) && text[o-1] == '\r' && text[o] == '\n' {
			o--
		}
		return o
	}
	kept, dropped := 0, 0
	for trial := range 300 {
		text := ""
		for range r.IntN(12) {
			text += pieces[r.IntN(len(pieces))]
		}
		buf := edits.NewBuffer(text)
		var ix *anchored.Index
		for step := range 20 {
			if ix == nil && !hasLoneCR(text) {
				ix = anchored.NewTextIndex(text, anchored.Options{})
			}
			a, b := offset(text), offset(text)
			a, b = min(a, b), max(a, b)
			insert := pieces[r.IntN(len(pieces))] + pieces[r.IntN(len(pieces))]
			c := lineChange{start: a, end: b, text: insert, startLine: strings.Count(text[:a], "\n"), endLine: strings.Count(text[:b], "\n")}
			after, err := buf.Replace(a, b, insert)
			if err != nil {
				t.Fatal(err)
			}
			before := text
			text = text[:a] + insert + text[b:]
			buf = after
			if ix == nil {
				continue
			}
			if !updateLineHashes(ix, edits.NewBuffer(before), after, c) {
				if !hasLoneCR(text) {
					t.Fatalf("trial %d step %d: %q → %q refused", trial, step, before, text)
				}
				ix, dropped = nil, dropped+1
				continue
			}
			if hasLoneCR(text) {
				t.Fatalf("trial %d step %d: %q → %q kept with a lone CR", trial, step, before, text)
			}
			if fresh := anchored.NewTextIndex(text, anchored.Options{}); !ix.Equal(fresh) {
				t.Fatalf("trial %d step %d: %q → %q: kept hashes differ from fresh ones", trial, step, before, text)
			}
			kept++
		}
	}
	if kept < 1000 || dropped == 0 {
		t.Errorf("kept %d, dropped %d: the cases are not exercised", kept, dropped)
	}
}

// TestLineHashesRefuseAMismatch: hashes of another text are not updated
// as if they were the buffer's.
func TestLineHashesRefuseAMismatch(t *testing.T) {
	ix := anchored.NewTextIndex("a\nb\nc\n", anchored.Options{})
	before := edits.NewBuffer("a\n")
	after, _ := before.Replace(0, 1, "z")
	if updateLineHashes(ix, before, after, lineChange{start: 0, end: 1, text: "z"}) {
		t.Error("hashes of three lines were updated for a buffer of one")
	}
}

// TestLineHashesKeptPerVersion: the hashes an anchored tool asks for are
// kept with the open buffer, follow incremental changes, answer only for
// the current version, and are given up for a buffer with a lone "\r"
// (and a full replacement hashes anew).
func TestLineHashesKeptPerVersion(t *testing.T) {
	ds := New()
	const u, file = protocol.DocumentURI("file:///w/a.go"), "/w/a.go"
	text := "package p\n\nfunc f() {\n}\n"
	ds.Open(Document{URI: u, Path: file, Version: 1, Buf: edits.NewBuffer(text)})
	change := func(v int32, c ContentChange) {
		// A change that gives the hashes up says so: not a failure here.
		ds.Apply(uint64(v), u, v, []ContentChange{c}, edits.UTF16, func(Document, int32, []Change) {})
		if d, _ := ds.Get(u); d.Version != v {
			t.Fatalf("change to version %d not taken", v)
		}
	}
	kept := func() *anchored.Index {
		ds.mu.Lock()
		defer ds.mu.Unlock()
		return ds.byURI[u].hashes
	}
	at := func(line, char uint32) protocol.Position { return protocol.Position{Line: line, Character: char} }

	if kept() != nil {
		t.Fatal("hashes kept before any anchored tool asked")
	}
	if ix := ds.LineHashes(file, 1); ix == nil || !ix.Equal(anchored.NewTextIndex(text, anchored.Options{})) || kept() == nil {
		t.Fatal("the first ask did not hash and keep the buffer's lines")
	}
	change(2, ContentChange{Range: &protocol.Range{Start: at(3, 0), End: at(3, 0)}, Text: "\treturn\n"})
	text = "package p\n\nfunc f() {\n\treturn\n}\n"
	if ix := ds.LineHashes(file, 2); ix == nil || !ix.Equal(anchored.NewTextIndex(text, anchored.Options{})) {
		t.Error("the kept hashes did not follow an incremental change")
	}
	if ds.LineHashes(file, 1) != nil {
		t.Error("hashes given for a version the buffer is past")
	}
	change(3, ContentChange{Range: &protocol.Range{Start: at(1, 0), End: at(1, 0)}, Text: "x\ry"})
	if kept() != nil {
		t.Error("hashes kept for a buffer with a lone CR")
	}
	text = "package p\nx\ry\nfunc f() {\n\treturn\n}\n"
	if ix := ds.LineHashes(file, 3); ix == nil || !ix.Equal(anchored.NewTextIndex(text, anchored.Options{})) {
		t.Error("the hashes of the buffer once given up are not hashed anew")
	}
	if kept() != nil {
		t.Error("hashes of a buffer with a lone CR were kept")
	}
	change(4, ContentChange{Text: "new\n"})
	if kept() != nil {
		t.Error("hashes kept across a full replacement")
	}
}
