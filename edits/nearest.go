package edits

import (
	"fmt"
	"slices"
	"strings"

	"github.com/agentls/agentls/internal/text"
)

// What a not-found error shows is bounded, whatever the sizes of the file
// and of ORIGINAL: a model that copied a whole large file with one line
// wrong needs the lines around that one, not the file back.
const (
	maxShownLines     = 40      // lines of the nearest region
	maxShownBytes     = 8 << 10 // bytes of them
	maxShownLineBytes = 400     // bytes of one line, clipped beyond
	similarityBudget  = 1 << 24 // bytes compared looking for the most similar line
	similarityPairs   = 1 << 21 // line pairs compared before ORIGINAL's lines are sampled
	votesBudget       = 1 << 20 // votes cast beyond a few per line of the file and ORIGINAL
	maxPlacesPerLine  = 256     // places one line of ORIGINAL votes from: a line that common says little
)

// nearestRegion describes the file region most like orig, with line
// numbers, so the model can copy the current text; or says no line of it
// is there. Its cost is linear in the file and orig: the lines of orig are
// looked up in a map in one pass over the file, the votes for where orig
// starts are bounded, and so is the search for the most similar line.
func (d *doc) nearestRegion(orig []string) string {
	lines := d.all()
	n, m := len(lines), len(orig)
	// The distinct trimmed lines of ORIGINAL, and where each is in the file.
	ids := map[string]int32{}
	idOf := make([]int32, m)
	var first [256]bool // the first bytes of the keys: most lines are skipped at once
	for j, o := range orig {
		idOf[j] = -1
		k := strings.TrimSpace(o)
		if k == "" {
			continue
		}
		id, ok := ids[k]
		if !ok {
			id = int32(len(ids))
			ids[k] = id
			first[k[0]] = true
		}
		idOf[j] = id
	}
	// A few keys are compared by length first, which is quicker than
	// hashing every line; many are looked up in the map.
	keys := make([]string, len(ids))
	for k, id := range ids {
		keys[id] = k
	}
	lookup := func(k string) (int32, bool) {
		if len(keys) > 8 {
			id, ok := ids[k]
			return id, ok
		}
		for id, key := range keys {
			if len(key) == len(k) && key == k {
				return int32(id), true
			}
		}
		return 0, false
	}
	places := make([][]int32, len(ids))
	for i := range lines {
		c := d.content(i)
		s := 0
		for s < len(c) && (c[s] == ' ' || c[s] == '\t') {
			s++
		}
		if s == len(c) || !first[c[s]] {
			continue
		}
		if id, ok := lookup(strings.TrimSpace(c[s:])); ok && len(places[id]) < maxPlacesPerLine {
			places[id] = append(places[id], int32(i))
		}
	}
	best, found := d.vote(idOf, places)
	var b strings.Builder
	focus := 0                        // the line of orig the region is shown around, if it must be cut
	around := "the start of ORIGINAL" // what that line is, for the message
	if !found {
		// No line is there as it is: look for the most similar line.
		start, line, ok := d.mostSimilarLine(orig)
		if !ok {
			return "No line of ORIGINAL is in the file: read the file and copy the lines to change exactly."
		}
		best, focus, around = start, line-start, "the most similar line"
		fmt.Fprintf(&b, "No line of ORIGINAL is in the file as it is; the most similar is line %d. ", line+1)
	} else {
		// The lines at that place that are as ORIGINAL has them, ignoring
		// indentation (blank lines count where the file's are blank too),
		// and the first that is not.
		same, differs := 0, -1
		for j, o := range orig {
			if i := best + j; i >= 0 && i < n && strings.TrimSpace(d.content(i)) == strings.TrimSpace(o) {
				same++
			} else if differs < 0 {
				differs = j
			}
		}
		if differs >= 0 {
			focus = differs
			around = fmt.Sprintf("ORIGINAL's line %d, the first that is not file line %d as it is", differs+1, best+differs+1)
			if best+differs >= n {
				around = fmt.Sprintf("ORIGINAL's line %d, the first that is past the end of the file", differs+1)
			} else if best+differs < 0 {
				around = fmt.Sprintf("ORIGINAL's line %d, the first that is before the start of the file", differs+1)
			}
		}
		fmt.Fprintf(&b, "%d of the %d lines of ORIGINAL are in the file as they are. ", same, m)
	}
	from := max(0, best-2)
	to := min(n, best+m+2)
	if to-from <= maxShownLines {
		fmt.Fprintf(&b, "The nearest lines are %s:\n", lineRange(from+1, to))
		d.writeLines(&b, from, to)
		b.WriteString("Copy ORIGINAL from the current text above and patch again.")
		return b.String()
	}
	// Too long to show: the lines around the first that differs (or the
	// most similar one), from a few before it.
	at := min(max(from, best+focus-5), to-maxShownLines)
	fmt.Fprintf(&b, "The nearest lines are %s, too many to show (ORIGINAL has %d lines); here are lines %s, around %s:\n",
		lineRange(from+1, to), m, lineRange(at+1, at+maxShownLines), around)
	d.writeLines(&b, at, at+maxShownLines)
	b.WriteString("Patch only the lines that change, with a few unchanged lines around them, copied from the current text above (read the file for more).")
	return b.String()
}

