package edits

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// positionTexts are texts whose every offset TextPositions and
// Buffer.Positions must place as a Mapper does: line breaks of each kind
// (a "\r\n" at chunk ends too), characters of 1 to 4 bytes, a broken UTF-8
// sequence, no final newline.
func positionTexts() []string {
	texts := []string{
		"", "a", "\n", "\r", "\r\n", "a\r\nb\rc\n\nd", "é😀x\n\r\r\n",
		"x \xe2\x82\ny\xf0\x9f", "line one\nline two", "\n\n\r\r\n\r\n",
	}
	var b strings.Builder
	for i := range 300 {
		fmt.Fprintf(&b, "line %d é 😀", i)
		b.WriteString([]string{"\n", "\r\n", "\r", "\n"}[i%4])
	}
	return append(texts, b.String())
}

func TestPositionsMatchMapper(t *testing.T) {
	for _, text := range positionTexts() {
		m := NewMapper(text)
		offsets := make([]int, 0, len(text)+1)
		for off := 0; off <= len(text); off++ {
			offsets = append(offsets, off)
		}
		for _, enc := range []Encoding{UTF16, UTF8, UTF32} {
			var want []Position
			for _, off := range offsets {
				line, char, err := m.Position(off, enc)
				if err != nil {
					t.Fatal(err)
				}
				want = append(want, Position{line, char})
			}
			got, err := TextPositions(text, offsets, enc)
			if err != nil {
				t.Fatal(err)
			}
			if i := firstDifference(got, want); i >= 0 {
				t.Errorf("TextPositions(%.40q…, %d, %v) = %v, Mapper says %v", text, offsets[i], enc, got[i], want[i])
			}
			// A few offsets at a time, as an edit's start and end come.
			for _, step := range []int{7, 97} {
				var some []int
				for off := 0; off <= len(text); off += step {
					some = append(some, off, off)
				}
				got, err := TextPositions(text, some, enc)
				if err != nil {
					t.Fatal(err)
				}
				for k, off := range some {
					if got[k] != want[off] {
						t.Errorf("TextPositions(%.40q…) by steps of %d at %d (%v) = %v, Mapper says %v", text, step, off, enc, got[k], want[off])
						break
					}
				}
			}
			if got, err = NewBuffer(text).Positions(offsets, enc); err != nil {
				t.Fatal(err)
			}
			if i := firstDifference(got, want); i >= 0 {
				t.Errorf("Buffer.Positions(%.40q…, %d, %v) = %v, Mapper says %v", text, offsets[i], enc, got[i], want[i])
			}
		}
	}
}

// TestPositionsOfAChangedBuffer places offsets in a buffer changed by
// keystrokes (its chunks re-cut), as the server does after didChange.
func TestPositionsOfAChangedBuffer(t *testing.T) {
	text := positionTexts()[len(positionTexts())-1]
	b := NewBuffer(text)
	for i := range 50 {
		at := (i * 997) % b.Len()
		var err error
		if b, err = b.Replace(at, at, "ins\r\n😀"); err != nil {
			t.Fatal(err)
		}
		text = text[:at] + "ins\r\n😀" + text[at:]
	}
	m := NewMapper(text)
	var offsets []int
	for off := 0; off <= len(text); off += 13 {
		offsets = append(offsets, off)
	}
	got, err := b.Positions(offsets, UTF16)
	if err != nil {
		t.Fatal(err)
	}
	for k, off := range offsets {
		if line, char, _ := m.Position(off, UTF16); got[k] != (Position{line, char}) {
			t.Fatalf("offset %d: %v, Mapper says %d:%d", off, got[k], line, char)
		}
	}
}

func TestPositionsRefuseBadOffsets(t *testing.T) {
	for _, offsets := range [][]int{{-1}, {4}, {2, 1}} {
		if _, err := TextPositions("abc", offsets, UTF16); err == nil {
			t.Errorf("TextPositions(%v) gave no error", offsets)
		}
		if _, err := NewBuffer("abc").Positions(offsets, UTF16); err == nil {
			t.Errorf("Buffer.Positions(%v) gave no error", offsets)
		}
	}
}

func firstDifference(got, want []Position) int {
	for i := range want {
		if i >= len(got) || got[i] != want[i] {
			return i
		}
	}
	return -1
}

