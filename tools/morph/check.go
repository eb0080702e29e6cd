package morph

import (
	"fmt"
	"slices"
	"strings"

	"github.com/agentls/agentls/internal/text"
)

// maxAlignCells bounds the table the check of one changed region aligns
// (its original lines × its result lines, after their common ends are
// trimmed): 4M cells, 16 MB. A region past it is refused, never guessed.
const maxAlignCells = 4 << 20

// A piece is one run of the lazy edit's lines between markers: code the
// edit shows, which the result must hold as it is.
type piece struct {
	lines []string // the edit's lines, blank lines at its ends dropped
	keys  []string // its non-blank lines, trimmed: how it is found in the result
}

// pieces splits a lazy edit at its marker lines. Blank lines at a
// piece's ends are dropped (models put them around markers loosely);
// a piece of blank lines only is no piece.
func pieces(edit string) ([]piece, int) {
	var out []piece
	var cur []string
	markers := 0
	flush := func() {
		for len(cur) > 0 && strings.TrimSpace(cur[0]) == "" {
			cur = cur[1:]
		}
		for len(cur) > 0 && strings.TrimSpace(cur[len(cur)-1]) == "" {
			cur = cur[:len(cur)-1]
		}
		if len(cur) > 0 {
			p := piece{lines: cur}
			for _, l := range cur {
				if k := strings.TrimSpace(l); k != "" {
					p.keys = append(p.keys, k)
				}
			}
			out = append(out, p)
		}
		cur = nil
	}
	for _, l := range splitLines(edit) {
		if IsMarker(l) {
			markers++
			flush()
			continue
		}
		cur = append(cur, l)
	}
	flush()
	return out, markers
}

// IsMarker reports whether a line of a lazy edit stands for unchanged
// code: a comment whose text starts with "..." ("// ... existing code
// ...", "# ...", "<!-- ... -->"). A bare "..." is code (Python's
// Ellipsis), not a marker.
func IsMarker(line string) bool {
	if !strings.Contains(line, "...") {
		return false // most lines: one fast scan
	}
	t := strings.TrimSpace(line)
	for _, open := range []string{"//", "#", "--", "/*", "<!--", ";", "%", "*", "{/*"} {
		if rest, ok := strings.CutPrefix(t, open); ok {
			return strings.HasPrefix(strings.TrimSpace(rest), "...")
		}
	}
	return false
}

// splitLines returns a text's lines without their endings (a CR before
// the LF included); a final line break ends the last line, it starts no
// new one.
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	s = strings.TrimSuffix(s, "\n")
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "\r")
	}
	return lines
}

// A Refusal is why a merged file was not taken: what is wrong, in words
// the agent can act on.
type Refusal struct {
	Reason string
}

func (r *Refusal) Error() string { return r.Reason }

// Check decides whether result is a faithful merge of the lazy edit into
// original, and returns a Refusal saying why not.
//
// The design: the edit is a sequence of pieces (its lines between
// markers), each shown code the result must hold. So:
//
//  1. Every piece is found in the result, in the edit's order, as one run
//     of lines: its non-blank lines consecutive among the result's
//     non-blank lines, compared without surrounding whitespace, each piece
//     at its first place after the one before. The run (with the blank
//     lines around it) is what that piece names. A piece the result does
//     not hold is refused: the merge dropped part of the edit.
//  2. The result's lines outside every piece's run — the gaps — must be
//     the original's lines, byte for byte and in order: the first gap is
//     the original's first lines, the last gap its last lines, each gap
//     between them found at its first place after the previous one. So
//     every line the edit does not name is preserved in order; a line
//     changed or added there is refused with its line number.
//  3. Between two gaps, the original's lines (the region the pieces
//     there replace) are aligned with the pieces' lines (a longest common
//     subsequence). An original line the alignment does not keep was
//     deleted, which the edit names only when a kept line of the same
//     piece comes before it and another after it (the piece shows the
//     lines around what it removes; a marker between two pieces means the
//     code there stays), or when it is blank, or when the piece holds the
//     same line re-indented in that place. Any other deletion is refused.
//
// A marker line the original does not hold is refused anywhere in the
// result (the merge copied the edit's marker into the file). The check is
// sound whatever place step 1 or 2 picks when a run is in the result
// more than once (everything accepted obeys the rules above); such a
// pick can only refuse a merge it could have taken.
func Check(original, edit, result string) error {
	return checkNamed(original, edit, result, nil)
}

// NamedKey is how a line is looked up in checkNamed's named lines: its
// words, whitespace runs as one space (a patch's ORIGINAL that does not
// match often differs in spacing only).
func NamedKey(line string) string { return strings.Join(strings.Fields(line), " ") }

