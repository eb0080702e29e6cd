package anchored

import (
	"encoding/binary"
	"fmt"
	"math/bits"
	"strings"
	"sync"
	"unsafe"
)

// A ViewLine is one line of a rendered view.
type ViewLine struct {
	Line   int    `json:"line"` // 1-based
	Anchor string `json:"anchor"`
	Text   string `json:"text"` // without its line ending
}

// View returns the anchored lines from..to (1-based, inclusive; 0 for to
// means the end).
func View(text string, from, to int, opts Options) ([]ViewLine, error) {
	s := getState(opts)
	defer putState(s)
	s.load(text, false)
	from, to, err := clampRange(from, to, s.lines.Len())
	if err != nil {
		return nil, err
	}
	out := make([]ViewLine, 0, to-from+1)
	for i := from - 1; i < to; i++ {
		out = append(out, ViewLine{Line: i + 1, Anchor: string(s.table.appendShown(nil, i)), Text: s.lines.content(i)})
	}
	return out, nil
}

// RenderText renders lines from..to of text as the model reads them,
// "anchor│ text" per line.
func RenderText(text string, from, to int, opts Options) (string, error) {
	s := getState(opts)
	defer putState(s)
	s.load(text, false)
	return s.viewString(from, to)
}

// viewString writes lines from..to of the loaded text as a view, into
// memory of the exact size, which becomes the string without a copy.
func (s *state) viewString(from, to int) (string, error) {
	if s.lines.Len() == 0 {
		return "(empty file)\n", nil
	}
	from, to, err := clampRange(from, to, s.lines.Len())
	if err != nil {
		return "", err
	}
	b := s.writeView(unzeroed(s.renderSize(from, to)+viewSlack), from, to)
	return unsafe.String(unsafe.SliceData(b), len(b)), nil
}

// unzeroed returns an empty slice with room for n bytes whose memory is
// not cleared first, as strings.Builder.Grow allocates it: a view writes
// every byte it keeps, and clearing its memory first was 3–10% of a
// render. (The bytes past the view are never read.)
func unzeroed(n int) []byte {
	var b strings.Builder
	b.Grow(n)
	b.WriteByte(0) // so that the string has the memory's address
	return unsafe.Slice(unsafe.StringData(b.String()), n)[:0]
}

// state is what anchoring a text takes: its lines, their hashes and the
// anchor table. Kept from one text to the next, it allocates nothing once
// it has grown to the texts' size.
type state struct {
	opts  Options
	lines lineSet
	index Index // the hashes, unless the caller keeps them
	given Index // the caller's hashes (Options.Hashes), read only
	table Table

	hashes *Index // index or given: the hashes the table is built from
}

// states keeps the scratch of one-shot calls (View, RenderText, Apply) for
// the next: without it, each call on a 10 MB text would allocate, and the
// kernel zero, some 10 MB for offsets, hashes, digests and the key index.
// It holds no result, so sharing it is invisible to callers.
var states = sync.Pool{New: func() any { return new(state) }}

func getState(opts Options) *state {
	s := states.Get().(*state)
	s.opts = opts
	return s
}

// putState returns s to the pool, dropping its text, and its memory too
// if a huge text grew it beyond what is worth keeping.
func putState(s *state) {
	if cap(s.lines.start) > 1<<22 {
		return
	}
	s.lines.text, s.given.hashes, s.hashes = "", nil, nil
	states.Put(s)
}

// load splits, hashes and anchors text; with lookups, the table's key
// index is kept for looking tokens up.
func (s *state) load(text string, lookups bool) {
	s.loadDigests(text)
	s.settleKeys(lookups)
}

// loadDigests is load's first part: the lines and their final digests,
// nothing settled (Index.digests).
func (s *state) loadDigests(text string) {
	s.hashes = &s.index
	if h := s.opts.Hashes; h != nil {
		s.lines.split(text)
		if h.fits(&s.lines) {
			s.given = Index{opts: s.opts, hashes: h.hashes}
			s.hashes = &s.given
			s.given.digests(&s.table)
			return
		}
	}
	s.index.load(&s.lines, text, s.opts)
	s.index.digests(&s.table)
}

// settleKeys is load's second part (Index.settleKeys).
func (s *state) settleKeys(lookups bool) {
	s.hashes.settleKeys(&s.table, s.lines.content, lookups)
}

