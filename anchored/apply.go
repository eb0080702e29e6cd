package anchored

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/agentls/agentls/internal/text"
)

// A Rejection refuses a whole batch: nothing changed. It lists the
// problems (the first maxProblems; More counts the rest) and shows fresh
// anchors around the lines concerned (not the whole file, and at most
// maxViewLines of them), so the model can retry at once. Its size is
// bounded whatever the batch: a million bad ops are a short message.
type Rejection struct {
	Problems []string
	More     int    // problems found beyond Problems
	View     string // "anchor│ text" lines of the affected regions
}

// Bounds on a rejection.
const (
	maxProblems   = 20  // problems listed
	maxViewLines  = 40  // lines of fresh anchors shown
	maxQuoted     = 200 // bytes of a line, an expected text or a token quoted in a problem
	maxShownBytes = 400 // bytes of a line shown in the view
)

func (r *Rejection) Error() string {
	var b strings.Builder
	b.WriteString("patch_anchored refused, nothing changed:\n")
	for _, p := range r.Problems {
		b.WriteString("- " + p + "\n")
	}
	if r.More > 0 {
		fmt.Fprintf(&b, "- and %d more problems, not listed: fix the ones above, then send the batch again (view_anchored shows the current anchors)\n", r.More)
	}
	if r.View != "" {
		b.WriteString("\nCurrent anchors near the affected lines (use these):\n" + r.View)
	}
	return b.String()
}

// A Result says what a batch did.
type Result struct {
	Text  string
	Notes []string // e.g. a stale anchor rescued by its expected text
}

// resolved is an op placed on the text: ops[index] covers lines [first, last].
type resolved struct {
	index       int // in the batch
	first, last int
}

// rejection gathers a batch's problems: the first maxProblems are
// written out with the lines to show around them, the rest only counted,
// so a huge bad batch costs neither time nor memory for its message.
type rejection struct {
	problems []string
	more     int
	focus    []int // lines to show
}

// add records a problem: msg says it and focus returns the lines to show
// for it, both only called for a problem that is listed (so the others
// allocate nothing).
func (r *rejection) add(focus func() []int, msg func() string) {
	if len(r.problems) == maxProblems {
		r.more++
		return
	}
	r.problems = append(r.problems, msg())
	if focus != nil {
		r.focus = append(r.focus, focus()...)
	}
}

// Apply resolves every op of the batch against text and applies them
// together, or refuses the batch with a *Rejection. Each line keeps its
// line ending; new lines get the file's; the byte-order mark and the
// final-newline state are kept.
//
// There is no rescue for a stale anchor, not even when its expected text
// names exactly one line: editbench showed that such a rescue re-applies
// an edit already made (the model's own edit is what made the anchor
// stale) and lands on a look-alike line when the true one changed. A stale
// anchor is refused, with fresh anchors to retry with.
//
// The cost is linear in the text and the batch: anchors are looked up in
// the key index, and the tokens that name no line exactly are matched as
// shortened anchors in one pass over the anchors for all of them.
func Apply(text string, ops []Op, opts Options) (Result, error) {
	s := getState(opts)
	defer putState(s)
	s.loadDigests(text)
	return s.apply(ops, false)
}

