package review

import (
	"slices"
	"strings"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/edits"
)

// A userChange is one content change of a didChange, as an editor sends it:
// a range and its new text, or (whole) the whole new text.
type userChange struct {
	from, to protocol.Position
	text     string
	whole    bool
}

func at(line, char int) protocol.Position {
	return protocol.Position{Line: uint32(line), Character: uint32(char)}
}

// applyTyped applies the changes of one didChange to buf as didChange
// does, and returns the buffer after them with the steps the store is
// told.
func applyTyped(t *testing.T, buf *edits.Buffer, changes []userChange, enc edits.Encoding) (*edits.Buffer, []Step) {
	t.Helper()
	var steps []Step
	for _, c := range changes {
		before := buf
		if c.whole {
			buf = edits.NewBuffer(c.text)
			steps = append(steps, Step{Before: before, After: buf, Whole: true})
			continue
		}
		start, err := buf.Offset(int(c.from.Line), int(c.from.Character), enc)
		if err != nil {
			t.Fatal(err)
		}
		end, err := buf.Offset(int(c.to.Line), int(c.to.Character), enc)
		if err != nil {
			t.Fatal(err)
		}
		if buf, err = buf.Replace(start, end, c.text); err != nil {
			t.Fatal(err)
		}
		steps = append(steps, Step{Before: before, After: buf, First: int(c.from.Line), Last: int(c.to.Line)})
	}
	return buf, steps
}

// storeOn is a review store holding the hunks of the change text → to in
// a.go, placed on buf.
func storeOn(t *testing.T, buf *edits.Buffer, to string, enc edits.Encoding) *Store {
	t.Helper()
	r := &Store{}
	for _, h := range edits.UniqueHunks(buf.Text(), to) {
		r.Add(&Pending{Path: "a.go", Hunk: h})
	}
	todo, full := r.ToPlace("a.go", buf)
	if !r.Install("a.go", buf, full, PlaceAll(buf, todo, enc)) {
		t.Fatal("install refused on a fresh store")
	}
	return r
}

// where is a placed hunk as a test states it: its first and last line, or
// a conflict.
type where struct {
	first, last int
	conflict    bool
}

func wheres(t *testing.T, hs []Placed) []where {
	t.Helper()
	var out []where
	for _, h := range hs {
		if !h.Placed {
			t.Fatalf("hunk %d is not placed", h.ID)
		}
		if h.Conflict {
			out = append(out, where{conflict: true})
		} else {
			out = append(out, where{int(h.Range.Start.Line), int(h.Range.End.Line), false})
		}
	}
	return out
}

