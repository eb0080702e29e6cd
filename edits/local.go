package edits

import (
	"slices"
	"strings"
)

// The local path resolves a hunk that is not exactly in the text (its
// whitespace differs, say) without splitting the whole text into lines:
// the lines that can hold ORIGINAL's pivot line are found by searching the
// text for a literal stretch of its key (literalRun), and only the windows
// around them are split and matched, tier by tier, as find does. It
// settles the common case, one window matching at the loosest tier needed;
// anything else (no window, several, too many candidates, an error to
// explain) goes the general way, which also names lines.

// localStatus says what the local path found.
type localStatus int

const (
	localUnsure  localStatus = iota // the general way must decide
	localNone                       // no window matches at any tier
	localApplied                    // one window matched: the replacements are made
)

// maxLocalCandidates is how many candidate windows the local path checks
// before leaving a hunk to the general way, which indexes the lines.
const maxLocalCandidates = 256

// A localWindow is a candidate window: the lines of ORIGINAL's size around
// a pivot hit (and the line before them), as a doc of their own.
type localWindow struct {
	w     *doc
	first int // the window's first line in w.lines
}

// resolveLocal resolves h by the local path.
func (d *doc) resolveLocal(h Hunk, num, of int) ([]replacement, localStatus) {
	ms, t, st := d.findLocal(h.Original, h.Updated)
	if st != localApplied {
		return nil, st
	}
	if len(ms) != 1 {
		return nil, localUnsure // ambiguous: the general way names the places
	}
	if t > tierExact && len(h.Updated) > 0 {
		// ORIGINAL matched loosely: if UPDATED is in the text exactly, the
		// edit was made already, which the general way reports. Only the
		// exact tier tells that, and any line of UPDATED finds its windows:
		// one it shares with ORIGINAL reuses the lines found for ORIGINAL
		// instead of searching the text again.
		us, _, ust := d.findLocalAt(h.Updated, nil, d.cachedPivot(h.Updated), tierExact)
		if ust == localUnsure || ust == localApplied && len(us) > 0 {
			return nil, localUnsure
		}
	}
	m := ms[0]
	r, err := m.w.replace(m.m, h, num, of)
	if err != nil {
		return nil, localUnsure // the general way's error names the file's lines
	}
	return r, localApplied
}

// A localMatch is a window that matched, and how.
type localMatch struct {
	w *doc
	m match
}

// findLocal returns the windows that match orig at the loosest tier
// needed, and that tier, with localApplied; localNone when no window
// matches at any tier; localUnsure when the local path cannot tell.
func (d *doc) findLocal(orig, updated []string) ([]localMatch, tier, localStatus) {
	return d.findLocalAt(orig, updated, longestKeyLine(orig), numTiers-1)
}

// longestKeyLine returns the index of the longest line of lines without
// its surrounding whitespace (the pivot find and findLocal search by:
// a long line has few look-alikes), or -1 if all are blank.
func longestKeyLine(lines []string) int {
	pivot, longest := -1, -1
	for i, l := range lines {
		if t := strings.TrimSpace(l); t != "" && len(t) > longest {
			pivot, longest = i, len(t)
		}
	}
	return pivot
}

// cachedPivot returns a line of lines whose literal run linesHolding has
// found already, with few enough hits for the local path, or else the
// longest line: for an exact search any line of the block serves.
func (d *doc) cachedPivot(lines []string) int {
	// A line copied from ORIGINAL is the very line searched for.
	for i, l := range lines {
		for _, h := range d.runHits {
			if l == h.line && len(h.starts) <= maxLocalCandidates {
				return i
			}
		}
	}
	for i, l := range lines {
		if isBlankLine(l) {
			continue
		}
		if hits, ok := d.cachedHits(literalRun(tierPunctuation.key(l))); ok && len(hits) <= maxLocalCandidates {
			return i
		}
	}
	return longestKeyLine(lines)
}