// apply is Apply on the text s holds, whose digests are computed and, if
// settled, its keys too.
func (s *state) apply(ops []Op, settled bool) (Result, error) {
	// A batch of a few ops is resolved in one pass over the anchors;
	// a huge one in the key index, kept for it. A few plain anchors that
	// each name the one line with their key need no settled keys.
	lookups := len(ops) > maxScannedTokens/2
	lines, anchors := &s.lines, &s.table
	toks := opTokens(ops)
	var exact map[string]int
	if !lookups {
		exact = anchors.resolveUnique(toks)
	}
	if exact == nil {
		if !settled {
			s.settleKeys(lookups)
		}
		exact, settled = anchors.lookupAll(toks), true
	}
	var res Result
	var rej rejection
	short := shortenedAnchors(ops, anchors, exact)
	var placed []resolved
	for k, op := range ops {
		first, err := resolveAnchor(op.Anchor, anchors, exact, short)
		if err != nil {
			rej.add(func() []int { return guessLines(lines, op.Expected) }, func() string {
				return fmt.Sprintf("operation %d (%s %s): %v", k+1, quote(op.Op), quote(op.Anchor), err)
			})
			continue
		}
		last := first
		if op.End != "" {
			end, err := resolveAnchor(op.End, anchors, exact, short)
			if err != nil {
				rej.add(func() []int { return append([]int{first}, guessLines(lines, op.EndExpected)...) }, func() string {
					return fmt.Sprintf("operation %d (%s, end %s): %v", k+1, quote(op.Op), quote(op.End), err)
				})
				continue
			}
			if end < first {
				rej.add(func() []int { return []int{first, end} }, func() string {
					return fmt.Sprintf("operation %d: the end %s (line %d) is before the anchor %s (line %d)", k+1, quote(op.End), end+1, quote(op.Anchor), first+1)
				})
				continue
			}
			last = end
		}
		if op.Expected != nil && lines.content(first) != *op.Expected {
			rej.add(func() []int { return []int{first, last} }, func() string {
				return fmt.Sprintf("operation %d: line %d (%s) is %q, not the expected %q", k+1, first+1, quote(op.Anchor), clipQuoted(lines.content(first)), clipQuoted(*op.Expected))
			})
			continue
		}
		if op.EndExpected != nil && lines.content(last) != *op.EndExpected {
			rej.add(func() []int { return []int{first, last} }, func() string {
				return fmt.Sprintf("operation %d: line %d (%s) is %q, not the expected %q", k+1, last+1, quote(op.End), clipQuoted(lines.content(last)), clipQuoted(*op.EndExpected))
			})
			continue
		}
		placed = append(placed, resolved{index: k, first: first, last: last})
	}
	slices.SortStableFunc(placed, func(a, b resolved) int { return a.first - b.first })
	for i := 1; i < len(placed); i++ {
		if p, q := placed[i-1], placed[i]; q.first <= p.last {
			rej.add(func() []int { return []int{q.first} }, func() string {
				return fmt.Sprintf("operations %d and %d both change line %d; make them one operation (a range with \"end\" for a block)", p.index+1, q.index+1, q.first+1)
			})
		}
	}
	if len(rej.problems) > 0 {
		if !settled {
			s.settleKeys(false) // the view shows the lines' anchors as they are
		}
		if len(rej.focus) == 0 && len(placed) > 0 {
			rej.focus = []int{placed[0].first}
		}
		return Result{}, &Rejection{Problems: rej.problems, More: rej.more, View: region(lines, anchors, rej.focus)}
	}
	res.Text = applyPlaced(lines, ops, placed)
	return res, nil
}

// opTokens returns the anchors the ops name, cleaned as they are resolved.
func opTokens(ops []Op) []string {
	var toks []string
	for _, op := range ops {
		toks = append(toks, cleanToken(op.Anchor))
		if op.End != "" {
			toks = append(toks, cleanToken(op.End))
		}
	}
	return toks
}

// quote returns a token or op name as the model wrote it, clipped.
func quote(s string) string { return clip(s, maxQuoted) }

// clipQuoted clips a line or an expected text quoted in a problem.
func clipQuoted(s string) string { return clip(s, maxQuoted) }

// clip cuts s after n bytes (at a character boundary), saying how much is
// left out.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	shown := text.Clip(s, n)
	return fmt.Sprintf("%s… (%d more bytes)", shown, len(s)-len(shown))
}

// A shortened is what a token that names no line exactly matches as the
// start of longer anchors: how many lines, and the first few.
type shortened struct {
	n     int
	lines []int
}