// checkNamed is Check where an original line whose NamedKey is in
// named may also be deleted (a patch's ORIGINAL lines, which the patch
// says it replaces: PatchFallback).
func checkNamed(original, edit, result string, named map[string]bool) error {
	ps, _ := pieces(edit)
	if len(ps) == 0 {
		return &Refusal{"the edit holds only markers: there is nothing to merge"}
	}
	o, r := splitLines(original), splitLines(result)
	err := checkLines(o, r, ps, named)
	if err == nil {
		return nil
	}
	// An edit that does not begin (end) with a marker says its first
	// (last) piece is the file's beginning (end): there the file's edge
	// is a line the piece shows, so lines between it and the piece's
	// first shown line are named. This holds only when the merge put the
	// piece there; else the refusal above stands.
	lead, trail := !startsWithMarker(edit), !startsWithMarker(reverseLines(edit))
	if !lead && !trail {
		return err
	}
	eo, er := withEdges(o, lead, trail), withEdges(r, lead, trail)
	eps := slices.Clone(ps)
	if lead {
		eps[0] = piece{lines: append([]string{fileEdge}, eps[0].lines...), keys: append([]string{fileEdge}, eps[0].keys...)}
	}
	if trail {
		k := len(eps) - 1
		eps[k] = piece{lines: append(slices.Clone(eps[k].lines), fileEdge), keys: append(slices.Clone(eps[k].keys), fileEdge)}
	}
	if checkLines(eo, er, eps, named) == nil {
		return nil
	}
	return err
}

// fileEdge stands for the beginning or end of a file in checkLines: a
// line no text holds.
const fileEdge = "\x00file edge\x00"

func withEdges(lines []string, lead, trail bool) []string {
	out := make([]string, 0, len(lines)+2)
	if lead {
		out = append(out, fileEdge)
	}
	out = append(out, lines...)
	if trail {
		out = append(out, fileEdge)
	}
	return out
}

// startsWithMarker reports whether a text's first non-blank line is a
// marker.
func startsWithMarker(text string) bool {
	for _, l := range splitLines(text) {
		if strings.TrimSpace(l) != "" {
			return IsMarker(l)
		}
	}
	return false
}

func reverseLines(text string) string {
	lines := splitLines(text)
	slices.Reverse(lines)
	return strings.Join(lines, "\n")
}

// checkLines is Check on the texts' lines and the edit's pieces.
func checkLines(o, r []string, ps []piece, named map[string]bool) error {
	inOriginal := map[string]bool{}
	for _, l := range o {
		if IsMarker(l) {
			inOriginal[l] = true
		}
	}
	for i, l := range r {
		if IsMarker(l) && !inOriginal[l] {
			return &Refusal{fmt.Sprintf("the merged file's line %d is a marker (%q): the apply model copied it from the edit instead of the code it stands for", i+1, strings.TrimSpace(l))}
		}
	}
	spans, err := locate(ps, r)
	if err != nil {
		return err
	}
	// The gaps between the spans, in the result: gap i ends where span i
	// starts.
	gaps := make([][2]int, len(spans)+1)
	prev := 0
	for i, s := range spans {
		gaps[i] = [2]int{prev, s[0]}
		prev = s[1]
	}
	gaps[len(spans)] = [2]int{prev, len(r)}
	// Where each gap lies in the original.
	first, last := gaps[0], gaps[len(gaps)-1]
	headLen, tailLen := first[1]-first[0], last[1]-last[0]
	if headLen+tailLen > len(o) {
		return &Refusal{"the merged file keeps more unchanged lines than the original has: it repeats code"}
	}
	if i := firstDiff(o[:headLen], r[:headLen]); i >= 0 {
		return changedLine(i, o, r, i)
	}
	tailO := len(o) - tailLen
	if i := firstDiff(o[tailO:], r[last[0]:]); i >= 0 {
		return changedLine(tailO+i, o, r, last[0]+i)
	}
	at := make([]int, len(gaps)) // each gap's first line in the original
	at[0], at[len(gaps)-1] = 0, tailO
	cursor := headLen
	for i := 1; i < len(gaps)-1; i++ {
		g := r[gaps[i][0]:gaps[i][1]]
		j := find(o[:tailO], g, cursor)
		if j < 0 {
			return unplacedGap(r, gaps[i], o, cursor, tailO)
		}
		at[i] = j
		cursor = j + len(g)
	}
	// Each run of spans between two non-empty gaps (or the file's ends)
	// is one region of the original to align.
	for i := 0; i < len(spans); {
		j := i
		for j+1 < len(spans) && gaps[j+1][0] == gaps[j+1][1] {
			j++ // an empty gap: spans i..j+1 touch in the result
		}
		oFrom := at[i] + (gaps[i][1] - gaps[i][0])
		oTo := at[j+1]
		if oTo < oFrom {
			return &Refusal{"the merged file repeats unchanged code around an edited piece"}
		}
		if err := checkRegion(o[oFrom:oTo], oFrom, r, spans[i:j+1], named); err != nil {
			return err
		}
		i = j + 1
	}
	return nil
}