// findLocalAt is findLocal with the pivot line given (-1: none) and the
// tiers tried up to last: a caller that only asks whether a block is in
// the text exactly stops at the exact tier.
func (d *doc) findLocalAt(orig, updated []string, pivot int, last tier) ([]localMatch, tier, localStatus) {
	n := len(orig)
	if pivot < 0 {
		return nil, numTiers, localUnsure
	}
	want := tierPunctuation.key(orig[pivot])
	run := literalRun(want)
	if len(run) < 3 {
		return nil, numTiers, localUnsure
	}
	text := d.text
	var few [4]localWindow // most hunks have one or two windows
	cands := few[:0]
	for _, ls := range d.linesHolding(run, orig[pivot]) {
		le := len(text)
		if e := strings.IndexByte(text[ls:], '\n'); e >= 0 {
			le = ls + e
		}
		content := strings.TrimSuffix(text[ls:le], "\r")
		if t := strings.TrimSpace(content); t != want && (len(t) < len(want) || foldPunctuation(t) != want) {
			continue
		}
		start := ls
		for range pivot {
			if start == 0 {
				start = -1
				break
			}
			start = strings.LastIndexByte(text[:start-1], '\n') + 1
		}
		if start < 0 {
			continue // the window would begin before the text
		}
		w, first, ok := d.linesAt(start, n)
		if !ok {
			continue
		}
		if len(cands) == maxLocalCandidates {
			return nil, numTiers, localUnsure
		}
		cands = append(cands, localWindow{w, first})
	}
	budget := matchBudget(len(cands)*n, n)
	for t := tierExact; t <= last; t++ {
		var out []localMatch
		for _, c := range cands {
			// The last line first: a blank line ending ORIGINAL that is
			// not in the file (gptme's final newline, tried next) fails
			// there at every tier.
			if budget--; t.key(c.w.content(c.first+n-1)) != t.key(orig[n-1]) {
				continue
			}
			m, ok := c.w.matchWindow(t, orig, updated, c.first, &budget)
			if budget < 0 {
				return nil, numTiers, localUnsure
			}
			if ok {
				out = append(out, localMatch{c.w, m})
			}
		}
		if len(out) > 0 {
			return out, t, localApplied
		}
	}
	return nil, numTiers, localNone
}

// linesAt returns a doc of the n lines from byte offset start, split as
// splitLines does (a "\r" before "\n" is the line ending's), after the line
// before them if any (which deleting the last lines needs), and the index
// of the first of the n; false if the text has fewer lines from start.
func (d *doc) linesAt(start, n int) (*doc, int, bool) {
	// Windows are asked for in order of their start, and again for the
	// same places (a shorter ORIGINAL, UPDATED): a split window serves
	// any n up to its own, its lines past n being never read.
	i, found := slices.BinarySearchFunc(d.windows, start, func(w splitWindow, start int) int { return w.start - start })
	if found && d.windows[i].n >= n {
		return d.windows[i].w, d.windows[i].first, true
	}
	w, first, ok := d.splitAt(start, n)
	if !ok || len(d.windows) >= maxCachedWindows {
		return w, first, ok
	}
	if d.windows == nil {
		d.windows = d.fewWindows[:0]
	}
	if found {
		d.windows[i] = splitWindow{start, first, n, w}
	} else {
		d.windows = slices.Insert(d.windows, i, splitWindow{start, first, n, w})
	}
	return w, first, true
}

// maxCachedWindows bounds the windows linesAt keeps for a text: a few
// hunks' candidates.
const maxCachedWindows = 4 * maxLocalCandidates

// splitAt is linesAt without its cache.
func (d *doc) splitAt(start, n int) (*doc, int, bool) {
	text := d.text
	w := &doc{text: text, split: true, lines: make([]line, 0, n+1)}
	lineAt := func(s int) (line, int) {
		e := strings.IndexByte(text[s:], '\n')
		if e < 0 {
			return line{start: s, end: len(text)}, len(text)
		}
		l := line{start: s, end: s + e, nl: lf}
		if l.end > l.start && text[l.end-1] == '\r' {
			l.end, l.nl = l.end-1, crlf
		}
		return l, s + e + 1
	}
	first := 0
	if start > 0 {
		prev := strings.LastIndexByte(text[:start-1], '\n') + 1
		l, _ := lineAt(prev)
		w.lines = append(w.lines, l)
		first = 1
	}
	at := start
	for range n {
		if at >= len(text) {
			return nil, 0, false // past the final newline there is no line
		}
		var l line
		l, at = lineAt(at)
		w.lines = append(w.lines, l)
	}
	return w, first, true
}

// linesHolding returns the starts of the lines that hold run (of the
// pivot line line), found by its rarest byte and kept: ORIGINAL, the same ORIGINAL read without its
// last blank line, and UPDATED often share their pivot line.
func (d *doc) linesHolding(run, line string) []int {
	if hits, ok := d.cachedHits(run); ok {
		return hits
	}
	var hits []int
	text := d.text
	rare := d.rarestByte(run)
	for from := 0; from < len(text); {
		at := d.indexRare(text, from, run, rare)
		if at < 0 {
			break
		}
		ls := strings.LastIndexByte(text[:at], '\n') + 1
		hits = append(hits, ls)
		from = len(text)
		if e := strings.IndexByte(text[at:], '\n'); e >= 0 {
			from = at + e + 1 // one hit a line
		}
	}
	if d.runHits == nil {
		d.runHits = d.fewRuns[:0]
	}
	d.runHits = append(d.runHits, runHits{run, line, hits})
	return hits
}

// cachedHits returns the line starts linesHolding found for run, if it
// was asked for them.
func (d *doc) cachedHits(run string) ([]int, bool) {
	for _, h := range d.runHits {
		if h.run == run {
			return h.starts, true
		}
	}
	return nil, false
}