// TestRecordedEdits checks what a change sends: the edits of the hunks a
// patch resolved, trimmed so that a hunk's context lines are in none of
// them, and composed when the same file is patched again; the same as a
// whole-text diff would give where those are the obvious edits.
func TestRecordedEdits(t *testing.T) {
	text := "func a() {\n\treturn 1\n}\n\nfunc b() {\n\treturn 2\n}\n"
	hunk := func(orig, upd string) []Hunk {
		return []Hunk{{Original: strings.Split(orig, "\n"), Updated: strings.Split(upd, "\n")}}
	}
	for _, tc := range []struct {
		name    string
		patches [][]Hunk // applied one after the other
		want    []TextEdit
	}{
		{"one line of a hunk with context", [][]Hunk{hunk("func a() {\n\treturn 1\n}", "func a() {\n\treturn 10\n}")},
			[]TextEdit{{20, 20, "0"}}},
		{"two changes a hunk's context separates", [][]Hunk{hunk("func a() {\n\treturn 1\n}\n\nfunc b() {", "func A() {\n\treturn 1\n}\n\nfunc B() {")},
			[]TextEdit{{5, 6, "A"}, {29, 30, "B"}}},
		{"patched twice, apart", [][]Hunk{hunk("\treturn 1", "\treturn 10"), hunk("\treturn 2", "\treturn 20")},
			[]TextEdit{{20, 20, "0"}, {44, 44, "0"}}},
		{"patched twice, the second over the first", [][]Hunk{hunk("\treturn 1", "\treturn 10"), hunk("\treturn 10\n}", "\treturn 100\n} // a")},
			[]TextEdit{{20, 22, "00\n} // a"}}},
		{"the second patch undoes the first", [][]Hunk{hunk("\treturn 1", "\treturn 10"), hunk("\treturn 10", "\treturn 1")},
			[]TextEdit{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var cs Changeset
			cur := text
			for _, hs := range tc.patches {
				es, err := ResolveHunks(cur, hs)
				if err != nil {
					t.Fatal(err)
				}
				next := ApplyEdits(cur, es)
				cs.WriteEdits("f.go", cur, true, 1, next, es)
				cur = next
			}
			c := cs.Changes[0]
			got, ok := c.recordedEdits()
			if !ok {
				t.Fatal("no edits recorded")
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("edits %v, want %v", got, tc.want)
			}
			if diff := MinimalEdits(c.Base(), c.Result()); fmt.Sprint(got) != fmt.Sprint(diff) && len(diff) > 0 {
				t.Errorf("edits %v, the whole-text diff %v", got, diff)
			}
			if out := ApplyEdits(c.Base(), c.TextEdits()); out != c.Result() {
				t.Errorf("the edits make %q, not %q", out, c.Result())
			}
		})
	}
}

// TestRecordedEditsGoStale is the change set again after its edits were
// recorded — rebased onto the user's typing, accepted from review, undone
// — or recorded with edits that do not make it: the edits sent must be
// those of Base and Result as they are, or the editor's buffer would be
// corrupted.
func TestRecordedEditsGoStale(t *testing.T) {
	base := "alpha\nbeta\ngamma\n"
	result := "alpha\nBETA\ngamma\n"
	good := []TextEdit{{6, 10, "BETA"}}
	for _, tc := range []struct {
		name   string
		write  []TextEdit
		change func(c *FileChange)
	}{
		{"Result set again, same length", good, func(c *FileChange) { c.SetResult("ALPHA\nbeta\ngamma\n") }},
		{"Result set again, longer", good, func(c *FileChange) { c.SetResult(c.Result() + "delta\n") }},
		{"Base set again (rebased)", good, func(c *FileChange) { c.SetBase("alpha\nbeta\ngamma\nmore\n"); c.SetResult(c.Result() + "more\n") }},
		{"edits that do not make the result", []TextEdit{{0, 4, "BETA"}}, func(*FileChange) {}},
		{"edits that overlap", []TextEdit{{6, 10, "BE"}, {8, 10, "TA"}}, func(*FileChange) {}},
		{"edits outside the text", []TextEdit{{6, 99, "BETA"}}, func(*FileChange) {}},
		{"edits out of order", []TextEdit{{12, 12, ""}, {6, 10, "BETA"}}, func(*FileChange) {}},
		{"a second write without edits", good, func(c *FileChange) {}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var cs Changeset
			cs.WriteEdits("f", base, true, 1, result, tc.write)
			if tc.name == "a second write without edits" {
				cs.Write("f", "", true, 1, "alpha\nBETA\nGAMMA\n")
			}
			c := cs.Changes[0]
			tc.change(c)
			es := c.TextEdits()
			if out := ApplyEdits(c.Base(), es); out != c.Result() {
				t.Errorf("the edits %v make %q, not the change's %q", es, out, c.Result())
			}
		})
	}
}

