package lsp

import (
	"cmp"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/edits"
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
// Lock order: documents.mu before review.mu (didChange calls follow with
// the documents locked); review.mu is never held while taking another.

// A pendingHunk is one change waiting for review. Its fields do not
// change once added, so it is shared outside the lock.
type pendingHunk struct {
	id   int
	path string // relative to the root
	hunk edits.Hunk
	// create and remove mark a whole new or deleted file.
	create, remove bool
	content        string // a created file's content
	// summary is its diagnostic's message, made once: the diagnostics of
	// every hunk of a file are published again when lines move.
	summary string
	// taken is where it lay, and on which buffer, when it was taken out
	// of the store (under review.mu): an accept that fails puts it back
	// there rather than resolving it on the whole text again, where a
	// copy of its lines the user pasted would make it ambiguous.
	taken takenPlacement
}

// A takenPlacement is a hunk's placement on the buffer it was made on.
type takenPlacement struct {
	placement
	on *edits.Buffer
}

// A placement is where a pending hunk lies in a file's text.
type placement struct {
	placed   bool // false until resolved against the text the store follows
	conflict bool // its lines are no longer there: it can only be rejected
	// rng is the text the hunk replaces (whole lines, its context
	// included), in the server's position encoding.
	rng protocol.Range
}

// A placedHunk is a pending hunk and where it lies, copied out of the
// store (entries inside it change under review.mu).
type placedHunk struct {
	*pendingHunk
	placement
}

// inText says the hunk changes lines of a file (not a whole new or
// deleted file).
func (h *pendingHunk) inText() bool { return !h.create && !h.remove }

// fileReview is one file's pending hunks.
type fileReview struct {
	entries []*placedHunk // by id
	// on is the buffer the placements are for; nil when none is (the file
	// is not open, or the store lost step with it).
	on *edits.Buffer
	// byLine are the placed, not conflicting text hunks by start line
	// (then id): the index code actions search. maxSpan is the most lines
	// one of them covers, so a search starts that far above its range.
	byLine  []*placedHunk
	maxSpan int
	// whole are the hunks that create or delete the file: no lines.
	whole []*placedHunk
	// unplaced counts the hunks not placed on the buffer yet.
	unplaced int
}

// review is the store of pending hunks. The zero value is empty.
type review struct {
	mu     sync.Mutex
	next   int
	byFile map[string]*fileReview
}

func (r *review) add(h *pendingHunk) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.next++
	h.id = r.next
	if h.inText() {
		h.summary = fmt.Sprintf("agent edit %d (pending): %s", h.id, describe(h.hunk))
	}
	fr := r.fileLocked(h.path)
	fr.entries = append(fr.entries, &placedHunk{pendingHunk: h})
	fr.unplaced++
}