// TestReviewFollow: the store moves pending hunks with each didChange —
// hunks before a change stay, those after shift, those it touched are
// found again near it or become conflicts, and conflicts are mended where
// the user restores their lines — and says whether anything moved, so a
// keystroke elsewhere republishes nothing. Each case also checks the
// positions against resolving every hunk on the whole text afterwards
// (what the server did on every request before the store kept them).
func TestReviewFollow(t *testing.T) {
	// Lines 0-9; the agent changes lines 3 and 7.
	base := "package p\n\nfunc a() {}\nvar x = 1\nfunc b() {}\n\nfunc c() {}\nvar y = 2\nfunc d() {}\n"
	agent := strings.Replace(strings.Replace(base, "var x = 1", "var x = 10", 1), "var y = 2", "var y = 20", 1)
	tests := []struct {
		name      string
		edits     [][]userChange // didChanges, one after the other
		want      []where
		republish bool // after the last didChange
		// notWhole: the store's answer differs from resolving on the whole
		// text, on purpose (the case says why).
		notWhole bool
		// crlf: the file's lines end with "\r\n" (the changes' texts say
		// "\n", made "\r\n" too).
		crlf bool
		// lost: the store lets go of the buffer; the hunks are placed on
		// it again when next read.
		lost bool
	}{
		{name: "a character userChange on a line above moves nothing",
			edits: [][]userChange{{{from: at(1, 0), to: at(1, 0), text: "x"}}},
			want:  []where{{3, 3, false}, {7, 7, false}}},
		{name: "a character userChange below every hunk moves nothing",
			edits: [][]userChange{{{from: at(8, 11), to: at(8, 11), text: " // d"}}},
			want:  []where{{3, 3, false}, {7, 7, false}}},
		{name: "a line break above shifts both",
			edits:     [][]userChange{{{from: at(0, 9), to: at(0, 9), text: "\n"}}},
			want:      []where{{4, 4, false}, {8, 8, false}},
			republish: true},
		{name: "lines pasted between the hunks shift the second",
			edits:     [][]userChange{{{from: at(5, 0), to: at(5, 0), text: "// one\n// two\n"}}},
			want:      []where{{3, 3, false}, {9, 9, false}},
			republish: true},
		{name: "lines deleted above shift both up",
			edits:     [][]userChange{{{from: at(1, 0), to: at(3, 0), text: ""}}},
			want:      []where{{1, 1, false}, {5, 5, false}},
			republish: true},
		{name: "the line after a hunk edited: it stays",
			edits: [][]userChange{{{from: at(4, 0), to: at(4, 0), text: "// b\n"}}},
			want:  []where{{3, 3, false}, {8, 8, false}}, republish: true},
		{name: "a hunk's own line edited: a conflict",
			edits:     [][]userChange{{{from: at(3, 9), to: at(3, 9), text: "0"}}},
			want:      []where{{conflict: true}, {7, 7, false}},
			republish: true},
		{name: "typing on in a conflict's line: nothing to publish",
			edits: [][]userChange{
				{{from: at(3, 9), to: at(3, 9), text: "0"}},
				{{from: at(3, 10), to: at(3, 10), text: "0"}},
			},
			want: []where{{conflict: true}, {7, 7, false}}},
		{name: "the user undoes their change: the conflict is mended",
			edits: [][]userChange{
				{{from: at(3, 9), to: at(3, 9), text: "0"}},
				{{from: at(3, 9), to: at(3, 10), text: ""}},
			},
			want:      []where{{3, 3, false}, {7, 7, false}},
			republish: true},
		{name: "a hunk's line cut and pasted lower: found where it went",
			edits: [][]userChange{
				{{from: at(3, 0), to: at(4, 0), text: ""}},
				{{from: at(7, 0), to: at(7, 0), text: "var x = 1\n"}},
			},
			want:      []where{{7, 7, false}, {6, 6, false}},
			republish: true},
		{name: "a hunk's line inserted into: found again when the line is whole",
			edits:     [][]userChange{{{from: at(3, 0), to: at(3, 0), text: "// x\n"}}},
			want:      []where{{4, 4, false}, {8, 8, false}},
			republish: true},
		{name: "two changes in one didChange, the lower first (as VS Code sends them)",
			edits: [][]userChange{{
				{from: at(6, 0), to: at(6, 0), text: "// c\n"},
				{from: at(1, 0), to: at(1, 0), text: "// a\n"},
			}},
			want:      []where{{4, 4, false}, {9, 9, false}},
			republish: true},
		{name: "two changes in one didChange, the upper first",
			edits: [][]userChange{{
				{from: at(1, 0), to: at(1, 0), text: "// a\n"},
				{from: at(7, 0), to: at(7, 0), text: "// c\n"},
			}},
			want:      []where{{4, 4, false}, {9, 9, false}},
			republish: true},
		{name: "a whole-text change is diffed: the hunks shift",
			edits:     [][]userChange{{{whole: true, text: "// header\n" + base}}},
			want:      []where{{4, 4, false}, {8, 8, false}},
			republish: true},
		{name: "a whole-text change with lines added at the top and between the hunks",
			edits:     [][]userChange{{{whole: true, text: "// h\n" + strings.Replace(base, "func c", "// c\nfunc c", 1)}}},
			want:      []where{{4, 4, false}, {9, 9, false}},
			republish: true},
		{name: "a whole-text change destroying a hunk's line",
			edits:     [][]userChange{{{whole: true, text: strings.Replace(base, "var y = 2", "var y = 3", 1)}}},
			want:      []where{{3, 3, false}, {conflict: true}},
			republish: true},
		{name: "a line break above, in a CRLF file",
			edits:     [][]userChange{{{from: at(0, 9), to: at(0, 9), text: "\n"}}},
			want:      []where{{4, 4, false}, {8, 8, false}},
			republish: true, crlf: true},
		{name: "a whole-text change in a CRLF file",
			edits:     [][]userChange{{{whole: true, text: "// header\n" + base}}},
			want:      []where{{4, 4, false}, {8, 8, false}},
			republish: true, crlf: true},
		{name: "a whole-text change too large to diff: placed again on the new text",
			edits:     [][]userChange{{{whole: true, text: strings.Repeat("// a long header line to make the change large\n", 10_000) + base}}},
			want:      []where{{10_003, 10_003, false}, {10_007, 10_007, false}},
			republish: true, lost: true},
		{name: "everything deleted",
			edits:     [][]userChange{{{from: at(0, 0), to: at(9, 0), text: ""}}},
			want:      []where{{conflict: true}, {conflict: true}},
			republish: true},
		{name: "a copy of a hunk's line pasted elsewhere: it stays where it is",
			// On the whole text its line is no longer unique: resolving
			// there would make it a conflict; the store knows which it is.
			edits:    [][]userChange{{{from: at(8, 11), to: at(8, 11), text: "\nvar x = 1"}}},
			want:     []where{{3, 3, false}, {7, 7, false}},
			notWhole: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			enc := edits.UTF16
			eol := func(s string) string { return s }
			if tt.crlf {
				eol = func(s string) string { return strings.ReplaceAll(s, "\n", "\r\n") }
			}
			buf := edits.NewBuffer(eol(base))
			r := storeOn(t, buf, eol(agent), enc)
			var republish bool
			for _, change := range tt.edits {
				for i := range change {
					change[i].text = eol(change[i].text)
				}
				var steps []Step
				buf, steps = applyTyped(t, buf, change, enc)
				republish = r.Follow("a.go", steps, enc)
			}
			got, ok := r.PlacedOn("a.go", buf)
			if ok == tt.lost {
				t.Fatalf("the store follows the buffer after the changes: %v, want %v", ok, !tt.lost)
			}
			if tt.lost {
				todo, full := r.ToPlace("a.go", buf)
				r.Install("a.go", buf, full, PlaceAll(buf, todo, enc))
				got, _ = r.PlacedOn("a.go", buf)
			}
			if w := wheres(t, got); !slices.Equal(w, tt.want) {
				t.Errorf("hunks at %v, want %v\ntext:\n%s", w, tt.want, buf.Text())
			}
			if republish != tt.republish {
				t.Errorf("follow said republish = %v, want %v", republish, tt.republish)
			}
			whole := PlaceAll(buf, []*Pending{got[0].Pending, got[1].Pending}, enc)
			same := whole[got[0].Pending] == got[0].Placement && whole[got[1].Pending] == got[1].Placement
			if same == tt.notWhole {
				t.Errorf("the store's placements %v; on the whole text %v (expected them to differ: %v)", got, whole, tt.notWhole)
			}
		})
	}
}