// TestComposeEdits checks composing random edits against applying them
// one after the other.
func TestComposeEdits(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	randomEdits := func(text string) []TextEdit {
		var es []TextEdit
		at := 0
		for at < len(text) && r.IntN(3) > 0 {
			start := at + r.IntN(min(8, len(text)-at)+1)
			end := min(start+r.IntN(4), len(text))
			es = append(es, TextEdit{start, end, []string{"", "x", "\n", "yz\n", "é"}[r.IntN(5)]})
			at = end + r.IntN(2)
		}
		return es
	}
	for i := range 5000 {
		base := "ab\ncd\nef\ngh\n"[:r.IntN(13)]
		first := randomEdits(base)
		mid := ApplyEdits(base, first)
		second := randomEdits(mid)
		want := ApplyEdits(mid, second)
		got := composeEdits(base, mid, first, second)
		if out := ApplyEdits(base, got); out != want || !editsFit(base, want, got) || !slices.IsSortedFunc(got, func(a, b TextEdit) int { return a.Start - b.Start }) {
			t.Fatalf("case %d: base %q, first %v, second %v: composed %v makes %q, want %q", i, base, first, second, got, out, want)
		}
	}
}

// TestDiffEditsAreMinimalEdits checks the diff a change made without its
// edits is sent by against MinimalEdits, on changes at the start, the
// middle and the end of texts longer and shorter than a compared block.
func TestDiffEditsAreMinimalEdits(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for i := range 3000 {
		var b strings.Builder
		for range r.IntN(200) {
			b.WriteString([]string{"a", "b", "\n", "\r\n", "é", "😀", "line\n"}[r.IntN(7)])
		}
		before := b.String()
		after := before
		for range 1 + r.IntN(3) {
			at := r.IntN(len(after) + 1)
			end := min(len(after), at+r.IntN(5))
			after = after[:at] + []string{"", "x", "\n", "é\n", "line\n"}[r.IntN(5)] + after[end:]
		}
		got, want := diffEdits(before, after), MinimalEdits(before, after)
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("case %d: diffEdits(%q, %q) = %v, MinimalEdits gives %v", i, before, after, got, want)
		}
	}
}

// BenchmarkTextEditsDiff measures the edits of a change made without
// them (a save, an anchored patch, a rebase): one line changed in the
// middle of texts of growing size. "MinimalEdits" is the same diff with
// its byte-at-a-time prefix and suffix scans.
func BenchmarkTextEditsDiff(b *testing.B) {
	for _, size := range []int{10 << 10, 1 << 20, 10 << 20} {
		before := benchFile(size)
		h := middleHunk(before, -1)
		after, err := ApplyHunks(before, []Hunk{h})
		if err != nil {
			b.Fatal(err)
		}
		for _, tc := range []struct {
			name string
			diff func(before, after string) []TextEdit
		}{{"diffEdits", diffEdits}, {"MinimalEdits", MinimalEdits}} {
			b.Run(sizeLabel(size)+"/"+tc.name, func(b *testing.B) {
				b.SetBytes(int64(size))
				for b.Loop() {
					if es := tc.diff(before, after); len(es) != 1 {
						b.Fatalf("%d edits, want 1", len(es))
					}
				}
			})
		}
	}
}

// FuzzPositions checks TextPositions and Buffer.Positions against a
// Mapper on any text, at every offset.
func FuzzPositions(f *testing.F) {
	for _, text := range positionTexts() {
		f.Add(text)
	}
	f.Fuzz(func(t *testing.T, text string) {
		m := NewMapper(text)
		offsets := make([]int, len(text)+1)
		for i := range offsets {
			offsets[i] = i
		}
		for _, enc := range []Encoding{UTF16, UTF8, UTF32} {
			got, err := TextPositions(text, offsets, enc)
			if err != nil {
				t.Fatal(err)
			}
			fromBuffer, err := NewBuffer(text).Positions(offsets, enc)
			if err != nil {
				t.Fatal(err)
			}
			for off := range offsets {
				line, char, _ := m.Position(off, enc)
				if want := (Position{line, char}); got[off] != want || fromBuffer[off] != want {
					t.Fatalf("offset %d of %q (%v): TextPositions %v, Buffer.Positions %v, Mapper %v", off, text, enc, got[off], fromBuffer[off], want)
				}
			}
		}
	})
}

// TestEffectiveWithRecordedEdits: a change whose recorded edits make the
// text it started from (edits that cancel out) is no change; one of the
// same length that changes a byte is.
func TestEffectiveWithRecordedEdits(t *testing.T) {
	for _, tc := range []struct {
		name         string
		base, result string
		es           []TextEdit
		effective    bool
	}{
		{"edits that cancel out", "aa\n", "aa\n", []TextEdit{{0, 1, ""}, {2, 2, "a"}}, false},
		{"the same length, one byte changed", "x := 1\n", "x := 2\n", []TextEdit{{5, 6, "2"}}, true},
		{"longer", "x\n", "xy\n", []TextEdit{{1, 1, "y"}}, true},
		{"no edits", "x\n", "x\n", []TextEdit{}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var cs Changeset
			cs.WriteEdits("f", tc.base, true, 1, tc.result, tc.es)
			if got := len(cs.Effective()) == 1; got != tc.effective {
				t.Errorf("effective: %v, want %v", got, tc.effective)
			}
		})
	}
}