// fits reports whether the index could be that of the lines: the same
// number of lines, and the same hashes for a sample of 16 of them (a
// check against a caller's index falling out of step, not a proof).
func (ix *Index) fits(ls *lineSet) bool {
	n := ls.Len()
	if len(ix.hashes) != n {
		return false
	}
	const samples = 16
	for k := range min(n, samples) {
		i := k * (n - 1) / max(1, min(n, samples)-1)
		if ix.hashes[i] != ix.opts.hash(ls.content(i)) {
			return false
		}
	}
	return true
}

// renderSize bounds the size of the view of lines from..to (1-based):
// their bytes, each anchor with its separator, a line ending for a last
// line without one, and the special anchors' extra characters (the
// lengthened, ordinal and ambiguous ones, looked at one by one: they are
// rare). It is exact for a text without "\r\n" line endings.
func (s *state) renderSize(from, to int) int {
	t := &s.table
	size := s.lines.start[to] - s.lines.start[from-1] + (to-from+1)*(t.width+len("│ ")) + 1
	if t.special != nil {
		var token [maxWidth + 16]byte
		for w := (from - 1) / 64; w <= (to-1)/64; w++ {
			for word := t.special[w]; word != 0; word &= word - 1 {
				if i := w*64 + bits.TrailingZeros64(word); i >= from-1 && i < to {
					size += len(t.appendShown(token[:0], i)) - t.width
				}
			}
		}
	}
	return size
}

// writeView appends lines from..to as appendView does to b, whose
// capacity must hold renderSize(from, to)+viewSlack more bytes; a view of many lines
// is written in two halves at once, the second where the first's bound
// ends, and moved down after it if the first came out shorter (only "\r\n"
// endings, which the view drops, make it so).
func (s *state) writeView(b []byte, from, to int) []byte {
	n := to - from + 1
	if workersFor(n) == 1 {
		return s.appendView(b, from, to)
	}
	mid := from + n/2 // the second half's first line
	base, bound := len(b), s.renderSize(from, mid-1)
	// The first half writes within its bound only: its slack would be
	// the second half's first bytes.
	first, second := b[base:base:base+bound], b[base+bound:base+bound:cap(b)]
	onWorkers(2, func(w int) {
		if w == 0 {
			first = s.appendView(first, from, mid-1)
		} else {
			second = s.appendView(second, mid, to)
		}
	})
	if len(first) < bound {
		copy(b[base+len(first):cap(b)], second)
	}
	return b[:base+len(first)+len(second)]
}

// A Renderer renders views, keeping its memory from one view to the next:
// a caller that renders often (a server, per document) allocates nothing
// once it has grown to the document's size.
type Renderer struct {
	Options Options
	state   *state
	out     []byte

	// The text of the last Render, and the width its anchors were
	// made with, while state holds its settled anchor table (Apply).
	rendered      string
	renderedWidth int
	kept          bool
}

// load anchors text in the Renderer's state, which then keeps its anchor
// table for Apply on the same text.
func (r *Renderer) load(text string) *state {
	if r.state == nil {
		r.state = new(state)
	}
	s := r.state
	s.opts = r.Options
	s.load(text, false)
	r.rendered, r.renderedWidth, r.kept = text, r.Options.Width, true
	return s
}

// Render renders lines from..to of text, "anchor│ text" per line. The
// result is valid until the next Render.
func (r *Renderer) Render(text string, from, to int) ([]byte, error) {
	s := r.load(text)
	if s.lines.Len() == 0 {
		return []byte("(empty file)\n"), nil
	}
	from, to, err := clampRange(from, to, s.lines.Len())
	if err != nil {
		return nil, err
	}
	if size := s.renderSize(from, to) + viewSlack; cap(r.out) < size {
		r.out = make([]byte, 0, size)
	}
	r.out = s.writeView(r.out[:0], from, to)
	return r.out, nil
}

// Apply applies ops to text as Apply does. When text is the text of the
// last Render, byte for byte (compared in full, unless it is the very
// same string), the anchors are resolved through the table that render
// built, without finding, hashing and widening the lines again: the ops
// are resolved against exactly what the model was shown. Any other text
// is anchored afresh, so a changed text never resolves against a stale
// table. The last Render's result stays valid.
func (r *Renderer) Apply(text string, ops []Op) (Result, error) {
	if r.kept && r.renderedWidth == r.Options.Width && text == r.rendered {
		return r.state.apply(ops, true)
	}
	if r.state == nil {
		r.state = new(state)
	}
	r.kept, r.rendered = false, "" // the table is about to hold another text
	s := r.state
	s.opts = r.Options
	s.loadDigests(text)
	return s.apply(ops, false)
}

