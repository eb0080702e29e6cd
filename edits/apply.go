package edits

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// A HunkError says why a hunk could not be applied, in words the model can
// act on: which hunk, how loosely it was compared, and where the nearest
// lines are or which lines were ambiguous.
type HunkError struct {
	Hunk, Of int    // 1-based hunk number and the number of hunks
	Reason   string // what went wrong and how to recover
	notFound bool
}

func (e *HunkError) Error() string {
	if e.Of <= 1 {
		return e.Reason
	}
	return fmt.Sprintf("hunk %d/%d: %s", e.Hunk, e.Of, e.Reason)
}

// ErrNoChange is returned when applying the hunks leaves the text as it was.
var ErrNoChange = errors.New("the patch does not change the file (ORIGINAL and UPDATED are the same)")

const bom = "\ufeff"

// A replacement changes text[start:end] to repl. The lines it covers end
// at lineEnd (after their line break): two replacements overlap when their
// lines do, even if their bytes only touch (a shared empty line).
type replacement struct {
	start, end int
	repl       string
	hunk       int
	lineEnd    int
}

// linesEnd is where the lines a replacement covers end.
func (r replacement) linesEnd() int { return max(r.end, r.lineEnd) }

// ApplyHunks applies hunks to text and returns the new text. Hunks are
// resolved against the original text, in any order, and applied together;
// a hunk whose ORIGINAL only exists after the hunks before it have been
// applied is supported too (hunks are then applied one after the other, as
// gptme does). Nothing is applied unless every hunk resolves.
func ApplyHunks(text string, hunks []Hunk) (string, error) {
	edits, err := ResolveHunks(text, hunks)
	if err != nil {
		return "", err
	}
	return ApplyEdits(text, edits), nil
}

// ResolveHunks is ApplyHunks without building the new text: it returns
// the edits that make it, sorted and not overlapping, each covering whole
// lines. An editor applies these directly (a WorkspaceEdit), so a change
// to a large file costs the size of the change, not of the file.
func ResolveHunks(text string, hunks []Hunk) ([]TextEdit, error) {
	// A byte-order mark is not part of the first line: models never copy it.
	if rest, ok := strings.CutPrefix(text, bom); ok {
		es, err := ResolveHunks(rest, hunks)
		for i := range es {
			es[i].Start += len(bom)
			es[i].End += len(bom)
		}
		return es, err
	}
	d := newDoc(text)
	exact := d.exactStarts(hunks)
	for i, h := range hunks {
		if exact[i] >= 0 && pastFinalNewline(text, exact[i], h.Original) {
			exact[i] = -1
		}
	}
	var reps []replacement
	var firstErr error
	for i, h := range hunks {
		var r []replacement
		var err error
		if exact[i] >= 0 {
			w, m := d.window(exact[i], len(h.Original))
			r, err = w.replace(m, h, i+1, len(hunks))
		} else {
			r, err = resolve(d, h, i+1, len(hunks))
		}
		if err != nil {
			firstErr = err
			break
		}
		reps = append(reps, r...)
	}
	if firstErr == nil {
		if err := checkOverlaps(reps, len(hunks)); err != nil {
			return nil, err
		}
		es := make([]TextEdit, 0, len(reps))
		changed := false
		for _, r := range reps {
			es = append(es, TextEdit{Start: r.start, End: r.end, New: r.repl})
			changed = changed || text[r.start:r.end] != r.repl
		}
		if !changed {
			return nil, ErrNoChange
		}
		return es, nil
	}
	var he *HunkError
	if len(hunks) == 1 || !errors.As(firstErr, &he) || !he.notFound || len(hunks)*len(text) > sequentialBudget {
		return nil, firstErr
	}
	// A later hunk may build on an earlier one: apply them in order. If
	// that fails too, the error against the file as it is says more.
	cur := text
	for i, h := range hunks {
		r, err := resolveOne(newDoc(cur), h, i+1, len(hunks))
		if err == nil {
			cur, err = splice(cur, r, len(hunks))
		}
		if err != nil {
			return nil, firstErr
		}
	}
	if cur == text {
		return nil, ErrNoChange
	}
	return MinimalEdits(text, cur), nil
}