// locate finds each piece's run in the result (rule 1) and returns the
// runs as [from, to) line ranges, widened over the blank lines around
// them.
func locate(ps []piece, r []string) ([][2]int, error) {
	var nonBlank []int // result line numbers of its non-blank lines
	var keys []string
	for i, l := range r {
		if k := strings.TrimSpace(l); k != "" {
			nonBlank = append(nonBlank, i)
			keys = append(keys, k)
		}
	}
	spans := make([][2]int, len(ps))
	cursor, floor := 0, 0
	for i, p := range ps {
		j := find(keys, p.keys, cursor)
		if j < 0 {
			return nil, &Refusal{fmt.Sprintf("the merged file does not hold piece %d of the edit as written (starting %q): the apply model dropped or changed part of the edit", i+1, p.keys[0])}
		}
		from, to := nonBlank[j], nonBlank[j+len(p.keys)-1]+1
		for from > floor && strings.TrimSpace(r[from-1]) == "" {
			from--
		}
		for to < len(r) && strings.TrimSpace(r[to]) == "" {
			to++
		}
		spans[i] = [2]int{from, to}
		cursor, floor = j+len(p.keys), to
	}
	return spans, nil
}

// checkRegion applies rule 3 to one region: orig (starting at the
// original's line base) replaced by the result's spans, which are
// consecutive in the result.
func checkRegion(orig []string, base int, r []string, spans [][2]int, named map[string]bool) error {
	var res []string
	var owner []int // which span each result line of the region is in
	for k, s := range spans {
		res = append(res, r[s[0]:s[1]]...)
		for range s[1] - s[0] {
			owner = append(owner, k)
		}
	}
	// The whole region is aligned: trimming the common ends first would
	// itself pick which equal lines pair (a common last "}" is the next
	// function's as well as the piece's), which the two alignments below
	// must decide.
	pre, suf := 0, 0
	mo, mr := orig[pre:len(orig)-suf], res[pre:len(res)-suf]
	if len(mo) == 0 {
		return nil // only insertions: the pieces' own lines
	}
	if len(mo)*max(1, len(mr)) > maxAlignCells {
		return &Refusal{fmt.Sprintf("the change around line %d replaces %d lines with %d: too large to check line by line; edit it in smaller parts, or use save", base+pre+1, len(mo), len(mr))}
	}
	// Which of several equal lines a piece's line stands for is the
	// alignment's choice (a piece's closing "}" may pair with the
	// original's next function's), and a later pick brackets more: so
	// the deletions are checked under the alignment that keeps the
	// original's lines as early as it can and under the one that keeps
	// them as late as it can, and must be named under both.
	if err := checkDeletions(mo, mr, res, owner, pre, suf, base, align(mo, mr), named); err != nil {
		return err
	}
	return checkDeletions(mo, mr, res, owner, pre, suf, base, alignLate(mo, mr), named)
}

// checkDeletions applies rule 3's test to each original line of the
// middle mo that keptO does not keep (keptO[i]: the middle result line it
// is kept as, or -1).
func checkDeletions(mo, mr, res []string, owner []int, pre, suf, base int, keptO []int, named map[string]bool) error {
	keptR := make([]bool, len(mr))
	for _, k := range keptO {
		if k >= 0 {
			keptR[k] = true
		}
	}
	// anchor returns the region's result line original middle line i is
	// kept as, when it is a line a piece shows (not blank), else -1; i
	// may run into the common ends.
	anchor := func(i int) int {
		at := -1
		switch {
		case i < 0:
			at = pre + i // the common prefix: kept as itself
		case i >= len(mo):
			at = len(res) - suf + (i - len(mo))
		case keptO[i] >= 0:
			at = pre + keptO[i]
		}
		if at < 0 || at >= len(res) || strings.TrimSpace(res[at]) == "" {
			return -1
		}
		return at
	}
	// The nearest anchors before and after each middle line, found in
	// one pass each way.
	prevAnchor, nextAnchor := make([]int, len(mo)), make([]int, len(mo))
	last := -1
	for k := -pre; k < 0; k++ {
		if at := anchor(k); at >= 0 {
			last = at
		}
	}
	for i := range mo {
		prevAnchor[i] = last
		if at := anchor(i); at >= 0 {
			last = at
		}
	}
	last = -1
	for k := len(mo) + suf - 1; k >= len(mo); k-- {
		if at := anchor(k); at >= 0 {
			last = at
		}
	}
	for i := len(mo) - 1; i >= 0; i-- {
		nextAnchor[i] = last
		if at := anchor(i); at >= 0 {
			last = at
		}
	}
	usedReindent := map[int]bool{}
	for i := range mo {
		if keptO[i] >= 0 || strings.TrimSpace(mo[i]) == "" || named[NamedKey(mo[i])] {
			continue
		}
		before, after := prevAnchor[i], nextAnchor[i]
		if before >= 0 && after >= 0 && owner[before] == owner[after] {
			continue // between two lines its piece shows
		}
		// The same line, re-indented, among the result lines between
		// its kept neighbours.
		lo, hi := before+1, len(res)
		if after >= 0 {
			hi = after
		}
		if before < 0 {
			lo = 0
		}
		key := strings.TrimSpace(mo[i])
		found := false
		for x := max(lo, pre); x < min(hi, len(res)-suf); x++ {
			if !usedReindent[x] && !keptR[x-pre] && strings.TrimSpace(res[x]) == key {
				usedReindent[x], found = true, true
				break
			}
		}
		if found {
			continue
		}
		return &Refusal{fmt.Sprintf("the merged file deletes the original's line %d (%q), which the edit does not name: to remove lines, show the lines just before and after them in the same piece of the edit", base+pre+i+1, clipLine(mo[i]))}
	}
	return nil
}

