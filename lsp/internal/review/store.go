package review

import (
	"cmp"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/edits"
	"github.com/agentls/agentls/lsp/internal/position"
)

// The review store holds the pending hunks and, per file, where each lies
// in the buffer the store follows (fileReview.on): code actions and
// diagnostics read positions from it instead of resolving every hunk
// against the whole document on each request. A didChange moves the
// positions (follow): hunks wholly before a change stay, hunks after it
// shift by its line delta, and only the hunks whose lines it touched (and
// the conflicts, which it may have mended) are resolved again, in a
// window of lines around the change. A buffer the store does not follow
// (a file opened after its hunks were queued, a copy older than a
// keystroke) has its hunks placed again, once, against the whole text.
//
// Lock order: the server's documents lock before Store.mu (didChange
// calls Follow with the documents locked); Store.mu is never held while
// taking another.

// A Pending is one change waiting for review. Its fields do not
// change once added, so it is shared outside the lock.
type Pending struct {
	ID   int    // given by Store.Add
	Path string // relative to the root
	Hunk edits.Hunk
	// Create and Remove mark a whole new or deleted file.
	Create, Remove bool
	Content        string // a created file's content
	// Summary is its diagnostic's message, made once (by Store.Add): the
	// diagnostics of every hunk of a file are published again when lines
	// move.
	Summary string
	// taken is where it lay, and on which buffer, when it was taken out
	// of the store (under Store.mu): an accept that fails puts it back
	// there rather than resolving it on the whole text again, where a
	// copy of its lines the user pasted would make it ambiguous.
	taken takenPlacement
}

// A takenPlacement is a hunk's Placement on the buffer it was made on.
type takenPlacement struct {
	Placement
	on *edits.Buffer
}

// A Placement is where a pending hunk lies in a file's text.
type Placement struct {
	Placed   bool // false until resolved against the text the store follows
	Conflict bool // its lines are no longer there: it can only be rejected
	// Range is the text the hunk replaces (whole lines, its context
	// included), in the server's position encoding.
	Range protocol.Range
}

// A Placed is a pending hunk and where it lies, copied out of the
// store (entries inside it change under Store.mu).
type Placed struct {
	*Pending
	Placement
}

// InText says the hunk changes lines of a file (not a whole new or
// deleted file).
func (h *Pending) InText() bool { return !h.Create && !h.Remove }

// fileReview is one file's pending hunks.
type fileReview struct {
	entries []*Placed // by id
	// on is the buffer the placements are for; nil when none is (the file
	// is not open, or the store lost step with it).
	on *edits.Buffer
	// byLine are the placed, not conflicting text hunks by start line
	// (then id): the index code actions search. maxSpan is the most lines
	// one of them covers, so a search starts that far above its range.
	byLine  []*Placed
	maxSpan int
	// whole are the hunks that create or delete the file: no lines.
	whole []*Placed
	// unplaced counts the hunks not placed on the buffer yet.
	unplaced int
}

// Store is the store of pending hunks. The zero value is empty.
type Store struct {
	mu     sync.Mutex
	next   int
	byFile map[string]*fileReview
}

// Add queues h, giving it its ID and Summary.
func (r *Store) Add(h *Pending) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.next++
	h.ID = r.next
	if h.InText() {
		h.Summary = fmt.Sprintf("agent edit %d (pending): %s", h.ID, describe(h.Hunk))
	}
	fr := r.fileLocked(h.Path)
	fr.entries = append(fr.entries, &Placed{Pending: h})
	fr.unplaced++
}

// fileLocked returns a file's hunks, made on first use (r.mu held).
func (r *Store) fileLocked(path string) *fileReview {
	if r.byFile == nil {
		r.byFile = map[string]*fileReview{}
	}
	fr := r.byFile[path]
	if fr == nil {
		fr = &fileReview{}
		r.byFile[path] = fr
	}
	return fr
}

// Has says whether a file has pending hunks.
func (r *Store) Has(path string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.byFile[path] != nil
}

// A Selector names hunks: all, one by id, or a file's.
type Selector struct {
	All  bool
	ID   int
	Path string // "" for none; a URI that names no workspace file selects nothing
}

func (sel Selector) matches(h *Pending) bool {
	return sel.All || sel.ID == h.ID || sel.Path != "" && sel.Path == h.Path
}