// checkOverlaps sorts replacements by position and refuses two whose lines
// overlap.
func checkOverlaps(reps []replacement, of int) error {
	slices.SortStableFunc(reps, func(a, b replacement) int { return a.start - b.start })
	for i := 1; i < len(reps); i++ {
		if reps[i].start < reps[i-1].linesEnd() {
			return &HunkError{Hunk: reps[i].hunk, Of: of, Reason: fmt.Sprintf("its ORIGINAL overlaps the lines of hunk %d; merge the two hunks into one", reps[i-1].hunk)}
		}
	}
	return nil
}

// splice applies non-overlapping replacements in one pass.
func splice(text string, reps []replacement, of int) (string, error) {
	if err := checkOverlaps(reps, of); err != nil {
		return "", err
	}
	n := len(text)
	for _, r := range reps {
		n += len(r.repl) - (r.end - r.start)
	}
	var b strings.Builder
	b.Grow(n)
	at := 0
	for _, r := range reps {
		b.WriteString(text[at:r.start])
		b.WriteString(r.repl)
		at = r.end
	}
	b.WriteString(text[at:])
	return b.String(), nil
}

// resolveOne resolves one hunk, by the fast path if it can.
func resolveOne(d *doc, h Hunk, num, of int) ([]replacement, error) {
	if s := d.exactStarts([]Hunk{h})[0]; s >= 0 && !pastFinalNewline(d.text, s, h.Original) {
		w, m := d.window(s, len(h.Original))
		return w.replace(m, h, num, of)
	}
	return resolve(d, h, num, of)
}

// resolve finds where hunk h goes in d, the general way, and returns its
// replacements.
func resolve(d *doc, h Hunk, num, of int) ([]replacement, error) {
	return resolveHunk(d, h, num, of, true)
}

// resolveHunk is resolve; finalNewline says whether a blank last line of
// ORIGINAL may still be read as its final newline (once: reading k blank
// lines so would cost k passes over the file).
func resolveHunk(d *doc, h Hunk, num, of int, finalNewline bool) ([]replacement, error) {
	fail := func(notFound bool, format string, args ...any) ([]replacement, error) {
		return nil, &HunkError{Hunk: num, Of: of, Reason: fmt.Sprintf(format, args...), notFound: notFound}
	}
	if len(h.Original) == 0 && (len(h.Scope) > 0 || h.AtEOF) {
		return d.insert(h, num, of)
	}
	if d.text == "" && allBlank(h.Original) {
		// gptme's divider needs a newline before it, so its empty ORIGINAL
		// is a blank line: on an empty file both mean "the empty content".
		h.Original = nil
	}
	if len(h.Original) == 0 {
		if d.text != "" {
			return fail(false, "ORIGINAL is empty, which only fits an empty file; give the lines to replace (read the file first), or use append or save")
		}
		// The file becomes exactly UPDATED: a final newline only if
		// UPDATED ends with a blank line, as gptme writes one.
		return []replacement{{0, 0, strings.Join(h.Updated, "\n"), num, 0}}, nil
	}
	if allBlank(h.Original) {
		return fail(false, "ORIGINAL has only blank lines, which cannot be located; include the lines around them")
	}
	if hasPlaceholder(h.Original) || hasPlaceholder(h.Updated) {
		if ms, t := d.find(h.Original, h.Updated); t == tierExact && len(ms) == 1 && !hasPlaceholder(h.Updated) {
			return d.replace(ms[0], h, num, of) // the "placeholder" is a real line
		}
		return resolvePieces(d, h, num, of)
	}
	if !d.split && len(h.Scope) == 0 && !h.AtEOF {
		// Most loose matches are settled around the few lines that can
		// hold the pivot, without splitting the text (local.go).
		r, st := d.resolveLocal(h, num, of)
		if st == localApplied {
			return r, nil
		}
		if st == localNone && finalNewline && endsWithBlank(h.Original) {
			if r, err := resolveFinalNewline(d, h, num, of); r != nil || !isNotFound(err) {
				return r, err
			}
			finalNewline = false // read so already
		}
	}
	ms, t := d.find(h.Original, h.Updated)
	if len(ms) == 0 && finalNewline && endsWithBlank(h.Original) {
		if r, err := resolveFinalNewline(d, h, num, of); r != nil || !isNotFound(err) {
			return r, err
		}
	}
	if len(ms) > 0 && t > tierExact && len(h.Updated) > 0 {
		// ORIGINAL is not in the file as it is. If UPDATED is, the edit was
		// made already, and the loose match is a look-alike elsewhere:
		// applying it would edit the wrong place.
		if us := d.exactOnly(h.Updated); len(us) > 0 {
			return fail(false, "already applied: the UPDATED lines are already at line %s; ORIGINAL is only found %s (lines %s), which is probably another place: nothing to do for this hunk", lineRange(us[0].first+1, us[0].first+us[0].n), t, lineList(ms))
		}
	}
	if len(ms) > 0 && (h.AtEOF || len(ms) > 1 && len(h.Scope) > 0) {
		var err error
		if ms, err = d.narrow(ms, h); err != nil {
			return fail(false, "%v", err)
		}
	}
	switch {
	case len(ms) == 1:
		return d.replace(ms[0], h, num, of)
	case len(ms) > 1:
		return fail(false, "ORIGINAL matches %d places (lines %s, %s); include more surrounding lines so it matches exactly one", len(ms), lineList(ms), t)
	}
	if len(h.Updated) > 0 {
		if ms, _ := d.find(h.Updated, nil); len(ms) == 1 {
			return fail(false, "already applied: the UPDATED lines are already at line %s and ORIGINAL is not in the file; nothing to do for this hunk", lineRange(ms[0].first+1, ms[0].first+ms[0].n))
		}
	}
	return fail(true, "ORIGINAL was not found in the file, even ignoring whitespace, indentation and Unicode punctuation.\n%s", d.nearestRegion(h.Original))
}