// fileLocked returns a file's hunks, made on first use (r.mu held).
func (r *review) fileLocked(path string) *fileReview {
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

// has says whether a file has pending hunks.
func (r *review) has(path string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.byFile[path] != nil
}

// A hunkSelector is a reviewArgs with its document made a path.
type hunkSelector struct {
	all  bool
	id   int
	path string // "" for none; a URI that names no workspace file selects nothing
}

// relPathFunc gives a document's path relative to the workspace root
// (Server.relPathOfURI).
type relPathFunc func(protocol.DocumentURI) (string, error)

func (a reviewArgs) selector(fileOf relPathFunc) hunkSelector {
	sel := hunkSelector{all: a.All, id: a.Hunk}
	if a.URI != "" {
		if rel, err := fileOf(a.URI); err == nil {
			sel.path = rel
		}
	}
	return sel
}

func (sel hunkSelector) matches(h *pendingHunk) bool {
	return sel.all || sel.id == h.id || sel.path != "" && sel.path == h.path
}

// take removes and returns the hunks a selector names, by id.
func (r *review) take(a reviewArgs, fileOf relPathFunc) []*pendingHunk {
	sel := a.selector(fileOf)
	r.mu.Lock()
	defer r.mu.Unlock()
	var taken []*pendingHunk
	for path, fr := range r.byFile {
		kept := fr.entries[:0]
		for _, e := range fr.entries {
			if sel.matches(e.pendingHunk) {
				e.taken = takenPlacement{e.placement, fr.on}
				taken = append(taken, e.pendingHunk)
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

// peek returns the hunks a selector names, by id, leaving them pending.
func (r *review) peek(a reviewArgs, fileOf relPathFunc) []*pendingHunk {
	sel := a.selector(fileOf)
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []*pendingHunk
	for _, fr := range r.byFile {
		for _, e := range fr.entries {
			if sel.matches(e.pendingHunk) {
				out = append(out, e.pendingHunk)
			}
		}
	}
	slices.SortFunc(out, byID)
	return out
}

func byID(a, b *pendingHunk) int { return a.id - b.id }

// putBack returns taken hunks to the store: where they lay when taken if
// the store still follows that buffer (or, their file's hunks all taken,
// it followed none since), else to be placed again: the buffer changed
// while they were out.
func (r *review) putBack(hs []*pendingHunk) {
	r.mu.Lock()
	defer r.mu.Unlock()
	touched := map[*fileReview]bool{}
	for _, h := range hs {
		fr := r.fileLocked(h.path)
		if len(fr.entries) == 0 && fr.on == nil {
			fr.on = h.taken.on
		}
		e := &placedHunk{pendingHunk: h}
		if h.taken.on != nil && h.taken.on == fr.on {
			e.placement = h.taken.placement
		}
		h.taken = takenPlacement{}
		fr.entries = append(fr.entries, e)
		touched[fr] = true
	}
	for fr := range touched {
		slices.SortFunc(fr.entries, func(a, b *placedHunk) int { return byID(a.pendingHunk, b.pendingHunk) })
		fr.reindex()
	}
}

// files returns the paths with pending hunks, by their first hunk's id.
func (r *review) files() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	type first struct {
		path string
		id   int
	}
	var fs []first
	for path, fr := range r.byFile {
		fs = append(fs, first{path, fr.entries[0].id})
	}
	slices.SortFunc(fs, func(a, b first) int { return a.id - b.id })
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = f.path
	}
	return out
}

// placedOn returns a file's hunks, by id, if every one is placed on buf:
// the store follows it.
func (r *review) placedOn(path string, buf *edits.Buffer) ([]placedHunk, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	fr := r.byFile[path]
	if fr == nil {
		return nil, true
	}
	if buf == nil || fr.on != buf || fr.unplaced > 0 {
		return nil, false
	}
	out := make([]placedHunk, len(fr.entries))
	for i, e := range fr.entries {
		out[i] = *e
	}
	return out, true
}

// toPlace returns the hunks of a file that need placing on buf: all of
// them (full) when the store follows another text, else those not placed
// yet (put back, or added since).
func (r *review) toPlace(path string, buf *edits.Buffer) (hs []*pendingHunk, full bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	fr := r.byFile[path]
	if fr == nil {
		return nil, false
	}
	full = buf == nil || fr.on != buf
	for _, e := range fr.entries {
		if full || !e.placed {
			hs = append(hs, e.pendingHunk)
		}
	}
	return hs, full
}

// install records placements made on buf, so that the store follows it.
// Placements of only some hunks (not full) are refused when the store
// moved on to another buffer meanwhile (a didChange): they are for a text
// it no longer follows. A full placement is taken even then; the next
// read sees the store on an older buffer and places them again.
func (r *review) install(path string, buf *edits.Buffer, full bool, got map[*pendingHunk]placement) bool {
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
		if p, ok := got[e.pendingHunk]; ok {
			e.placement = p
		} else if full {
			e.placement = placement{} // added meanwhile: not placed on buf
		}
	}
	fr.on = buf
	fr.reindex()
	return true
}

// withPlacements returns a file's hunks, by id, placed as got says (a
// hunk not in it is unplaced): the answer for a text the store does not
// follow (a file not open).
func (r *review) withPlacements(path string, got map[*pendingHunk]placement) []placedHunk {
	r.mu.Lock()
	defer r.mu.Unlock()
	fr := r.byFile[path]
	if fr == nil {
		return nil
	}
	out := make([]placedHunk, len(fr.entries))
	for i, e := range fr.entries {
		out[i] = placedHunk{pendingHunk: e.pendingHunk, placement: got[e.pendingHunk]}
	}
	return out
}

// overlapping returns, by id, a file's hunks whose lines meet lines
// first..last of buf (a hunk starting at the start of line last+1 does,
// as the byte range up to it does), with the whole-file ones, which have
// no lines; ok is false when the store does not follow buf. It costs a
// binary search and the hunks starting near the range.
func (r *review) overlapping(path string, buf *edits.Buffer, first, last int) (hs []placedHunk, ok bool) {
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
	from := sort.Search(len(fr.byLine), func(i int) bool { return int(fr.byLine[i].rng.Start.Line) >= first-fr.maxSpan })
	for _, e := range fr.byLine[from:] {
		if int(e.rng.Start.Line) > last+1 {
			break
		}
		if meets(e.rng, first, last) {
			hs = append(hs, *e)
		}
	}
	slices.SortFunc(hs, func(a, b placedHunk) int { return byID(a.pendingHunk, b.pendingHunk) })
	return hs, true
}

// meets says whether a hunk's range meets lines first..last.
func meets(rng protocol.Range, first, last int) bool {
	start, end := int(rng.Start.Line), int(rng.End.Line)
	return end >= first && (start <= last || start == last+1 && rng.Start.Character == 0)
}

// reindex rebuilds the line index from the placements.
func (fr *fileReview) reindex() {
	fr.byLine, fr.maxSpan, fr.whole, fr.unplaced = fr.byLine[:0], 0, fr.whole[:0], 0
	for _, e := range fr.entries {
		switch {
		case !e.placed:
			fr.unplaced++
		case !e.inText():
			fr.whole = append(fr.whole, e)
		case !e.conflict:
			fr.byLine = append(fr.byLine, e)
			fr.maxSpan = max(fr.maxSpan, int(e.rng.End.Line-e.rng.Start.Line))
		}
	}
	slices.SortFunc(fr.byLine, func(a, b *placedHunk) int {
		return cmp.Or(cmp.Compare(a.rng.Start.Line, b.rng.Start.Line), byID(a.pendingHunk, b.pendingHunk))
	})
}

// A reviewStep is one content change of a didChange: the buffer before
// and after it, and the lines it replaced (from the start line to the
// end line of its range, in the text before); whole is a change without
// a range, which replaced the whole text.
type reviewStep struct {
	before, after *edits.Buffer
	first, last   int
	whole         bool
}

// A lineStep says that lines first..last of a text became lines
// first..last+delta.
type lineStep struct{ first, last, delta int }

// lineSteps returns what a step did to the lines. A change of the whole
// text is diffed against the text before (editors that send whole texts
// pay a copy of it for every keystroke anyway), unless the two differ in
// more than wholeDiffBudget bytes (a file reloaded, reformatted): then ok
// is false, and the hunks are placed again on the new text.
func (st reviewStep) lineSteps() (steps []lineStep, ok bool) {
	if !st.whole {
		return []lineStep{{st.first, st.last, st.after.Lines() - st.before.Lines()}}, true
	}
	bt, at := st.before.Text(), st.after.Text()
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

// follow moves a file's placements through the content changes of one
// didChange, so the store follows the buffer after them, and says whether
// any hunk's position or state changed (its diagnostics must be published
// again). When the store did not follow the buffer the changes started
// from, it lets go of it: the next read places the hunks again.
func (r *review) follow(path string, steps []reviewStep, enc edits.Encoding) (changed bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	fr := r.byFile[path]
	if fr == nil || len(steps) == 0 {
		return false
	}
	if fr.on == nil || fr.on != steps[0].before {
		fr.on = nil
		return true
	}
	after := steps[len(steps)-1].after
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
		if !e.placed || !e.inText() {
			continue
		}
		was := e.placement
		if e.conflict {
			for _, sp := range touched {
				if rng, ok := findNear(after, e.hunk, sp, enc); ok {
					e.placement = placement{placed: true, rng: rng}
					break
				}
			}
		} else {
			sp := lineSpan{int(e.rng.Start.Line), int(e.rng.End.Line)}
			dirty := false
			for _, st := range lines {
				var t bool
				sp, t = sp.move(st)
				dirty = dirty || t
			}
			switch {
			case !dirty:
				shift := sp.first - int(e.rng.Start.Line)
				e.rng.Start.Line = uint32(sp.first)
				e.rng.End.Line = uint32(int(e.rng.End.Line) + shift)
			default:
				// Its own lines changed: look for it where they are now,
				// then, if it is not there, in the whole text (once: it is
				// a conflict after that).
				rng, ok := findNear(after, e.hunk, sp, enc)
				if !ok {
					rng, ok = findIn(after, e.hunk, 0, after.Lines()-1, enc)
				}
				e.placement = placement{placed: true, conflict: !ok, rng: rng}
			}
		}
		changed = changed || e.placement != was
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
		start, err := buf.Offset(first, 0, enc)
		end := buf.Len()
		if err == nil && last+1 < n {
			end, err = buf.Offset(last+1, 0, enc)
		}
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
	m := edits.NewMapper(text)
	sl, sc, err1 := m.Position(es[0].Start, enc)
	el, ec, err2 := m.Position(es[len(es)-1].End, enc)
	if err1 != nil || err2 != nil || first > 0 && sl == 0 || last < n-1 && el >= last-first {
		return protocol.Range{}, false
	}
	return protocol.Range{
		Start: protocol.Position{Line: uint32(first + sl), Character: uint32(sc)},
		End:   protocol.Position{Line: uint32(first + el), Character: uint32(ec)},
	}, true
}

// placeAll places hunks on a whole text.
func placeAll(buf *edits.Buffer, hs []*pendingHunk, enc edits.Encoding) map[*pendingHunk]placement {
	got := make(map[*pendingHunk]placement, len(hs))
	for _, h := range hs {
		p := placement{placed: true}
		if h.inText() {
			var ok bool
			p.rng, ok = findIn(buf, h.hunk, 0, buf.Lines()-1, enc)
			p.conflict = !ok
		}
		got[h] = p
	}
	return got
}