// shortenedAnchors matches the tokens of ops that name no line exactly
// (at least 4 characters) against every anchor's prefixes, in one pass
// over the anchors for all of them, keyed by base and ordinal.
func shortenedAnchors(ops []Op, anchors *Table, exact map[string]int) map[string]*shortened {
	var pending map[string]*shortened
	var key []byte
	want := func(tok string) {
		tok = cleanToken(tok)
		if i, ok := exact[tok]; tok == "" || ok && i >= 0 {
			return
		}
		base, ord := splitOrdinal(tok)
		if len(base) < 4 || len(base) > maxWidth {
			return
		}
		if pending == nil {
			pending = map[string]*shortened{}
		}
		// Built in a buffer: only a token not seen before allocates.
		key = strconv.AppendInt(append(append(key[:0], base...), '.'), int64(ord), 10)
		if pending[string(key)] == nil {
			pending[string(key)] = &shortened{}
		}
	}
	for _, op := range ops {
		want(op.Anchor)
		if op.End != "" {
			want(op.End)
		}
	}
	if pending == nil {
		return nil
	}
	var tok []byte
	for i := range anchors.Len() {
		tok = anchors.AppendToken(tok[:0], i)
		b, o := splitOrdinal(string(tok))
		for n := 4; n <= len(b); n++ {
			key = strconv.AppendInt(append(append(key[:0], b[:n]...), '.'), int64(o), 10)
			if sh := pending[string(key)]; sh != nil {
				sh.n++
				if len(sh.lines) < 6 {
					sh.lines = append(sh.lines, i)
				}
			}
		}
	}
	return pending
}

// resolveAnchor returns the line a token names: exactly, or as the start
// of one longer anchor (short holds those matches).
func resolveAnchor(tok string, anchors *Table, exact map[string]int, short map[string]*shortened) (int, error) {
	tok = cleanToken(tok)
	if i, ok := exact[tok]; ok && i >= 0 {
		return i, nil
	}
	// A shorter form of a lengthened anchor still names one line if only
	// one anchor starts with it (same ordinal).
	base, ord := splitOrdinal(tok)
	var sh shortened
	if p := short[base+"."+strconv.Itoa(ord)]; p != nil {
		sh = *p
	}
	switch {
	case sh.n == 1 && !anchors.Ambiguous(sh.lines[0]):
		return sh.lines[0], nil
	case sh.n > 1:
		return 0, fmt.Errorf("the anchor names %d lines (%s); use the longer anchors shown below", sh.n, lineNumbers(sh.lines, sh.n))
	case sh.n == 1:
		return 0, errCollision
	}
	return 0, errNoLine
}

// The errors of resolveAnchor that say the same for every op, made once:
// a batch of a million bad ops allocates nothing for them.
var (
	errNoLine    = errors.New("no line has this anchor: the line or a neighbour changed since it was viewed (or it was mistyped)")
	errCollision = errors.New("the anchor names more than one line (a hash collision); address a neighbouring line instead")
)

// cleanToken drops what models copy around an anchor: spaces, the "│"
// separator, a colon, the ambiguity mark.
func cleanToken(tok string) string { return strings.TrimRight(strings.TrimSpace(tok), "│|:?") }

func splitOrdinal(tok string) (string, int) {
	if i := strings.LastIndexByte(tok, '.'); i >= 0 {
		if n, err := strconv.Atoi(tok[i+1:]); err == nil && n >= 1 {
			return tok[:i], n
		}
	}
	return tok, 1
}

// guessLines returns where an op whose anchor failed probably meant: the
// first lines with its expected text.
func guessLines(lines *lineSet, expected *string) []int {
	if expected == nil {
		return nil
	}
	var hits []int
	for i := 0; i < lines.Len() && len(hits) < 5; i++ {
		if lines.content(i) == *expected {
			hits = append(hits, i)
		}
	}
	return hits
}

// lineNumbers renders the first of n lines ls.
func lineNumbers(ls []int, n int) string {
	var s []string
	for i, l := range ls {
		if i == 5 {
			break
		}
		s = append(s, strconv.Itoa(l+1))
	}
	if n > len(s) {
		s = append(s, "…")
	}
	return "lines " + strings.Join(s, ", ")
}