// endsWithBlank reports whether lines end with a blank line, the way
// gptme writes "this chunk ends with a newline" (a blank line before the
// marker).
func endsWithBlank(lines []string) bool {
	return len(lines) > 0 && isBlankLine(lines[len(lines)-1])
}

// pastFinalNewline reports whether the exact fast path's match of orig at
// start takes orig's last, empty line for the nothing after the text's
// final newline: a line no one wrote, which the general way (and gptme's
// final-newline reading of that blank line) must decide on instead.
func pastFinalNewline(text string, start int, orig []string) bool {
	if len(orig) == 0 || orig[len(orig)-1] != "" {
		return false
	}
	n := len(orig) - 1 // the line breaks between orig's lines
	for _, l := range orig {
		n += len(l)
	}
	return start+n == len(text)
}

// resolveFinalNewline resolves a hunk whose ORIGINAL ends with a blank line
// that is not in the file by gptme's reading of it: ORIGINAL (and UPDATED,
// when it ends with one too) ends with a newline, and the blank line is no
// line at all. The shorter ORIGINAL must still match one place; a miss is
// reported for the hunk as written.
func resolveFinalNewline(d *doc, h Hunk, num, of int) ([]replacement, error) {
	if allBlank(h.Original) {
		return nil, &HunkError{Hunk: num, Of: of, notFound: true}
	}
	h.Original = h.Original[:len(h.Original)-1]
	if endsWithBlank(h.Updated) {
		h.Updated = h.Updated[:len(h.Updated)-1]
	}
	// This reading is a loose one, and as at the loose tiers an edit made
	// already beats it: when UPDATED is in the file exactly around where
	// the shorter ORIGINAL is (a line added after ORIGINAL, already
	// there), applying would add it twice (editbench's S4 did).
	if len(h.Updated) > len(h.Original) && !allBlank(h.Updated) {
		if us := d.exactOnly(h.Updated); len(us) > 0 {
			if ms, t := d.find(h.Original, nil); t == tierExact {
				for _, u := range us {
					for _, m := range ms {
						if m.first >= u.first && m.first+m.n <= u.first+u.n {
							return nil, &HunkError{Hunk: num, Of: of, Reason: fmt.Sprintf("already applied: the UPDATED lines are already at line %s, around the ORIGINAL lines (read without the blank line before the divider); nothing to do for this hunk", lineRange(u.first+1, u.first+u.n))}
						}
					}
				}
			}
		}
	}
	return resolveHunk(d, h, num, of, false)
}