// alignLate is align keeping a's lines as late as it can: align on the
// reversed lines, read back.
func alignLate(a, b []string) []int {
	ra, rb := slices.Clone(a), slices.Clone(b)
	slices.Reverse(ra)
	slices.Reverse(rb)
	k := align(ra, rb)
	slices.Reverse(k)
	for i, j := range k {
		if j >= 0 {
			k[i] = len(b) - 1 - j
		}
	}
	return k
}

// align returns, for each line of a, the index of the line of b a
// longest common subsequence pairs it with, or -1; a's lines are kept as
// early as they can be (a tie skips a line of b first).
func align(a, b []string) []int {
	n, m := len(a), len(b)
	// t[i][j] = LCS length of a[i:] and b[j:], in one slice.
	t := make([]int32, (n+1)*(m+1))
	w := m + 1
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			switch {
			case a[i] == b[j]:
				t[i*w+j] = t[(i+1)*w+j+1] + 1
			case t[(i+1)*w+j] >= t[i*w+j+1]:
				t[i*w+j] = t[(i+1)*w+j]
			default:
				t[i*w+j] = t[i*w+j+1]
			}
		}
	}
	out := make([]int, n)
	for i := range out {
		out[i] = -1
	}
	i, j := 0, 0
	for i < n && j < m {
		switch {
		case a[i] == b[j]:
			out[i] = j
			i++
			j++
		case t[i*w+j+1] >= t[(i+1)*w+j]:
			j++
		default:
			i++
		}
	}
	return out
}

// find returns the first index at or after from where sub occurs in s as
// a run, or -1. An empty sub is at from.
func find(s, sub []string, from int) int {
	if len(sub) == 0 {
		return from
	}
	for i := from; i+len(sub) <= len(s); i++ {
		if s[i] != sub[0] {
			continue
		}
		ok := true
		for k := 1; k < len(sub); k++ {
			if s[i+k] != sub[k] {
				ok = false
				break
			}
		}
		if ok {
			return i
		}
	}
	return -1
}

// firstDiff returns the first index where a and b differ, or -1.
func firstDiff(a, b []string) int {
	for i := range a {
		if a[i] != b[i] {
			return i
		}
	}
	return -1
}

func changedLine(oi int, o, r []string, ri int) error {
	return &Refusal{fmt.Sprintf("the merged file changes a line the edit does not name: the original's line %d is %q, the merged file's line %d is %q", oi+1, clipLine(o[oi]), ri+1, clipLine(r[ri]))}
}

// unplacedGap says which unchanged-looking run of the result is not the
// original's: its first line that differs from the original where it
// would have to be.
func unplacedGap(r []string, gap [2]int, o []string, from, to int) error {
	g := r[gap[0]:gap[1]]
	for k := range g {
		if find(o[:to], g[:k+1], from) < 0 {
			return &Refusal{fmt.Sprintf("the merged file's line %d (%q) is neither in the edit nor the original's line in that place: the apply model changed or added code the edit does not name", gap[0]+k+1, clipLine(g[k]))}
		}
	}
	return &Refusal{fmt.Sprintf("the merged file's lines %d-%d are not in the original in that order: the apply model moved code", gap[0]+1, gap[1])}
}

// clipLine is a line as a refusal quotes it: trimmed, at most 80 bytes,
// never cut inside a character.
func clipLine(s string) string { return text.Shorten(strings.TrimSpace(s), 77, "...") }
