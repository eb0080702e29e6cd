package edits

import (
	"cmp"
	"slices"
	"strings"

	"github.com/aymanbagabas/go-udiff"
)

// A TextEdit replaces the bytes [Start, End) of a text with New.
type TextEdit struct {
	Start, End int
	New        string
}

// MinimalEdits returns small edits that turn before into after, in order
// and not overlapping: a line diff first, then each changed run of lines
// trimmed of the bytes it shares with its replacement at both ends. Lines
// the change does not touch are not part of any edit, so an editor keeps
// its cursors, marks and folds there.
func MinimalEdits(before, after string) []TextEdit {
	if before == after {
		return nil
	}
	// Most changes touch a small part of a large text: diff only the lines
	// between the common prefix and suffix.
	p := 0
	for p < len(before) && p < len(after) && before[p] == after[p] {
		p++
	}
	for p > 0 && before[p-1] != '\n' {
		p--
	}
	s := 0
	for s < len(before)-p && s < len(after)-p && before[len(before)-1-s] == after[len(after)-1-s] {
		s++
	}
	for s > 0 && len(before)-s > 0 && before[len(before)-s-1] != '\n' {
		s-- // back to the start of a line
	}
	var out []TextEdit
	for _, e := range refineLines(before, udiff.Lines(before[p:len(before)-s], after[p:len(after)-s]), p) {
		old := before[e.Start:e.End]
		p := 0
		for p < len(old) && p < len(e.New) && old[p] == e.New[p] {
			p++
		}
		s := 0
		for s < len(old)-p && s < len(e.New)-p && old[len(old)-1-s] == e.New[len(e.New)-1-s] {
			s++
		}
		// Keep a multi-byte character whole: back off to its start.
		for p > 0 && p < len(old) && !isCharBoundary(old, p) {
			p--
		}
		for s > 0 && !isCharBoundary(old, len(old)-s) {
			s--
		}
		if p+s > len(old) || p+s > len(e.New) {
			continue
		}
		out = append(out, TextEdit{Start: e.Start + p, End: e.End - s, New: e.New[p : len(e.New)-s]})
	}
	return out
}

// isCharBoundary reports whether i is not inside a UTF-8 sequence of s.
func isCharBoundary(s string, i int) bool {
	return i == 0 || i == len(s) || s[i]&0xC0 != 0x80
}

// ApplyEdits applies sorted, non-overlapping edits to text.
func ApplyEdits(text string, edits []TextEdit) string {
	var reps []replacement
	for _, e := range edits {
		reps = append(reps, replacement{start: e.Start, end: e.End, repl: e.New})
	}
	out, _ := splice(text, reps, 0)
	return out
}

// refineLines splits the line edits of a diff (whose offsets are relative
// to base) where lines inside them are unchanged: large inputs make the
// diff coarse, merging nearby changes with the lines between them, and
// those lines must not be rewritten (an editor would move cursors and
// marks there).
func refineLines(text string, es []udiff.Edit, base int) []TextEdit {
	var out []TextEdit
	for _, e := range es {
		start, end := e.Start+base, e.End+base
		oldLines := strings.SplitAfter(text[start:end], "\n")
		newLines := strings.SplitAfter(e.New, "\n")
		offs := make([]int, len(oldLines)+1)
		offs[0] = start
		for i, l := range oldLines {
			offs[i+1] = offs[i] + len(l)
		}
		oi, ni := 0, 0
		flush := func(o, n int) {
			// The gap oldLines[oi:o] → newLines[ni:n].
			if o > oi || n > ni {
				out = append(out, TextEdit{Start: offs[oi], End: offs[o], New: strings.Join(newLines[ni:n], "")})
			}
			oi, ni = o+1, n+1
		}
		for _, k := range keptLines(oldLines, newLines, exactLCSLimit, 0) {
			flush(k[0], k[1])
		}
		flush(len(oldLines), len(newLines))
	}
	return out
}

// exactLCSLimit bounds the old×new line count of blocks given an exact
// (quadratic) LCS.
const exactLCSLimit = 10_000

// keptLines returns the (old, new) index pairs of lines a block keeps, in
// increasing order. Small blocks get an exact LCS; big ones are split at
// lines unique on both sides (patience diff), which keeps the cost near
// linear, and the gaps between those are refined the same way.
func keptLines(oldLines, newLines []string, exactLimit, depth int) [][2]int {
	if len(oldLines) == 0 || len(newLines) == 0 {
		return nil
	}
	if len(oldLines)*len(newLines) <= exactLimit {
		pairs := contextPairs(oldLines, newLines) // new index → old index
		var out [][2]int
		last := -1
		for n := range newLines {
			if o, ok := pairs[n]; ok && o > last {
				out = append(out, [2]int{o, n})
				last = o
			}
		}
		return out
	}
	anchors := uniqueCommon(oldLines, newLines)
	if len(anchors) == 0 || depth >= 8 {
		return nil
	}
	var out [][2]int
	po, pn := 0, 0
	for _, a := range append(anchors, [2]int{len(oldLines), len(newLines)}) {
		for _, k := range keptLines(oldLines[po:a[0]], newLines[pn:a[1]], exactLimit, depth+1) {
			out = append(out, [2]int{k[0] + po, k[1] + pn})
		}
		if a[0] < len(oldLines) {
			out = append(out, a)
		}
		po, pn = a[0]+1, a[1]+1
	}
	return out
}

// uniqueCommon returns the longest increasing run of pairs of lines that
// occur exactly once in each of old and new.
func uniqueCommon(oldLines, newLines []string) [][2]int {
	type seen struct{ o, n, oi int }
	count := make(map[string]*seen, len(oldLines))
	for i, l := range oldLines {
		c := count[l]
		if c == nil {
			c = &seen{}
			count[l] = c
		}
		c.o++
		c.oi = i
	}
	var cand [][2]int // in new order
	for _, l := range newLines {
		if c := count[l]; c != nil {
			c.n++
		}
	}
	for j, l := range newLines {
		if c := count[l]; c != nil && c.o == 1 && c.n == 1 {
			cand = append(cand, [2]int{c.oi, j})
		}
	}
	// Longest increasing subsequence of old indexes, by patience sorting.
	var tails []int // index into cand of the smallest tail of each length
	prev := make([]int, len(cand))
	for i, c := range cand {
		k, _ := slices.BinarySearchFunc(tails, c[0], func(t, o int) int { return cmp.Compare(cand[t][0], o) })
		if k > 0 {
			prev[i] = tails[k-1]
		} else {
			prev[i] = -1
		}
		if k == len(tails) {
			tails = append(tails, i)
		} else {
			tails[k] = i
		}
	}
	if len(tails) == 0 {
		return nil
	}
	out := make([][2]int, len(tails))
	for i, k := len(tails)-1, tails[len(tails)-1]; i >= 0; i, k = i-1, prev[k] {
		out[i] = cand[k]
	}
	return out
}