// Take removes and returns the hunks a selector names, by id.
func (r *Store) Take(sel Selector) []*Pending {
	r.mu.Lock()
	defer r.mu.Unlock()
	var taken []*Pending
	for path, fr := range r.byFile {
		kept := fr.entries[:0]
		for _, e := range fr.entries {
			if sel.matches(e.Pending) {
				e.taken = takenPlacement{e.Placement, fr.on}
				taken = append(taken, e.Pending)
			} else {
				kept = append(kept, e)
			}
		}
		if len(kept) == len(fr.entries) {
			continue
		}
		clear(fr.entries[len(kept):])
		fr.entries = kept
		if len(kept) == 0 {
			delete(r.byFile, path) // and the buffer it followed with it
		} else {
			fr.reindex()
		}
	}
	slices.SortFunc(taken, byID)
	return taken
}

// Peek returns the hunks a selector names, by id, leaving them pending.
func (r *Store) Peek(sel Selector) []*Pending {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []*Pending
	for _, fr := range r.byFile {
		for _, e := range fr.entries {
			if sel.matches(e.Pending) {
				out = append(out, e.Pending)
			}
		}
	}
	slices.SortFunc(out, byID)
	return out
}

func byID(a, b *Pending) int { return a.ID - b.ID }

// PutBack returns taken hunks to the store: where they lay when taken if
// the store still follows that buffer (or, their file's hunks all taken,
// it followed none since), else to be placed again: the buffer changed
// while they were out.
func (r *Store) PutBack(hs []*Pending) {
	r.mu.Lock()
	defer r.mu.Unlock()
	touched := map[*fileReview]bool{}
	for _, h := range hs {
		fr := r.fileLocked(h.Path)
		if len(fr.entries) == 0 && fr.on == nil {
			fr.on = h.taken.on
		}
		e := &Placed{Pending: h}
		if h.taken.on != nil && h.taken.on == fr.on {
			e.Placement = h.taken.Placement
		}
		h.taken = takenPlacement{}
		fr.entries = append(fr.entries, e)
		touched[fr] = true
	}
	for fr := range touched {
		slices.SortFunc(fr.entries, func(a, b *Placed) int { return byID(a.Pending, b.Pending) })
		fr.reindex()
	}
}

// Files returns the paths with pending hunks, by their first hunk's id.
func (r *Store) Files() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	type first struct {
		Path string
		ID   int
	}
	var fs []first
	for path, fr := range r.byFile {
		fs = append(fs, first{path, fr.entries[0].ID})
	}
	slices.SortFunc(fs, func(a, b first) int { return a.ID - b.ID })
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = f.Path
	}
	return out
}

// PlacedOn returns a file's hunks, by id, if every one is placed on buf:
// the store follows it.
func (r *Store) PlacedOn(path string, buf *edits.Buffer) ([]Placed, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	fr := r.byFile[path]
	if fr == nil {
		return nil, true
	}
	if buf == nil || fr.on != buf || fr.unplaced > 0 {
		return nil, false
	}
	out := make([]Placed, len(fr.entries))
	for i, e := range fr.entries {
		out[i] = *e
	}
	return out, true
}

// ToPlace returns the hunks of a file that need placing on buf: all of
// them (full) when the store follows another text, else those not placed
// yet (put back, or added since).
func (r *Store) ToPlace(path string, buf *edits.Buffer) (hs []*Pending, full bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	fr := r.byFile[path]
	if fr == nil {
		return nil, false
	}
	full = buf == nil || fr.on != buf
	for _, e := range fr.entries {
		if full || !e.Placed {
			hs = append(hs, e.Pending)
		}
	}
	return hs, full
}

// Install records placements made on buf, so that the store follows it.
// Placements of only some hunks (not full) are refused when the store
// moved on to another buffer meanwhile (a didChange): they are for a text
// it no longer follows. A full placement is taken even then; the next
// read sees the store on an older buffer and places them again.
func (r *Store) Install(path string, buf *edits.Buffer, full bool, got map[*Pending]Placement) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	fr := r.byFile[path]
	if fr == nil {
		return true // all taken meanwhile
	}
	if !full && fr.on != buf {
		return false
	}
	for _, e := range fr.entries {
		if p, ok := got[e.Pending]; ok {
			e.Placement = p
		} else if full {
			e.Placement = Placement{} // added meanwhile: not placed on buf
		}
	}
	fr.on = buf
	fr.reindex()
	return true
}