// region renders fresh anchors around the focus lines, the first focus
// lines first, up to maxViewLines lines; with nothing to focus on, the
// start of the file.
func region(lines *lineSet, anchors *Table, focus []int) string {
	n := lines.Len()
	if n == 0 {
		return "(empty file)\n"
	}
	const around = 3
	if len(focus) == 0 {
		focus = []int{0}
		if n <= maxViewLines {
			for i := range n {
				focus = append(focus, i)
			}
		}
	}
	// The lines to show, as sorted, merged ranges: never a pass over the
	// whole file. Focus lines are taken in order while they fit.
	type span struct{ from, to int }
	var spans []span
	shown, left := 0, 0
	covered := func(i int) bool {
		for _, s := range spans {
			if i >= s.from && i <= s.to {
				return true
			}
		}
		return false
	}
	for _, f := range focus {
		if f < 0 || f >= n || covered(f) && len(spans) > 0 {
			continue
		}
		s := span{max(0, f-around), min(n-1, f+around)}
		added := 0
		for i := s.from; i <= s.to; i++ {
			if !covered(i) {
				added++
			}
		}
		if shown+added > maxViewLines {
			left++
			continue
		}
		shown += added
		spans = append(spans, s)
	}
	slices.SortFunc(spans, func(a, b span) int { return a.from - b.from })
	var b strings.Builder
	next := 0 // the first line not yet shown
	for _, s := range spans {
		from := max(s.from, next)
		if from > s.to {
			continue
		}
		if from > next && b.Len() > 0 {
			b.WriteString("…\n")
		}
		for i := from; i <= s.to; i++ {
			fmt.Fprintf(&b, "%s│ %s\n", anchors.appendShown(nil, i), clip(lines.content(i), maxShownBytes))
		}
		next = s.to + 1
	}
	if next < n {
		b.WriteString("…\n")
	}
	if left > 0 {
		fmt.Fprintf(&b, "(%d more affected lines are not shown here: view_anchored shows any range)\n", left)
	}
	return b.String()
}

// applyPlaced makes the resolved, non-overlapping ops (sorted by line):
// the untouched lines are copied in whole runs, with their line endings.
func applyPlaced(lines *lineSet, ops []Op, placed []resolved) string {
	n := lines.Len()
	text := lines.text
	dominant := ""
	eolNear := func(i int) string {
		// New lines follow the line ending of the line they replace or
		// stand next to, so a CRLF line in a mixed file stays CRLF.
		if e := lines.eol(i); e != "" {
			return e
		}
		if dominant == "" {
			dominant = dominantEOL(lines)
		}
		return dominant
	}
	size := len(lines.bom) + len(text)
	for _, p := range placed {
		if op := ops[p.index]; op.Text != nil {
			size += len(*op.Text) + 2*strings.Count(*op.Text, "\n") + 2
		}
	}
	var b strings.Builder
	b.Grow(size)
	b.WriteString(lines.bom)
	wrote, lastEOL := false, ""       // whether a line was written, and its ending
	copyLines := func(from, to int) { // lines [from, to) as they are
		if from < to {
			b.WriteString(text[lines.start[from]:lines.start[to]])
			wrote, lastEOL = true, lines.eol(to-1)
		}
	}
	writeLine := func(content, eol string) {
		b.WriteString(content)
		b.WriteString(eol)
		wrote, lastEOL = true, eol
	}
	i := 0 // the next line to copy
	for _, p := range placed {
		copyLines(i, p.first)
		op := ops[p.index]
		var added []string
		if op.Text != nil {
			added = textLines(*op.Text)
		}
		eol := eolNear(p.last)
		switch op.Op {
		case "replace", "delete":
			if op.Op == "replace" {
				for _, t := range added {
					writeLine(t, eol)
				}
			}
			i = p.last + 1
		case "insert_before":
			for _, t := range added {
				writeLine(t, eol)
			}
			i = p.first
		case "insert_after":
			writeLine(lines.content(p.first), eol)
			for _, t := range added {
				writeLine(t, eol)
			}
			i = p.first + 1
		}
	}
	copyLines(i, n)
	out := b.String()
	// Keep the final-newline state.
	if hadFinal := n > 0 && lines.eol(n-1) != ""; wrote && !hadFinal {
		out = out[:len(out)-len(lastEOL)]
	} else if wrote && hadFinal && lastEOL == "" {
		out += eolNear(n - 1)
	}
	return out
}

// textLines splits an op's text: "" is no line, "\n" one empty line, and a
// final newline adds none.
func textLines(s string) []string {
	if s == "" {
		return nil
	}
	s = strings.TrimSuffix(strings.ReplaceAll(s, "\r\n", "\n"), "\n")
	return strings.Split(s, "\n")
}

// dominantEOL is the line ending most lines use ("\n" if none).
func dominantEOL(lines *lineSet) string {
	crlf := 0
	for i := range lines.Len() {
		if len(lines.eol(i)) == 2 {
			crlf++
		}
	}
	if crlf*2 > lines.Len() {
		return "\r\n"
	}
	return "\n"
}
