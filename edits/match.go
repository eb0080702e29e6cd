package edits

import (
	"fmt"
	"strings"
)

// A tier is how loosely a hunk's ORIGINAL lines are compared with the
// file's. Matching tries each in order and stops at the first that finds
// any candidate; more than one candidate there is an error, never a guess.
type tier int

const (
	tierExact       tier = iota // byte-equal lines (line endings aside)
	tierTrailing                // trailing whitespace ignored on non-blank lines
	tierBlank                   // whitespace-only lines equal each other
	tierIndent                  // a uniform indentation shift, tabs ⇄ spaces
	tierPunctuation             // typographic quotes, dashes, spaces folded to ASCII
	numTiers
)

func (t tier) String() string {
	return [...]string{"exact", "ignoring trailing whitespace", "ignoring whitespace-only lines",
		"ignoring a uniform indentation shift", "ignoring Unicode punctuation"}[t]
}

// key returns what a line is compared by at a tier; indentation is checked
// separately at the indent and punctuation tiers.
func (t tier) key(s string) string {
	switch t {
	case tierExact:
		return s
	case tierTrailing:
		if isBlankLine(s) {
			return s
		}
		return strings.TrimRight(s, " \t")
	case tierBlank:
		return strings.TrimRight(s, " \t")
	case tierIndent:
		return strings.TrimSpace(s)
	default:
		return foldPunctuation(strings.TrimSpace(s))
	}
}

// A match is where a hunk's ORIGINAL lines stand in a text.
type match struct {
	first, n int // lines[first : first+n]
	tier     tier
	indent   *indentMap // for the indent and punctuation tiers
}

// doc is a text prepared for matching: its lines, found once.
type doc struct {
	text  string
	lines []line
}

func newDoc(text string) *doc { return &doc{text: text, lines: splitLines(text)} }

func (d *doc) content(i int) string { return d.text[d.lines[i].start:d.lines[i].end] }

// find returns the candidates for orig at the loosest tier needed, and
// that tier. updated (the hunk's new lines) helps tell the model's
// indentation unit.
func (d *doc) find(orig, updated []string) ([]match, tier) {
	pivot := -1
	for i, l := range orig {
		if !isBlankLine(l) {
			pivot = i
			break
		}
	}
	for t := tierExact; t < numTiers; t++ {
		if ms := d.findAt(t, orig, updated, pivot); len(ms) > 0 {
			return ms, t
		}
	}
	return nil, numTiers
}

// findAt returns the windows that match orig at tier t. pivot is the
// index of orig's first non-blank line (-1: all blank); candidates are the
// file lines whose key equals the pivot's.
func (d *doc) findAt(t tier, orig, updated []string, pivot int) []match {
	n := len(orig)
	if n == 0 || n > len(d.lines) {
		return nil
	}
	if pivot < 0 {
		pivot = 0
	}
	want := t.key(orig[pivot])
	var out []match
	for i := pivot; i <= len(d.lines)-n+pivot; i++ {
		if t.key(d.content(i)) != want {
			continue
		}
		first := i - pivot
		if m, ok := d.matchWindow(t, orig, updated, first); ok {
			out = append(out, m)
		}
	}
	return out
}

// matchWindow checks orig against the lines from first on at tier t.
func (d *doc) matchWindow(t tier, orig, updated []string, first int) (match, bool) {
	for j, o := range orig {
		f := d.content(first + j)
		if t.key(f) != t.key(o) {
			return match{}, false
		}
	}
	m := match{first: first, n: len(orig), tier: t}
	if t < tierIndent {
		return m, true
	}
	var fileInd, modelInd, updInd []string
	for j, o := range orig {
		if isBlankLine(o) {
			continue
		}
		fileInd = append(fileInd, leadingSpace(d.content(first+j)))
		modelInd = append(modelInd, leadingSpace(o))
	}
	for _, u := range updated {
		if !isBlankLine(u) {
			updInd = append(updInd, leadingSpace(u))
		}
	}
	im, ok := deriveIndentMap(fileInd, modelInd, updInd)
	if !ok {
		return match{}, false
	}
	m.indent = &im
	return m, true
}

// lineList renders the 1-based line numbers of matches for an error.
func lineList(ms []match) string {
	var parts []string
	for i, m := range ms {
		if i == 5 {
			parts = append(parts, fmt.Sprintf("and %d more", len(ms)-5))
			break
		}
		parts = append(parts, fmt.Sprintf("%d-%d", m.first+1, m.first+m.n))
	}
	return strings.Join(parts, ", ")
}