// appendView appends lines from..to as the model reads them, "anchor│
// text" per line, to b, within b's capacity, which must hold
// renderSize(from, to) more bytes; viewSlack more let short lines be
// copied 32 bytes at a time. This loop is most of a render's time
// after the anchors, so the common anchor (DefaultWidth, nothing special)
// and its separator are two stores, and a line's first 32 bytes are four
// word copies (the bytes past its end are overwritten by what follows):
// most lines of code need no call of memmove.
func (s *state) appendView(b []byte, from, to int) []byte {
	t, text, start := &s.table, s.lines.text, s.lines.start[from-1:to+1]
	tops, special, noCR := t.tops, t.special, s.lines.noCR
	plain := t.width == DefaultWidth
	out, o := b[len(b):cap(b)], 0
	for k := range to - from + 1 {
		i := from - 1 + k
		if plain && (special == nil || special[i/64]&(1<<(i%64)) == 0) {
			putDefault(out[o:o+10], tops[i])
			o += 10
		} else {
			o += len(t.appendShown(out[o:o], i))
			o += copy(out[o:], "│ ")
		}
		a, e := start[k], start[k+1]
		switch {
		case noCR && e < len(text):
			e-- // a line ending in "\n", as all but the last are
		case e > a && text[e-1] == '\n':
			e--
			if e > a && text[e-1] == '\r' {
				e--
			}
		}
		if a+32 <= len(text) && o+32 <= len(out) {
			// Thirty-two bytes in four words, and the rest of a longer line.
			w := text[a : a+32]
			d := out[o : o+32]
			binary.LittleEndian.PutUint64(d[0:], loadWord(w, 0))
			binary.LittleEndian.PutUint64(d[8:], loadWord(w, 8))
			binary.LittleEndian.PutUint64(d[16:], loadWord(w, 16))
			binary.LittleEndian.PutUint64(d[24:], loadWord(w, 24))
			if e-a > 32 {
				copy(out[o+32:], text[a+32:e])
			}
			o += e - a
		} else {
			o += copy(out[o:], text[a:e])
		}
		out[o] = '\n'
		o++
	}
	return b[:len(b)+o]
}

// viewSlack is how many bytes past a view's bound appendView may write.
const viewSlack = 32

// putDefault writes the DefaultWidth characters of a digest whose top is
// top and the separator "│ " into b's 10 bytes: three lookups of two
// characters each, and two stores.
func putDefault(b []byte, top uint64) {
	_ = b[9]
	binary.LittleEndian.PutUint64(b, uint64(crockfordPairs[top>>54])|
		uint64(crockfordPairs[top>>44&1023])<<16|uint64(crockfordPairs[top>>34&1023])<<32|
		0xe2<<48|0x94<<56) // "│" is e2 94 82
	b[8], b[9] = 0x82, ' '
}

// crockfordPairs holds the two characters of every 10-bit value, the first
// in the low byte. It is computed once and never changed.
var crockfordPairs = func() (pairs [1024]uint16) {
	for v := range pairs {
		pairs[v] = uint16(crockford[v>>5]) | uint16(crockford[v&31])<<8
	}
	return pairs
}()

// appendShown appends line i's anchor as shown: an ambiguous one is
// marked, so the model addresses that line another way.
func (t *Table) appendShown(b []byte, i int) []byte {
	b = t.AppendToken(b, i)
	if !t.isSpecial(i) {
		return b
	}
	if t.Ambiguous(i) {
		b = append(b, '?')
	}
	return b
}

func clampRange(from, to, n int) (int, int, error) {
	if from <= 0 {
		from = 1
	}
	if to <= 0 || to > n {
		to = n
	}
	if n > 0 && from > n {
		return 0, 0, fmt.Errorf("line %d is past the end of the file (%d lines)", from, n)
	}
	if from > to && n > 0 {
		return 0, 0, fmt.Errorf("the range %d:%d is empty", from, to)
	}
	return from, to, nil
}

// Render writes view lines as the model reads them: "anchor│ text".
func Render(view []ViewLine) string {
	if len(view) == 0 {
		return "(empty file)\n"
	}
	var b strings.Builder
	n := 0
	for _, l := range view {
		n += len(l.Anchor) + len(l.Text) + 5
	}
	b.Grow(n)
	for _, l := range view {
		b.WriteString(l.Anchor)
		b.WriteString("│ ")
		b.WriteString(l.Text)
		b.WriteByte('\n')
	}
	return b.String()
}
