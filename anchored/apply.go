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
	lines, bom := SplitLines(text)
	anchors := NewIndex(lines, opts).Anchors(lines)
	// Look up only the tokens the ops name: one pass over the anchors.
	byToken := map[string]int{}
	for _, op := range ops {
		byToken[cleanToken(op.Anchor)] = -1
		if op.End != "" {
			byToken[cleanToken(op.End)] = -1
		}
	}
	var scratch []byte
	for i := range anchors.Len() {
		scratch = anchors.AppendToken(scratch[:0], i)
		if l, want := byToken[string(scratch)]; want && l < 0 && !anchors.Ambiguous(i) {
			byToken[string(scratch)] = i
		}
	}
	var res Result
	var problems []string
	var focus []int // lines to show on a rejection
	var placed []resolved
	for k, op := range ops {
		first, note, err := resolveAnchor(op.Anchor, op.Expected, lines, anchors, byToken)
		if err != nil {
			problems = append(problems, fmt.Sprintf("operation %d (%s %s): %v", k+1, op.Op, op.Anchor, err))
			focus = append(focus, guessLines(lines, op.Expected)...)
			continue
		}
		focus = append(focus, first)
		if note != "" {
			res.Notes = append(res.Notes, fmt.Sprintf("operation %d: %s", k+1, note))
		}
		last := first
		if op.End != "" {
			end, note, err := resolveAnchor(op.End, op.EndExpected, lines, anchors, byToken)
			if err != nil {
				problems = append(problems, fmt.Sprintf("operation %d (%s, end %s): %v", k+1, op.Op, op.End, err))
				focus = append(focus, guessLines(lines, op.EndExpected)...)
				continue
			}
			if note != "" {
				res.Notes = append(res.Notes, fmt.Sprintf("operation %d, end: %s", k+1, note))
			}
			if end < first {
				problems = append(problems, fmt.Sprintf("operation %d: the end %s (line %d) is before the anchor %s (line %d)", k+1, op.End, end+1, op.Anchor, first+1))
				continue
			}
			focus = append(focus, end)
			last = end
		}
		if op.Expected != nil && lines[first].Content != *op.Expected {
			problems = append(problems, fmt.Sprintf("operation %d: line %d (%s) is %q, not the expected %q", k+1, first+1, op.Anchor, lines[first].Content, *op.Expected))
			continue
		}
		if op.EndExpected != nil && lines[last].Content != *op.EndExpected {
			problems = append(problems, fmt.Sprintf("operation %d: line %d (%s) is %q, not the expected %q", k+1, last+1, op.End, lines[last].Content, *op.EndExpected))
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
	res.Text = JoinLines(applyPlaced(lines, placed), bom)
	return res, nil
}

// resolveAnchor returns the line a token names.
func resolveAnchor(tok string, expected *string, lines []Line, anchors *Table, byToken map[string]int) (int, string, error) {
	tok = cleanToken(tok)
	if i := byToken[tok]; i >= 0 {
		return i, "", nil
	}
	// A shorter form of a lengthened anchor still names one line if only
	// one anchor starts with it (same ordinal).
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
		return found[0], "", nil
	case len(found) > 1:
		return 0, "", fmt.Errorf("the anchor names %d lines (%s); use the longer anchors shown below", len(found), lineNumbers(found))
	case len(found) == 1:
		return 0, "", fmt.Errorf("the anchor names more than one line (a hash collision); address a neighbouring line instead")
	}
	return 0, "", fmt.Errorf("no line has this anchor: the line or a neighbour changed since it was viewed (or it was mistyped)")
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

func linesWith(lines []Line, content string) []int {
	var out []int
	for i, l := range lines {
		if l.Content == content {
			out = append(out, i)
		}
	}
	return out
}

// guessLines returns where an op whose anchor failed probably meant: the
// lines with its expected text.
func guessLines(lines []Line, expected *string) []int {
	if expected == nil {
		return nil
	}
	hits := linesWith(lines, *expected)
	if len(hits) > 5 {
		hits = hits[:5]
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
func region(lines []Line, anchors *Table, focus []int) string {
	if len(lines) == 0 {
		return "(empty file)\n"
	}
	const around = 3
	if len(focus) == 0 {
		focus = []int{0}
		if len(lines) <= 60 {
			for i := range lines {
				focus = append(focus, i)
			}
		}
	}
	show := make([]bool, len(lines))
	for _, f := range focus {
		for i := max(0, f-around); i <= min(len(lines)-1, f+around); i++ {
			show[i] = true
		}
	}
	var b strings.Builder
	gap := false
	for i, s := range show {
		if !s {
			gap = true
			continue
		}
		if gap && b.Len() > 0 {
			b.WriteString("…\n")
		}
		gap = false
		fmt.Fprintf(&b, "%s│ %s\n", anchors.appendShown(nil, i), lines[i].Content)
	}
	if gap {
		b.WriteString("…\n")
	}
	return b.String()
}

// applyPlaced makes the resolved, non-overlapping ops (sorted by line).
func applyPlaced(lines []Line, placed []resolved) []Line {
	eol := dominantEOL(lines)
	finalEOL := len(lines) > 0 && lines[len(lines)-1].EOL != ""
	out := make([]Line, 0, len(lines)+len(placed))
	i := 0
	for _, p := range placed {
		out = append(out, lines[i:p.first]...)
		var text []string
		if p.op.Text != nil {
			text = textLines(*p.op.Text)
		}
		// New lines follow the line ending of the line they replace or
		// stand next to, so a CRLF line in a mixed file stays CRLF.
		eol := eol
		if e := lines[p.last].EOL; e != "" {
			eol = e
		}
		switch p.op.Op {
		case "replace":
			for _, t := range text {
				out = append(out, Line{Content: t, EOL: eol})
			}
		case "delete":
		case "insert_before":
			for _, t := range text {
				out = append(out, Line{Content: t, EOL: eol})
			}
			out = append(out, lines[p.first])
		case "insert_after":
			target := lines[p.first]
			if target.EOL == "" {
				target.EOL = eol
			}
			out = append(out, target)
			for _, t := range text {
				out = append(out, Line{Content: t, EOL: eol})
			}
		}
		i = p.last + 1
	}
	out = append(out, lines[i:]...)
	// Keep the final-newline state.
	if n := len(out); n > 0 {
		if !finalEOL {
			out[n-1].EOL = ""
		} else if out[n-1].EOL == "" {
			out[n-1].EOL = eol
		}
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
func dominantEOL(lines []Line) string {
	crlf := 0
	for _, l := range lines {
		if l.EOL == "\r\n" {
			crlf++
		}
	}
	if crlf*2 > len(lines) {
		return "\r\n"
	}
	return "\n"
}