// isNotFound reports whether err says a hunk's ORIGINAL is not in the file.
func isNotFound(err error) bool {
	var he *HunkError
	return errors.As(err, &he) && he.notFound
}

// narrow keeps, of the places ORIGINAL matches, those its AtEOF and Scope
// allow: the one ending at the end of the file, and those after the scope
// lines.
func (d *doc) narrow(ms []match, h Hunk) ([]match, error) {
	if h.AtEOF {
		var atEnd []match
		for _, m := range ms {
			if m.first+m.n == len(d.all()) {
				atEnd = append(atEnd, m)
			}
		}
		if len(atEnd) == 0 {
			return nil, fmt.Errorf("ORIGINAL matches lines %s, but the hunk is marked \"*** End of File\" and they are not the file's last lines", lineList(ms))
		}
		ms = atEnd
	}
	if len(ms) > 1 && len(h.Scope) > 0 {
		// The scope disambiguates only if exactly one candidate follows
		// it: Codex takes the first after the scope, which editbench
		// caught editing a look-alike block deeper in the same function.
		after, err := d.scopeLine(h.Scope)
		if err != nil {
			return nil, err
		}
		end := d.scopeEnd(after)
		var kept []match
		for _, m := range ms {
			if m.first > after && m.first+m.n <= end {
				kept = append(kept, m)
			}
		}
		if len(kept) == 0 {
			return nil, fmt.Errorf("ORIGINAL matches lines %s, none within the scope of line %d (%q)", lineList(ms), after+1, h.Scope[len(h.Scope)-1])
		}
		return kept, nil
	}
	return ms, nil
}

// scopeEnd returns where the block opened by the scope line at i ends:
// the first later line indented no deeper than it that does not close a
// bracket (a function's next sibling, not its closing brace).
func (d *doc) scopeEnd(i int) int {
	lines := d.all()
	depth := len(leadingSpace(d.content(i)))
	for k := i + 1; k < len(lines); k++ {
		c := d.content(k)
		t := strings.TrimSpace(c)
		if t == "" || len(leadingSpace(c)) > depth || strings.IndexByte("}])", t[0]) >= 0 {
			continue
		}
		return k
	}
	return len(lines)
}

// scopeLine returns the index of the line the scope lines lead to: the
// first must match exactly one line (ignoring surrounding whitespace and
// Unicode punctuation), each next one the first match after it.
func (d *doc) scopeLine(scope []string) (int, error) {
	lines := d.all()
	at := -1
	for k, s := range scope {
		want := tierPunctuation.key(s)
		found := -1
		for i := at + 1; i < len(lines); i++ {
			if tierPunctuation.key(d.content(i)) != want {
				continue
			}
			if k > 0 {
				found = i
				break
			}
			if found >= 0 {
				return 0, fmt.Errorf("the scope line %q matches lines %d and %d; give a more specific one (a function's whole signature)", s, found+1, i+1)
			}
			found = i
		}
		if found < 0 {
			return 0, fmt.Errorf("the scope line %q is not in the file", s)
		}
		at = found
	}
	return at, nil
}

// insert returns the insertion of a hunk without ORIGINAL lines: after its
// scope lines, or at the end of the file.
func (d *doc) insert(h Hunk, num, of int) ([]replacement, error) {
	lines := d.all()
	at := len(lines) - 1
	if len(h.Scope) > 0 {
		var err error
		if at, err = d.scopeLine(h.Scope); err != nil {
			return nil, &HunkError{Hunk: num, Of: of, Reason: err.Error()}
		}
	}
	eol := dominantEOL(lines)
	var b strings.Builder
	pos := 0
	if at >= 0 {
		l := lines[at]
		pos = l.end + len(l.eol())
		if l.eol() == "" {
			b.WriteString(eol) // the last line had no line break
		}
	}
	for i, u := range h.Updated {
		b.WriteString(u)
		if i < len(h.Updated)-1 || at < 0 || lines[at].eol() != "" || at < len(lines)-1 {
			b.WriteString(eol)
		}
	}
	return []replacement{{pos, pos, b.String(), num, pos}}, nil
}

func allBlank(lines []string) bool {
	for _, l := range lines {
		if !isBlankLine(l) {
			return false
		}
	}
	return true
}

