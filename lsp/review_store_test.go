package lsp

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agentls/agentls/edits"
)

// publishCounter is a client that takes notifications and counts the
// diagnostics published.
type publishCounter struct {
	jsonrpc2.Conn
	mu        sync.Mutex
	published int
	last      map[protocol.DocumentURI][]protocol.Diagnostic
}

func (c *publishCounter) Notify(_ context.Context, method string, params any) error {
	if method != protocol.MethodTextDocumentPublishDiagnostics {
		return nil
	}
	p := params.(*protocol.PublishDiagnosticsParams)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.published++
	if c.last == nil {
		c.last = map[protocol.DocumentURI][]protocol.Diagnostic{}
	}
	c.last[p.URI] = p.Diagnostics
	return nil
}

func (c *publishCounter) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.published
}

// reviewServer is a server initialized on a temporary workspace holding
// one open document, big.go, with text (not on disk), and a client that
// counts what is published.
func reviewServer(t testing.TB, text string) (*Server, *publishCounter, protocol.DocumentURI) {
	t.Helper()
	home := t.TempDir() // the settings and state folders
	s := newServer(Options{Getenv: func(key string) string {
		if key == "HOME" || key == "XDG_CONFIG_HOME" || key == "XDG_STATE_HOME" {
			return home
		}
		return ""
	}})
	conn := &publishCounter{}
	s.conn, s.ctx = conn, context.Background()
	root := cleanFile(t.TempDir())
	if _, err := s.initialize(context.Background(), &initializeParams{RootURI: protocol.DocumentURI(uri.File(root))}); err != nil {
		t.Fatal(err)
	}
	u := protocol.DocumentURI(uri.File(filepath.Join(root, "big.go")))
	s.didOpen(context.Background(), &protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{URI: u, Version: 1, Text: text}})
	return s, conn, u
}

// numbered is a Go file of n distinct lines.
func numbered(n int) string {
	var b strings.Builder
	b.WriteString("package p\n\n")
	for i := range n {
		fmt.Fprintf(&b, "func f%d() int { return %d }\n", i, i)
	}
	return b.String()
}

// withChanges changes hunks lines of numbered(lines), evenly spread.
func withChanges(text string, lines, hunks int) string {
	for i := range hunks {
		n := (i*lines/hunks + lines/(2*hunks)) % lines
		line := fmt.Sprintf("func f%d() int { return %d }\n", n, n)
		text = strings.Replace(text, line, fmt.Sprintf("func f%d() int { return %d + 1 }\n", n, n), 1)
	}
	return text
}