// WithPlacements returns a file's hunks, by id, placed as got says (a
// hunk not in it is unplaced): the answer for a text the store does not
// Follow (a file not open).
func (r *Store) WithPlacements(path string, got map[*Pending]Placement) []Placed {
	r.mu.Lock()
	defer r.mu.Unlock()
	fr := r.byFile[path]
	if fr == nil {
		return nil
	}
	out := make([]Placed, len(fr.entries))
	for i, e := range fr.entries {
		out[i] = Placed{Pending: e.Pending, Placement: got[e.Pending]}
	}
	return out
}

// Overlapping returns, by id, a file's hunks whose lines meet lines
// first..last of buf (a hunk starting at the start of line last+1 does,
// as the byte range up to it does), with the whole-file ones, which have
// no lines; ok is false when the store does not follow buf. It costs a
// binary search and the hunks starting near the range.
func (r *Store) Overlapping(path string, buf *edits.Buffer, first, last int) (hs []Placed, ok bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	fr := r.byFile[path]
	if fr == nil {
		return nil, true
	}
	if buf == nil || fr.on != buf || fr.unplaced > 0 {
		return nil, false
	}
	for _, e := range fr.whole {
		hs = append(hs, *e)
	}
	from := sort.Search(len(fr.byLine), func(i int) bool { return int(fr.byLine[i].Range.Start.Line) >= first-fr.maxSpan })
	for _, e := range fr.byLine[from:] {
		if int(e.Range.Start.Line) > last+1 {
			break
		}
		if Meets(e.Range, first, last) {
			hs = append(hs, *e)
		}
	}
	slices.SortFunc(hs, func(a, b Placed) int { return byID(a.Pending, b.Pending) })
	return hs, true
}

// Meets says whether a hunk's range meets lines first..last.
func Meets(rng protocol.Range, first, last int) bool {
	start, end := int(rng.Start.Line), int(rng.End.Line)
	return end >= first && (start <= last || start == last+1 && rng.Start.Character == 0)
}

// reindex rebuilds the line index from the placements.
func (fr *fileReview) reindex() {
	fr.byLine, fr.maxSpan, fr.whole, fr.unplaced = fr.byLine[:0], 0, fr.whole[:0], 0
	for _, e := range fr.entries {
		switch {
		case !e.Placed:
			fr.unplaced++
		case !e.InText():
			fr.whole = append(fr.whole, e)
		case !e.Conflict:
			fr.byLine = append(fr.byLine, e)
			fr.maxSpan = max(fr.maxSpan, int(e.Range.End.Line-e.Range.Start.Line))
		}
	}
	slices.SortFunc(fr.byLine, func(a, b *Placed) int {
		return cmp.Or(cmp.Compare(a.Range.Start.Line, b.Range.Start.Line), byID(a.Pending, b.Pending))
	})
}

// A Step is one content change of a didChange: the buffer before
// and after it, and the lines it replaced (from the start line to the
// end line of its range, in the text before); Whole is a change without
// a range, which replaced the whole text.
type Step struct {
	Before, After *edits.Buffer
	First, Last   int
	Whole         bool
}

// A lineStep says that lines first..last of a text became lines
// first..last+delta.
type lineStep struct{ first, last, delta int }