// replace returns the replacement of the matched lines by h.Updated:
// lines that UPDATED keeps from ORIGINAL are copied from the file byte for
// byte, new lines get the file's indentation (at the indent tiers) and
// line ending, and the last line keeps the file's final-newline state.
func (d *doc) replace(m match, h Hunk, num, of int) ([]replacement, error) {
	if err := d.checkIndent(&m, h, num, of); err != nil {
		return nil, err
	}
	win := d.lines[m.first : m.first+m.n]
	last := win[len(win)-1]
	if len(h.Updated) == 0 {
		start, end := win[0].start, last.end+len(last.eol())
		if last.eol() == "" && m.first > 0 {
			prev := d.lines[m.first-1]
			start = prev.end // deleting the last lines: the new last line has no line ending either
		}
		return []replacement{{start, end, "", num, end}}, nil
	}
	keep := pairLines(h.Original, h.Updated, true)
	eol := dominantEOL(win)
	var b strings.Builder
	for k, u := range h.Updated {
		lineEOL := eol
		if oi, ok := keep[k]; ok {
			w := win[oi]
			b.WriteString(d.text[w.start:w.end])
			if w.eol() != "" {
				lineEOL = w.eol()
			}
		} else if m.indent != nil && !isBlankLine(u) {
			ind := leadingSpace(u)
			fileInd, ok := m.indent.apply(ind)
			if !ok {
				return nil, &HunkError{Hunk: num, Of: of, Reason: fmt.Sprintf("ORIGINAL matched lines %d-%d %s, but the indentation of the UPDATED line %q cannot be carried over to the file's; copy ORIGINAL's indentation exactly from the file", m.first+1, m.first+m.n, m.tier, clip(u))}
			}
			b.WriteString(fileInd)
			b.WriteString(u[len(ind):])
		} else if !isBlankLine(u) {
			b.WriteString(u)
		}
		if k < len(h.Updated)-1 {
			b.WriteString(lineEOL)
		}
	}
	return []replacement{{win[0].start, last.end, b.String(), num, last.end + len(last.eol())}}, nil
}

// contextPairs maps each UPDATED line that is an unchanged ORIGINAL line
// (by a longest common subsequence of equal lines) to that ORIGINAL line's
// index.
func contextPairs(orig, upd []string) map[int]int { return pairLines(orig, upd, false) }

// pairLines is contextPairs where, with blanksPair, whitespace-only lines
// also pair with each other whatever their whitespace: a hunk's context.
// A model that empties such a line in UPDATED only (editors strip them)
// has not edited it, and the file's bytes are kept. MinimalEdits must not
// pair them: it has to see a change of whitespace.
func pairLines(orig, upd []string, blanksPair bool) map[int]int {
	pairs := map[int]int{}
	same := func(a, b string) bool { return a == b || blanksPair && isBlankLine(a) && isBlankLine(b) }
	// Equal prefix and suffix first; the LCS runs on what is left.
	p := 0
	for p < len(orig) && p < len(upd) && same(orig[p], upd[p]) {
		pairs[p] = p
		p++
	}
	s := 0
	for s < len(orig)-p && s < len(upd)-p && same(orig[len(orig)-1-s], upd[len(upd)-1-s]) {
		pairs[len(upd)-1-s] = len(orig) - 1 - s
		s++
	}
	a, b := orig[p:len(orig)-s], upd[p:len(upd)-s]
	if len(a) == 0 || len(b) == 0 || len(a)*len(b) > 4_000_000 {
		return pairs
	}
	// dp[i][j] = LCS length of a[i:], b[j:].
	w := len(b) + 1
	dp := make([]int32, (len(a)+1)*w)
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if same(a[i], b[j]) {
				dp[i*w+j] = dp[(i+1)*w+j+1] + 1
			} else {
				dp[i*w+j] = max(dp[(i+1)*w+j], dp[i*w+j+1])
			}
		}
	}
	for i, j := 0, 0; i < len(a) && j < len(b); {
		switch {
		case same(a[i], b[j]):
			pairs[p+j] = p + i
			i++
			j++
		case dp[(i+1)*w+j] >= dp[i*w+j+1]:
			i++
		default:
			j++
		}
	}
	return pairs
}