// BenchmarkDidChangeReview measures one keystroke in a document with 100
// pending review hunks, in documents of growing size, including the
// diagnostics it republishes (the background work is waited for): a
// character typed and deleted on a line between hunks ("char"), and a
// line break typed and deleted above every hunk, which moves them all
// ("newline"). Neither should grow with the document. "whole-text" is the
// character sent as the whole new text (editors without incremental
// sync): that costs the document's size, in the copy and the diff.
func BenchmarkDidChangeReview(b *testing.B) {
	const hunks = 100
	for _, kind := range []string{"char", "newline", "whole-text"} {
		for _, lines := range []int{1_000, 10_000, 50_000} {
			b.Run(fmt.Sprintf("%s/%dlines", kind, lines), func(b *testing.B) {
				text := numbered(lines)
				s, _, u := reviewServer(b, text)
				if n := s.queue(context.Background(), []*edits.FileChange{edits.NewModify("big.go", text, 0, withChanges(text, lines, hunks))}); n != hunks {
					b.Fatalf("queued %d hunks, want %d", n, hunks)
				}
				s.wg.Wait()
				// Line 1 is the blank line after the package clause: above
				// every hunk, in none.
				key, insert := "x", protocol.Range{Start: at(1, 0), End: at(1, 0)}
				remove := protocol.Range{Start: at(1, 0), End: at(1, 1)}
				if kind == "newline" {
					key, remove.End = "\n", at(2, 0)
				}
				typedText := strings.Replace(text, "\n\n", "\nx\n", 1)
				v := int32(1)
				for b.Loop() {
					v++
					change := contentChange{Range: &insert, Text: key}
					if v%2 == 1 {
						change = contentChange{Range: &remove}
					}
					if kind == "whole-text" {
						change = contentChange{Text: typedText}
						if v%2 == 1 {
							change.Text = text
						}
					}
					s.didChange(context.Background(), &didChangeParams{
						TextDocument:   protocol.VersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: u}, Version: v},
						ContentChanges: []contentChange{change},
					})
					s.wg.Wait()
				}
			})
		}
	}
}

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
func applyTyped(t *testing.T, buf *edits.Buffer, changes []userChange, enc edits.Encoding) (*edits.Buffer, []reviewStep) {
	t.Helper()
	var steps []reviewStep
	for _, c := range changes {
		before := buf
		if c.whole {
			buf = edits.NewBuffer(c.text)
			steps = append(steps, reviewStep{before: before, after: buf, whole: true})
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
		steps = append(steps, reviewStep{before: before, after: buf, first: int(c.from.Line), last: int(c.to.Line)})
	}
	return buf, steps
}

// storeOn is a review store holding the hunks of the change text → to in
// a.go, placed on buf.
func storeOn(t *testing.T, buf *edits.Buffer, to string, enc edits.Encoding) *review {
	t.Helper()
	r := &review{}
	for _, h := range edits.UniqueHunks(buf.Text(), to) {
		r.add(&pendingHunk{path: "a.go", hunk: h})
	}
	todo, full := r.toPlace("a.go", buf)
	if !r.install("a.go", buf, full, placeAll(buf, todo, enc)) {
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

func wheres(t *testing.T, hs []placedHunk) []where {
	t.Helper()
	var out []where
	for _, h := range hs {
		if !h.placed {
			t.Fatalf("hunk %d is not placed", h.id)
		}
		if h.conflict {
			out = append(out, where{conflict: true})
		} else {
			out = append(out, where{int(h.rng.Start.Line), int(h.rng.End.Line), false})
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
				var steps []reviewStep
				buf, steps = applyTyped(t, buf, change, enc)
				republish = r.follow("a.go", steps, enc)
			}
			got, ok := r.placedOn("a.go", buf)
			if ok == tt.lost {
				t.Fatalf("the store follows the buffer after the changes: %v, want %v", ok, !tt.lost)
			}
			if tt.lost {
				todo, full := r.toPlace("a.go", buf)
				r.install("a.go", buf, full, placeAll(buf, todo, enc))
				got, _ = r.placedOn("a.go", buf)
			}
			if w := wheres(t, got); !slices.Equal(w, tt.want) {
				t.Errorf("hunks at %v, want %v\ntext:\n%s", w, tt.want, buf.Text())
			}
			if republish != tt.republish {
				t.Errorf("follow said republish = %v, want %v", republish, tt.republish)
			}
			whole := placeAll(buf, []*pendingHunk{got[0].pendingHunk, got[1].pendingHunk}, enc)
			same := whole[got[0].pendingHunk] == got[0].placement && whole[got[1].pendingHunk] == got[1].placement
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
	r := &review{}
	spans := []where{{10, 12, false}, {11, 11, false}, {40, 60, false}, {70, 70, false}, {80, 80, true}}
	got := map[*pendingHunk]placement{}
	for _, sp := range spans {
		h := &pendingHunk{path: "a.go", hunk: edits.Hunk{Original: []string{"line"}}}
		r.add(h)
		got[h] = placement{placed: true, conflict: sp.conflict, rng: protocol.Range{Start: at(sp.first, 0), End: at(sp.last, 4)}}
	}
	created := &pendingHunk{path: "a.go", create: true}
	r.add(created)
	got[created] = placement{placed: true}
	r.install("a.go", buf, true, got)
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
			hs, ok := r.overlapping("a.go", buf, tt.first, tt.last)
			if !ok {
				t.Fatal("the store does not follow the buffer it was placed on")
			}
			var ids []int
			for _, h := range hs {
				ids = append(ids, h.id)
			}
			if !slices.Equal(ids, tt.ids) {
				t.Errorf("hunks %v, want %v", ids, tt.ids)
			}
		})
	}
	if _, ok := r.overlapping("a.go", edits.NewBuffer(buf.Text()), 0, 100); ok {
		t.Error("the index answered for a buffer it does not follow")
	}
}

// TestReviewKeystrokes: through the server (no pipe), a keystroke that
// moves no pending hunk publishes nothing (the server republished the
// whole file's review on every keystroke, resolving each hunk on the whole
// document); one that moves them or breaks one publishes where they are
// now, and the code actions at their new lines offer them. A document
// opened after its hunks were queued has them placed on its text.
func TestReviewKeystrokes(t *testing.T) {
	base := "package p\n\nfunc a() {}\nvar x = 1\nfunc b() {}\n\nfunc c() {}\nvar y = 2\nfunc d() {}\n"
	agent := strings.Replace(strings.Replace(base, "var x = 1", "var x = 10", 1), "var y = 2", "var y = 20", 1)
	s, conn, u := reviewServer(t, base)
	if n := s.queue(context.Background(), []*edits.FileChange{edits.NewModify("big.go", base, 0, agent)}); n != 2 {
		t.Fatalf("queued %d hunks, want 2", n)
	}
	s.wg.Wait()
	steps := []struct {
		name      string
		change    contentChange
		republish bool
		want      []where // the pending diagnostics after it
	}{
		{"a character on a blank line above", contentChange{Range: &protocol.Range{Start: at(1, 0), End: at(1, 0)}, Text: " "}, false, []where{{3, 3, false}, {7, 7, false}}},
		{"a character at the end of the last line", contentChange{Range: &protocol.Range{Start: at(8, 11), End: at(8, 11)}, Text: " "}, false, []where{{3, 3, false}, {7, 7, false}}},
		{"a line break above", contentChange{Range: &protocol.Range{Start: at(1, 1), End: at(1, 1)}, Text: "\n"}, true, []where{{4, 4, false}, {8, 8, false}}},
		{"a character in the first hunk's line", contentChange{Range: &protocol.Range{Start: at(4, 0), End: at(4, 0)}, Text: "/"}, true, []where{{conflict: true}, {8, 8, false}}},
		{"another in it", contentChange{Range: &protocol.Range{Start: at(4, 0), End: at(4, 0)}, Text: "/"}, false, []where{{conflict: true}, {8, 8, false}}},
		{"both taken back", contentChange{Range: &protocol.Range{Start: at(4, 0), End: at(4, 2)}}, true, []where{{4, 4, false}, {8, 8, false}}},
	}
	for i, st := range steps {
		before := conn.count()
		s.didChange(context.Background(), &didChangeParams{
			TextDocument:   protocol.VersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: u}, Version: int32(2 + i)},
			ContentChanges: []contentChange{st.change},
		})
		s.wg.Wait()
		if republished := conn.count() > before; republished != st.republish {
			t.Errorf("%s: republished = %v, want %v", st.name, republished, st.republish)
		}
		conn.mu.Lock()
		diags := conn.last[s.fileURI("big.go")]
		conn.mu.Unlock()
		var got []where
		for _, d := range diags {
			if d.Severity == protocol.DiagnosticSeverityWarning {
				got = append(got, where{conflict: true})
			} else {
				got = append(got, where{int(d.Range.Start.Line), int(d.Range.End.Line), false})
			}
		}
		if !slices.Equal(got, st.want) {
			t.Errorf("%s: diagnostics at %v, want %v", st.name, got, st.want)
		}
		d, _ := s.docs.get(u)
		for id, w := range st.want {
			if w.conflict {
				continue
			}
			if acts := s.reviewActions(d, protocol.Range{Start: at(w.first, 0), End: at(w.first, 0)}); !hasAction(acts, fmt.Sprintf("Accept agent edit %d", id+1)) {
				t.Errorf("%s: no accept action for edit %d on line %d", st.name, id+1, w.first)
			}
		}
	}

	// Closed and opened again with the user's edit above: the hunks are
	// placed on the text it was opened with.
	d, _ := s.docs.get(u)
	s.didClose(context.Background(), &protocol.DidCloseTextDocumentParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}})
	s.didOpen(context.Background(), &protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{URI: u, Version: 0, Text: "// moved\n" + d.text()}})
	reopened, _ := s.docs.get(u)
	if acts := s.reviewActions(reopened, protocol.Range{Start: at(9, 0), End: at(9, 0)}); !hasAction(acts, "Accept agent edit 2") {
		t.Errorf("after reopening, no accept action for edit 2 on line 9: %v", acts)
	}
	if acts := s.reviewActions(d, protocol.Range{Start: at(8, 0), End: at(8, 0)}); !hasAction(acts, "Reject all agent edits") {
		t.Errorf("a copy of the closed buffer got no review actions: %v", acts)
	}
}