// lineSteps returns what a step did to the lines. A change of the whole
// text is diffed against the text before (editors that send whole texts
// pay a copy of it for every keystroke anyway), unless the two differ in
// more than wholeDiffBudget bytes (a file reloaded, reformatted): then ok
// is false, and the hunks are placed again on the new text.
func (st Step) lineSteps() (steps []lineStep, ok bool) {
	if !st.Whole {
		return []lineStep{{st.First, st.Last, st.After.Lines() - st.Before.Lines()}}, true
	}
	bt, at := st.Before.Text(), st.After.Text()
	// Only the lines between the common prefix and suffix are diffed.
	p, sfx := commonLines(bt, at)
	if max(len(bt), len(at))-p-sfx > wholeDiffBudget {
		return nil, false
	}
	es := edits.MinimalEdits(bt[p:len(bt)-sfx], at[p:len(at)-sfx])
	for i := range es {
		es[i].Start += p
		es[i].End += p
	}
	before, after := newLineCounter(bt), newLineCounter(at)
	steps = make([]lineStep, len(es))
	shift := 0 // where the text after has edit i: its offset in bt plus shift
	for i, e := range es {
		first, last := before.lineOf(e.Start), before.lineOf(e.End)
		newFirst, newLast := after.lineOf(e.Start+shift), after.lineOf(e.Start+shift+len(e.New))
		steps[i] = lineStep{first, last, (newLast - newFirst) - (last - first)}
		shift += len(e.New) - (e.End - e.Start)
	}
	// Last edit first: the lines of each are then as the text before has
	// them, which is how the steps of one didChange follow each other.
	slices.Reverse(steps)
	return steps, true
}

// wholeDiffBudget bounds the part of a whole-text change that is diffed
// to follow the hunks: a line diff of two large different texts costs far
// more than placing the hunks again.
const wholeDiffBudget = 256 << 10

// commonLines returns the length of the whole lines two texts start
// with and of the text they end with (not overlapping it). It compares in
// blocks first: a keystroke sent as the whole text leaves all but one
// line as it was. The edits found between them need not be whole lines:
// their lines are counted in the whole texts.
func commonLines(a, b string) (prefix, suffix int) {
	const block = 4 << 10
	n := min(len(a), len(b))
	for prefix+block <= n && a[prefix:prefix+block] == b[prefix:prefix+block] {
		prefix += block
	}
	for prefix < n && a[prefix] == b[prefix] {
		prefix++
	}
	prefix = strings.LastIndexByte(a[:prefix], '\n') + 1
	n -= prefix
	for suffix+block <= n && a[len(a)-suffix-block:len(a)-suffix] == b[len(b)-suffix-block:len(b)-suffix] {
		suffix += block
	}
	for suffix < n && a[len(a)-1-suffix] == b[len(b)-1-suffix] {
		suffix++
	}
	return prefix, suffix
}

// A lineCounter gives the lines of offsets in a text, asked for in
// increasing order, counting line breaks from the last one asked; a text
// with a carriage return (a lone "\r" ends a line too) is indexed instead.
type lineCounter struct {
	text      string
	off, line int
	withCR    *edits.Mapper
}

func newLineCounter(text string) *lineCounter {
	c := &lineCounter{text: text}
	if strings.IndexByte(text, '\r') >= 0 {
		c.withCR = edits.NewMapper(text)
	}
	return c
}

func (c *lineCounter) lineOf(off int) int {
	if c.withCR != nil {
		line, _, _ := c.withCR.Position(off, edits.UTF8)
		return line
	}
	if off < c.off {
		c.off, c.line = 0, 0
	}
	c.line += strings.Count(c.text[c.off:off], "\n")
	c.off = off
	return c.line
}

// A lineSpan is lines first..last.
type lineSpan struct{ first, last int }

// move carries a span through a step: it stays before the change, shifts
// after it, and when the change touched it becomes the union of the two
// (touched is then true).
func (sp lineSpan) move(st lineStep) (moved lineSpan, touched bool) {
	switch {
	case sp.last < st.first:
		return sp, false
	case sp.first > st.last:
		return lineSpan{sp.first + st.delta, sp.last + st.delta}, false
	default:
		return lineSpan{min(sp.first, st.first), max(sp.last+st.delta, st.last+st.delta, st.first)}, true
	}
}