// TestFindIn: a hunk is looked for in a window of lines; a match the cut
// made (the window's text ends with a line break, as if the file ended
// there) is not taken.
func TestFindIn(t *testing.T) {
	text := "a\n}\nb\n}\n\nc\n"
	h := edits.Hunk{Original: []string{"}", ""}, Updated: []string{"} // x", ""}}
	tests := []struct {
		name        string
		first, last int
		want        where
		found       bool
	}{
		{"the whole text", 0, 6, where{3, 4, false}, true},
		{"a window around it", 2, 5, where{3, 4, false}, true},
		{"a window ending after the first brace: the end of the window is no empty line", 0, 1, where{}, false},
		{"a window that starts inside the match", 4, 6, where{}, false},
		{"a window past the end", 5, 40, where{}, false},
		{"an empty window", 3, 2, where{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rng, ok := findIn(edits.NewBuffer(text), h, tt.first, tt.last, edits.UTF16)
			if ok != tt.found {
				t.Fatalf("found = %v (at %v), want %v", ok, rng, tt.found)
			}
			if got := (where{int(rng.Start.Line), int(rng.End.Line), false}); ok && got != tt.want {
				t.Errorf("found at %v, want %v", got, tt.want)
			}
		})
	}
}

// TestReviewOverlapping: a code action's range finds the hunks whose lines
// it meets in the line index, overlapping hunks (two agent turns on the
// same lines) included, and the whole-file ones everywhere; a buffer the
// store does not follow gets no answer from the index.
func TestReviewOverlapping(t *testing.T) {
	buf := edits.NewBuffer(strings.Repeat("line\n", 100))
	r := &Store{}
	spans := []where{{10, 12, false}, {11, 11, false}, {40, 60, false}, {70, 70, false}, {80, 80, true}}
	got := map[*Pending]Placement{}
	for _, sp := range spans {
		h := &Pending{Path: "a.go", Hunk: edits.Hunk{Original: []string{"line"}}}
		r.Add(h)
		got[h] = Placement{Placed: true, Conflict: sp.conflict, Range: protocol.Range{Start: at(sp.first, 0), End: at(sp.last, 4)}}
	}
	created := &Pending{Path: "a.go", Create: true}
	r.Add(created)
	got[created] = Placement{Placed: true}
	r.Install("a.go", buf, true, got)
	tests := []struct {
		name        string
		first, last int
		ids         []int
	}{
		{"above every hunk", 0, 5, []int{6}},
		{"the line just above a hunk", 9, 9, []int{1, 6}}, // the range runs to the start of line 10
		{"inside two overlapping hunks", 11, 11, []int{1, 2, 6}},
		{"the last line of the first", 12, 12, []int{1, 6}},
		{"inside a long hunk, far from its start", 55, 55, []int{3, 6}},
		{"across several", 12, 70, []int{1, 3, 4, 6}},
		{"a conflict's last line: it has no place", 80, 80, []int{6}},
		{"past the end", 200, 300, []int{6}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hs, ok := r.Overlapping("a.go", buf, tt.first, tt.last)
			if !ok {
				t.Fatal("the store does not follow the buffer it was placed on")
			}
			var ids []int
			for _, h := range hs {
				ids = append(ids, h.ID)
			}
			if !slices.Equal(ids, tt.ids) {
				t.Errorf("hunks %v, want %v", ids, tt.ids)
			}
		})
	}
	if _, ok := r.Overlapping("a.go", edits.NewBuffer(buf.Text()), 0, 100); ok {
		t.Error("the index answered for a buffer it does not follow")
	}
}