func hasAction(actions []protocol.CodeAction, title string) bool {
	return slices.ContainsFunc(actions, func(a protocol.CodeAction) bool { return a.Title == title })
}

// BenchmarkReviewActions measures the review code actions for a range of
// a few lines in the server alone (no pipe, no JSON), with 100 pending
// hunks, in documents of growing size: the line index answers in a binary
// search, so it should not grow with the document. It reports the p99
// latency too.
func BenchmarkReviewActions(b *testing.B) {
	const hunks = 100
	for _, lines := range []int{1_000, 10_000, 50_000} {
		b.Run(fmt.Sprintf("%dlines", lines), func(b *testing.B) {
			text := numbered(lines)
			s, _, u := reviewServer(b, text)
			s.queue(context.Background(), []*edits.FileChange{edits.NewModify("big.go", text, 0, withChanges(text, lines, hunks))})
			s.wg.Wait()
			d, _ := s.docs.get(u)
			middle := 2 + hunks/2*lines/hunks + lines/(2*hunks) // the line of the middle hunk
			r := protocol.Range{Start: at(middle-2, 0), End: at(middle+2, 0)}
			if n := len(s.reviewActions(d, r)); n != 2+5 {
				b.Fatalf("%d review actions, want accept and reject for one hunk and 5 for the file and all", n)
			}
			lat := make([]time.Duration, 0, 1024)
			for b.Loop() {
				start := time.Now()
				s.reviewActions(d, r)
				lat = append(lat, time.Since(start))
			}
			slices.Sort(lat)
			b.ReportMetric(float64(lat[len(lat)*99/100].Nanoseconds()), "p99-ns")
		})
	}
}

