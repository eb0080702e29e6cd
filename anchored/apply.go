package anchored

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// A Rejection refuses a whole batch: nothing changed. It lists every
// problem and shows fresh anchors around the lines concerned (not the whole
// file), so the model can retry at once.
type Rejection struct {
	Problems []string
	View     string // "anchor│ text" lines of the affected regions
}

func (r *Rejection) Error() string {
	var b strings.Builder
	b.WriteString("patch_anchored refused, nothing changed:\n")
	for _, p := range r.Problems {
		b.WriteString("- " + p + "\n")
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

// resolved is an op placed on the text: it covers lines [first, last].
type resolved struct {
	op          Op
	index       int // in the batch
	first, last int
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
func Apply(text string, ops []Op, opts Options) (Result, error) {
	s := getState(opts)
	defer putState(s)
	s.load(text)
	lines, anchors := &s.lines, &s.table
	var res Result
	var problems []string
	var focus []int // lines to show on a rejection
	var placed []resolved
	for k, op := range ops {
		first, err := resolveAnchor(op.Anchor, lines, anchors)
		if err != nil {
			problems = append(problems, fmt.Sprintf("operation %d (%s %s): %v", k+1, op.Op, op.Anchor, err))
			focus = append(focus, guessLines(lines, op.Expected)...)
			continue
		}
		focus = append(focus, first)
		last := first
		if op.End != "" {
			end, err := resolveAnchor(op.End, lines, anchors)
			if err != nil {
				problems = append(problems, fmt.Sprintf("operation %d (%s, end %s): %v", k+1, op.Op, op.End, err))
				focus = append(focus, guessLines(lines, op.EndExpected)...)
				continue
			}
			if end < first {
				problems = append(problems, fmt.Sprintf("operation %d: the end %s (line %d) is before the anchor %s (line %d)", k+1, op.End, end+1, op.Anchor, first+1))
				continue
			}
			focus = append(focus, end)
			last = end
		}
		if op.Expected != nil && lines.content(first) != *op.Expected {
			problems = append(problems, fmt.Sprintf("operation %d: line %d (%s) is %q, not the expected %q", k+1, first+1, op.Anchor, lines.content(first), *op.Expected))
			continue
		}
		if op.EndExpected != nil && lines.content(last) != *op.EndExpected {
			problems = append(problems, fmt.Sprintf("operation %d: line %d (%s) is %q, not the expected %q", k+1, last+1, op.End, lines.content(last), *op.EndExpected))
			continue
		}
		placed = append(placed, resolved{op: op, index: k, first: first, last: last})
	}
	slices.SortStableFunc(placed, func(a, b resolved) int { return a.first - b.first })
	for i := 1; i < len(placed); i++ {
		if p, q := placed[i-1], placed[i]; q.first <= p.last {
			problems = append(problems, fmt.Sprintf("operations %d and %d both change line %d; make them one operation (a range with \"end\" for a block)", p.index+1, q.index+1, q.first+1))
		}
	}
	if len(problems) > 0 {
		return Result{}, &Rejection{Problems: problems, View: region(lines, anchors, focus)}
	}
	res.Text = applyPlaced(lines, placed)
	return res, nil
}

// resolveAnchor returns the line a token names.
func resolveAnchor(tok string, lines *lineSet, anchors *Table) (int, error) {
	tok = cleanToken(tok)
	if i := anchors.lookup(tok); i >= 0 {
		return i, nil
	}
	// A shorter form of a lengthened anchor still names one line if only
	// one anchor starts with it (same ordinal). This pass over every
	// anchor is taken only for a token that names no line exactly.
	base, ord := splitOrdinal(tok)
	var found []int
	if len(base) >= 4 {
		var scratch []byte
		for i := range anchors.Len() {
			scratch = anchors.AppendToken(scratch[:0], i)
			b, o := splitOrdinal(string(scratch))
			if o == ord && strings.HasPrefix(b, base) {
				found = append(found, i)
			}
		}
	}
	switch {
	case len(found) == 1 && !anchors.Ambiguous(found[0]):
		return found[0], nil
	case len(found) > 1:
		return 0, fmt.Errorf("the anchor names %d lines (%s); use the longer anchors shown below", len(found), lineNumbers(found))
	case len(found) == 1:
		return 0, fmt.Errorf("the anchor names more than one line (a hash collision); address a neighbouring line instead")
	}
	return 0, fmt.Errorf("no line has this anchor: the line or a neighbour changed since it was viewed (or it was mistyped)")
}

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

func lineNumbers(ls []int) string {
	var s []string
	for i, l := range ls {
		if i == 5 {
			s = append(s, "…")
			break
		}
		s = append(s, strconv.Itoa(l+1))
	}
	return "lines " + strings.Join(s, ", ")
}

// region renders fresh anchors around the focus lines; with nothing to
// focus on, the start of the file.
func region(lines *lineSet, anchors *Table, focus []int) string {
	n := lines.Len()
	if n == 0 {
		return "(empty file)\n"
	}
	const around = 3
	if len(focus) == 0 {
		focus = []int{0}
		if n <= 60 {
			for i := range n {
				focus = append(focus, i)
			}
		}
	}
	// The lines to show, as sorted, merged ranges: never a pass over the
	// whole file.
	type span struct{ from, to int }
	var spans []span
	for _, f := range focus {
		spans = append(spans, span{max(0, f-around), min(n-1, f+around)})
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
			fmt.Fprintf(&b, "%s│ %s\n", anchors.appendShown(nil, i), lines.content(i))
		}
		next = s.to + 1
	}
	if next < n {
		b.WriteString("…\n")
	}
	return b.String()
}

// applyPlaced makes the resolved, non-overlapping ops (sorted by line):
// the untouched lines are copied in whole runs, with their line endings.
func applyPlaced(lines *lineSet, placed []resolved) string {
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
		if p.op.Text != nil {
			size += len(*p.op.Text) + 2*strings.Count(*p.op.Text, "\n") + 2
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
		var added []string
		if p.op.Text != nil {
			added = textLines(*p.op.Text)
		}
		eol := eolNear(p.last)
		switch p.op.Op {
		case "replace", "delete":
			if p.op.Op == "replace" {
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