// TestReviewPutBack: hunks taken out for an accept that failed come back
// where they lay when the store still follows that buffer, even when they
// were all the file had; after a keystroke they are placed again.
func TestReviewPutBack(t *testing.T) {
	base := "package p\n\nvar x = 1\nvar y = 2\n"
	agent := "package p\n\nvar x = 10\nvar y = 20\n"
	tests := []struct {
		name      string
		take      Selector
		keystroke bool // a didChange while they are out
		placed    bool
	}{
		{"one hunk, the buffer unchanged", Selector{ID: 1}, false, true},
		{"all the file's hunks, the buffer unchanged", Selector{All: true}, false, true},
		{"one hunk, a keystroke meanwhile", Selector{ID: 1}, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			buf := edits.NewBuffer(base)
			r := storeOn(t, buf, agent, edits.UTF16)
			before, _ := r.PlacedOn("a.go", buf)
			taken := r.Take(tt.take)
			if tt.keystroke {
				var steps []Step
				buf, steps = applyTyped(t, buf, []userChange{{from: at(0, 0), to: at(0, 0), text: "// x\n"}}, edits.UTF16)
				r.Follow("a.go", steps, edits.UTF16)
			}
			r.PutBack(taken)
			got, ok := r.PlacedOn("a.go", buf)
			if ok != tt.placed {
				t.Fatalf("every hunk placed on the buffer after putBack: %v, want %v", ok, tt.placed)
			}
			if ok && !slices.Equal(got, before) {
				t.Errorf("put back at %v, taken from %v", got, before)
			}
		})
	}
}