// TestReviewConcurrent: keystrokes, code actions on copies of the
// document older than them, republishing and a hunk taken and put back
// (an accept that failed) all at once keep the store in step with the
// buffer: afterwards it holds what resolving every hunk on the whole text
// gives (run with -race).
func TestReviewConcurrent(t *testing.T) {
	const lines, hunks, keystrokes = 2_000, 20, 200
	text := numbered(lines)
	s, _, u := reviewServer(t, text)
	s.queue(context.Background(), []*edits.FileChange{edits.NewModify("big.go", text, 0, withChanges(text, lines, hunks))})
	s.wg.Wait()
	done := make(chan struct{})
	var readers sync.WaitGroup
	readers.Add(2)
	go func() {
		defer readers.Done()
		for {
			select {
			case <-done:
				return
			default:
			}
			d, _ := s.docs.get(u)
			s.reviewActions(d, protocol.Range{Start: at(lines/2, 0), End: at(lines/2+40, 0)})
			s.pendingDiagnostics(context.Background(), "big.go")
		}
	}()
	go func() {
		defer readers.Done()
		for {
			select {
			case <-done:
				return
			default:
			}
			s.review.putBack(s.review.take(reviewArgs{Hunk: 3}, s.relPathOfURI))
		}
	}()
	for v := int32(2); v < 2+keystrokes; v++ {
		change := contentChange{Range: &protocol.Range{Start: at(1, 0), End: at(1, 0)}, Text: "\n"}
		if v%2 == 1 {
			change = contentChange{Range: &protocol.Range{Start: at(int(v)%lines, 0), End: at(int(v)%lines, 0)}, Text: "// typed\n"}
		}
		s.didChange(context.Background(), &didChangeParams{
			TextDocument:   protocol.VersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: u}, Version: v},
			ContentChanges: []contentChange{change},
		})
	}
	close(done)
	readers.Wait()
	s.wg.Wait()
	d, _ := s.docs.get(u)
	got := s.placedHunks(context.Background(), "big.go")
	if len(got) != hunks {
		t.Fatalf("%d hunks pending, want %d", len(got), hunks)
	}
	var all []*pendingHunk
	for _, h := range got {
		all = append(all, h.pendingHunk)
	}
	whole := placeAll(d.buf, all, edits.UTF16) // the encoding without the client asking for another
	for _, h := range got {
		if whole[h.pendingHunk] != h.placement {
			t.Errorf("edit %d: the store has %+v, the whole text %+v", h.id, h.placement, whole[h.pendingHunk])
		}
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
		take      reviewArgs
		keystroke bool // a didChange while they are out
		placed    bool
	}{
		{"one hunk, the buffer unchanged", reviewArgs{Hunk: 1}, false, true},
		{"all the file's hunks, the buffer unchanged", reviewArgs{All: true}, false, true},
		{"one hunk, a keystroke meanwhile", reviewArgs{Hunk: 1}, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			buf := edits.NewBuffer(base)
			r := storeOn(t, buf, agent, edits.UTF16)
			before, _ := r.placedOn("a.go", buf)
			taken := r.take(tt.take, func(protocol.DocumentURI) (string, error) { return "a.go", nil })
			if tt.keystroke {
				var steps []reviewStep
				buf, steps = applyTyped(t, buf, []userChange{{from: at(0, 0), to: at(0, 0), text: "// x\n"}}, edits.UTF16)
				r.follow("a.go", steps, edits.UTF16)
			}
			r.putBack(taken)
			got, ok := r.placedOn("a.go", buf)
			if ok != tt.placed {
				t.Fatalf("every hunk placed on the buffer after putBack: %v, want %v", ok, tt.placed)
			}
			if ok && !slices.Equal(got, before) {
				t.Errorf("put back at %v, taken from %v", got, before)
			}
		})
	}
}