// Follow moves a file's placements through the content changes of one
// didChange, so the store follows the buffer after them, and says whether
// any hunk's position or state changed (its diagnostics must be published
// again). When the store did not follow the buffer the changes started
// from, it lets go of it: the next read places the hunks again.
func (r *Store) Follow(path string, steps []Step, enc edits.Encoding) (changed bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	fr := r.byFile[path]
	if fr == nil || len(steps) == 0 {
		return false
	}
	if fr.on == nil || fr.on != steps[0].Before {
		fr.on = nil
		return true
	}
	after := steps[len(steps)-1].After
	var lines []lineStep
	for _, st := range steps {
		ls, ok := st.lineSteps()
		if !ok {
			fr.on = nil
			return true
		}
		lines = append(lines, ls...)
	}
	// The changed lines, as the text after has them: a conflict can only
	// be mended there.
	var touched []lineSpan
	for _, st := range lines {
		for i := range touched {
			touched[i], _ = touched[i].move(st)
		}
		touched = append(touched, lineSpan{st.first, max(st.last+st.delta, st.first)})
	}
	for _, e := range fr.entries {
		if !e.Placed || !e.InText() {
			continue
		}
		was := e.Placement
		if e.Conflict {
			for _, sp := range touched {
				if rng, ok := findNear(after, e.Hunk, sp, enc); ok {
					e.Placement = Placement{Placed: true, Range: rng}
					break
				}
			}
		} else {
			sp := lineSpan{int(e.Range.Start.Line), int(e.Range.End.Line)}
			dirty := false
			for _, st := range lines {
				var t bool
				sp, t = sp.move(st)
				dirty = dirty || t
			}
			switch {
			case !dirty:
				shift := sp.first - int(e.Range.Start.Line)
				e.Range.Start.Line = uint32(sp.first)
				e.Range.End.Line = uint32(int(e.Range.End.Line) + shift)
			default:
				// Its own lines changed: look for it where they are now,
				// then, if it is not there, in the whole text (once: it is
				// a conflict after that).
				rng, ok := findNear(after, e.Hunk, sp, enc)
				if !ok {
					rng, ok = findIn(after, e.Hunk, 0, after.Lines()-1, enc)
				}
				e.Placement = Placement{Placed: true, Conflict: !ok, Range: rng}
			}
		}
		changed = changed || e.Placement != was
	}
	fr.on = after
	if changed {
		fr.reindex()
	}
	return changed
}

// findNear looks for a hunk in the lines around a span: as far on each
// side as the hunk is long, and more, since a loose match may span more
// lines than the hunk has.
func findNear(buf *edits.Buffer, h edits.Hunk, sp lineSpan, enc edits.Encoding) (protocol.Range, bool) {
	pad := 2*len(h.Original) + 2
	return findIn(buf, h, sp.first-pad, sp.last+pad, enc)
}

// findIn resolves a hunk in lines first..last of buf (clipped to its
// lines). A match that reaches the window's first or last line, where
// those are not the text's, is not taken: the cut may have made it (the
// window's text ends with a line break the next line follows), and a
// match near the change never reaches that far.
func findIn(buf *edits.Buffer, h edits.Hunk, first, last int, enc edits.Encoding) (protocol.Range, bool) {
	n := buf.Lines()
	first, last = max(first, 0), min(last, n-1)
	if first > last {
		return protocol.Range{}, false
	}
	var text string
	if first == 0 && last == n-1 {
		text = buf.Text()
	} else {
		start, end, err := position.New(buf, enc).LineOffsets(first, last)
		if err == nil {
			text, err = buf.Slice(start, end)
		}
		if err != nil {
			return protocol.Range{}, false
		}
	}
	es, err := edits.ResolveHunks(text, []edits.Hunk{h})
	if err != nil || len(es) == 0 {
		return protocol.Range{}, false
	}
	rng, err := position.ForText(text, enc).Range(es[0].Start, es[len(es)-1].End)
	if err != nil || first > 0 && rng.Start.Line == 0 || last < n-1 && int(rng.End.Line) >= last-first {
		return protocol.Range{}, false
	}
	rng.Start.Line += uint32(first)
	rng.End.Line += uint32(first)
	return rng, true
}

// PlaceAll places hunks on a whole text.
func PlaceAll(buf *edits.Buffer, hs []*Pending, enc edits.Encoding) map[*Pending]Placement {
	got := make(map[*Pending]Placement, len(hs))
	for _, h := range hs {
		p := Placement{Placed: true}
		if h.InText() {
			var ok bool
			p.Range, ok = findIn(buf, h.Hunk, 0, buf.Lines()-1, enc)
			p.Conflict = !ok
		}
		got[h] = p
	}
	return got
}

// describe is a text hunk's diagnostic, after its id.
func describe(h edits.Hunk) string {
	return fmt.Sprintf("replace %d %s with %d — accept or reject it with a code action", len(h.Original), lines(len(h.Original)), len(h.Updated))
}

func lines(n int) string {
	if n == 1 {
		return "line"
	}
	return "lines"
}