// vote returns where orig most probably starts: each line of orig votes
// for the start its places imply. Lines with the fewest places vote first,
// and voting stops after a few votes per line of the file and of orig, so
// lines that are everywhere (a "}") cannot make it quadratic.
func (d *doc) vote(idOf []int32, places [][]int32) (best int, found bool) {
	n, m := len(d.lines), len(idOf)
	order := make([]int, 0, m) // orig's lines that are in the file, rarest first
	for j, id := range idOf {
		if id >= 0 && len(places[id]) > 0 {
			order = append(order, j)
		}
	}
	slices.SortStableFunc(order, func(a, b int) int { return len(places[idOf[a]]) - len(places[idOf[b]]) })
	votes := make([]int32, n+m) // by start + m: a start is in (-m, n)
	budget := votesBudget + 4*(n+m)
	bestVotes := int32(0)
	for _, j := range order {
		ps := places[idOf[j]]
		if budget -= len(ps); budget < 0 && bestVotes > 0 {
			break
		}
		for _, i := range ps {
			start := int(i) - j
			votes[start+m]++
			if v := votes[start+m]; v > bestVotes || v == bestVotes && start < best {
				best, bestVotes = start, v
			}
		}
	}
	return best, bestVotes > 0
}

// writeLines writes lines [from, to) with right-aligned line numbers,
// each clipped to maxShownLineBytes and all to about maxShownBytes.
func (d *doc) writeLines(b *strings.Builder, from, to int) {
	width := len(fmt.Sprint(to))
	limit := b.Len() + maxShownBytes
	for i := from; i < to; i++ {
		if b.Len() > limit {
			fmt.Fprintf(b, "… (%d more lines)\n", to-i)
			return
		}
		fmt.Fprintf(b, "%*d\t%s\n", width, i+1, clipShown(d.content(i)))
	}
}

// clipShown cuts a line longer than maxShownLineBytes (at a character
// boundary) and says how much is left out.
func clipShown(s string) string {
	if len(s) <= maxShownLineBytes {
		return s
	}
	shown := text.Clip(s, maxShownLineBytes)
	return fmt.Sprintf("%s… (%d more bytes on this line)", shown, len(s)-len(shown))
}

// mostSimilarLine returns where orig would start if its most similar line
// (by the common prefix and suffix of the trimmed lines, at least half of
// the longer one) is where it belongs. Every pair of lines is compared
// when there are few; else a sample of orig's lines (the longest of each
// stretch) is compared with every file line. Either way the comparisons
// stop after similarityBudget bytes, with the best found so far.
func (d *doc) mostSimilarLine(orig []string) (start, line int, ok bool) {
	lines := d.all()
	var js []int // orig's non-blank lines
	for j, o := range orig {
		if !isBlankLine(o) {
			js = append(js, j)
		}
	}
	if len(js) == 0 || len(lines) == 0 {
		return 0, 0, false
	}
	if k := max(1, similarityPairs/len(lines)); len(js) > k {
		sample := make([]int, 0, k)
		for s := range k {
			stretch := js[s*len(js)/k : (s+1)*len(js)/k]
			longest := stretch[0]
			for _, j := range stretch {
				if len(strings.TrimSpace(orig[j])) > len(strings.TrimSpace(orig[longest])) {
					longest = j
				}
			}
			sample = append(sample, longest)
		}
		js = sample
	}
	// The file's lines trimmed once, unless few lines of orig compare.
	var trimmed []string
	if len(js) > 4 {
		trimmed = make([]string, len(lines))
		for i := range lines {
			trimmed[i] = strings.TrimSpace(d.content(i))
		}
	}
	best, bestScore := 0, 0.0
	budget := similarityBudget
	for _, j := range js {
		o := strings.TrimSpace(orig[j])
		for i := range lines {
			var f string
			if trimmed != nil {
				f = trimmed[i]
			} else {
				f = strings.TrimSpace(d.content(i))
			}
			score, cost := similar(o, f)
			if score > bestScore {
				best, line, bestScore = i-j, i, score
			}
			if budget -= cost; budget < 0 {
				return best, line, bestScore >= 0.5
			}
		}
	}
	return best, line, bestScore >= 0.5
}

// similar returns the share of the longer string covered by the strings'
// common prefix and suffix, and the bytes compared to find it.
func similar(a, b string) (score float64, cost int) {
	n := max(len(a), len(b))
	if n == 0 {
		return 0, 1
	}
	p := 0
	for p < len(a) && p < len(b) && a[p] == b[p] {
		p++
	}
	s := 0
	for s < len(a)-p && s < len(b)-p && a[len(a)-1-s] == b[len(b)-1-s] {
		s++
	}
	return float64(p+s) / float64(n), p + s + 1
}
