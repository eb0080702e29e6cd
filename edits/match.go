package edits

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
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
	return [...]string{"compared exactly", "compared ignoring trailing whitespace", "compared ignoring whitespace-only lines",
		"compared ignoring a uniform indentation shift", "compared ignoring Unicode punctuation"}[t]
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
		return trimRightSpaceTab(s)
	case tierBlank:
		return trimRightSpaceTab(s)
	case tierIndent:
		return strings.TrimSpace(s)
	default:
		return foldPunctuation(strings.TrimSpace(s))
	}
}

// trimRightSpaceTab is strings.TrimRight(s, " \t") without building a
// byte set on each call: keys are made for every line compared.
func trimRightSpaceTab(s string) string {
	for len(s) > 0 && (s[len(s)-1] == ' ' || s[len(s)-1] == '\t') {
		s = s[:len(s)-1]
	}
	return s
}

// A match is where a hunk's ORIGINAL lines stand in a text.
type match struct {
	first, n int // lines[first : first+n]
	tier     tier
	indent   *indentMap // for the indent and punctuation tiers
}

// doc is a text prepared for matching. Its lines are split on first need:
// the exact fast path never needs them.
type doc struct {
	text  string
	lines []line
	split bool
	// scans counts the passes find made over the lines for candidates;
	// after a few, byKey indexes the lines by their loosest key, so that
	// many hunks (or placeholder pieces) against one text cost one pass.
	scans int
	byKey map[string][]int32
	// rank is how frequent each byte is, for the exact fast path's search
	// (byteRank).
	rank *[256]int
	// runHits are the lines holding a literal stretch of a pivot line,
	// for the local path (linesHolding): a few runs a text, so a slice.
	runHits []runHits
	// windows are the windows the local path has split, by start
	// (linesAt): ORIGINAL, ORIGINAL without its last blank line and
	// UPDATED are often checked at the same place.
	windows []splitWindow
	// A hunk or two's worth of both, kept in the doc: a one-hunk patch
	// allocates neither.
	fewRuns    [2]runHits
	fewWindows [2]splitWindow
}

// runHits are the starts of the lines holding run.
type runHits struct {
	run    string
	line   string // the pivot line run was taken from
	starts []int
}

// A splitWindow is a window of n lines from start, split (linesAt).
type splitWindow struct {
	start, first, n int
	w               *doc
}

func newDoc(text string) *doc { return &doc{text: text} }

// all returns the text's lines.
func (d *doc) all() []line {
	if !d.split {
		d.lines, d.split = splitLines(d.text), true
	}
	return d.lines
}

// content returns the content of line i (after all).
func (d *doc) content(i int) string { return d.text[d.lines[i].start:d.lines[i].end] }

// The exact fast path handles the common case, exact matches of lines
// ending in "\n", without splitting the text into lines: each hunk is
// located by the rarest byte of its lines, the whole hunk and its line
// boundaries are checked around each hit, and a hunk resolves only when
// exactly one place matches. Anything else goes the general way, which also
// explains failures.

// longestLine returns the index of orig's longest line, without indentation
// (a long, distinctive probe has few false hits), and its byte offset in
// orig joined with "\n".
func longestLine(orig []string) (probe, off int) {
	for i, l := range orig {
		if len(strings.TrimLeft(l, " \t")) > len(strings.TrimLeft(orig[probe], " \t")) {
			probe = i
		}
	}
	for i := 0; i < probe; i++ {
		off += len(orig[i]) + 1
	}
	return probe, off
}

// alignedAt reports whether needle stands at s as whole lines.
func (d *doc) alignedAt(s int, needle string) bool {
	e := s + len(needle)
	return s >= 0 && e <= len(d.text) && d.text[s:e] == needle &&
		(s == 0 || d.text[s-1] == '\n') && (e == len(d.text) || d.text[e] == '\n')
}

// byteScanHunks is how many hunks the exact fast path finds by scanning
// for rare bytes; more are found in one pass over the lines with a map of
// their probe lines, whose cost does not grow with the hunks.
const byteScanHunks = 32

// exactStarts returns, for each hunk, the byte offset of its unique exact
// match, or -1. Up to byteScanHunks hunks are found by their rarest bytes
// (scanRare); more in one pass over the lines with a map of their probe
// lines, so the cost is linear in the text and the hunks, not their
// product.
//
// Each check of a hit costs up to its needle's length; the checks share a
// budget of a few times the text, and a hunk whose probe repeats so often
// that it runs out (a repetitive file) goes the general way, which is
// linear however repetitive the text is.
func (d *doc) exactStarts(hunks []Hunk) []int { return d.exactStartsBy(hunks, true) }

// exactStartsBy is exactStarts; sampled says whether hunks may be found
// by the sampled search (sampled.go), which tests turn off to compare it
// with scanning for rare bytes alone.
func (d *doc) exactStartsBy(hunks []Hunk, sampled bool) []int {
	starts := make([]int, len(hunks))
	for i := range starts {
		starts[i] = -1
	}
	budget := exactBudget(d.text, hunks)
	// A carriage return elsewhere in the text does not matter: a needle
	// (which has none) only aligns with lines ending in a bare "\n".
	type probe struct {
		hunk, off int
		needle    string
	}
	probes := map[string][]probe{}
	var scans []rareNeedle
	for i, h := range hunks {
		if len(h.Original) == 0 || h.AtEOF || allBlank(h.Original) || hasPlaceholder(h.Original) || hasPlaceholder(h.Updated) {
			continue
		}
		needle := joinLines(h.Original)
		if len(hunks) <= byteScanHunks {
			scans = append(scans, rareNeedle{hunk: i, needle: needle})
			continue
		}
		p, off := longestLine(h.Original)
		probes[h.Original[p]] = append(probes[h.Original[p]], probe{i, off, needle})
	}
	if sampled && len(scans) > 1 && len(d.text) >= sampledText {
		// Long needles in one sampled pass, the others by their bytes.
		var long []rareNeedle
		short := scans[:0]
		for _, n := range scans {
			if sampledEligible(n.needle) {
				long = append(long, n)
			} else {
				short = append(short, n)
			}
		}
		if len(long) > 1 {
			d.scanSampled(long, &budget)
			for _, n := range long {
				if n.found == 1 {
					starts[n.hunk] = n.start
				}
			}
			scans = short
		} else {
			scans = append(short, long...)
		}
	}
	if len(scans) > 0 {
		d.scanRare(scans, starts, &budget)
	}
	if len(probes) == 0 {
		return starts
	}
	found := make([]int, len(hunks)) // matches seen per hunk; 2 is "not unique, or too costly"
	for start := 0; start < len(d.text); {
		end := strings.IndexByte(d.text[start:], '\n')
		if end < 0 {
			end = len(d.text)
		} else {
			end += start
		}
		for _, p := range probes[d.text[start:end]] {
			if found[p.hunk] > 1 {
				continue
			}
			if budget -= len(p.needle); budget < 0 {
				found[p.hunk] = 2
				continue
			}
			if s := start - p.off; d.alignedAt(s, p.needle) {
				found[p.hunk]++
				starts[p.hunk] = s
			}
		}
		start = end + 1
	}
	for i, n := range found {
		if n > 1 {
			starts[i] = -1 // not unique: the general path names the places
		}
	}
	return starts
}

// joinLines is strings.Join(lines, "\n") in one allocation.
func joinLines(lines []string) string {
	if len(lines) == 1 {
		return lines[0]
	}
	return strings.Join(lines, "\n")
}

// exactBudget is how many bytes the exact fast path may compare: a few
// times the text and the hunks.
func exactBudget(text string, hunks []Hunk) int {
	n := 1<<16 + 4*len(text)
	for _, h := range hunks {
		for _, l := range h.Original {
			n += len(l) + 1
		}
	}
	return n
}

// A rareNeedle is a hunk's ORIGINAL joined, searched for by one of its
// bytes (at offset at), which scanRare picks as rare in the text.
type rareNeedle struct {
	hunk   int
	needle string
	at     int
	found  int // places found; 2 is "not unique, or too costly"
	start  int
}

// scanBlock is how much of the text scanRare searches for all its bytes
// before moving on: small enough to stay in the cache, so that the text
// is read from memory once however many bytes are searched for.
const scanBlock = 32 << 10

// scanRare finds each needle's unique whole-line place in the text, or
// none, and records it in starts. Each needle is searched for by its
// rarest byte (bytes.IndexByte runs at memory speed, and the rarer the
// byte the fewer places are checked); needles that share a byte share its
// scan, and the text is scanned a block at a time for all of them.
func (d *doc) scanRare(ns []rareNeedle, starts []int, budget *int) {
	rank := d.byteRank()
	// Each needle's rarest byte; then each needle takes, of the bytes
	// already chosen for others, one of its own if it is at most 4 times as
	// frequent: a shared scan costs less than a second one.
	var chosen []byte
	for i := range ns {
		n := &ns[i]
		best, bestRank := -1, 0
		for j := 0; j < len(n.needle); j++ {
			c := n.needle[j]
			if c == '\n' {
				continue
			}
			if r := rank(c); best < 0 || r < bestRank {
				best, bestRank = j, r
			}
		}
		n.at = best
		if best < 0 {
			n.found = 2
			continue
		}
		for _, c := range chosen {
			if j := strings.IndexByte(n.needle, c); j >= 0 && rank(c) <= 4*bestRank+4 {
				n.at = j
				break
			}
		}
		if c := n.needle[n.at]; !slices.Contains(chosen, c) {
			chosen = append(chosen, c)
		}
	}
	if len(ns) == 1 && ns[0].found < 2 {
		d.scanOne(&ns[0], budget)
		if ns[0].found == 1 {
			starts[ns[0].hunk] = ns[0].start
		}
		return
	}
	byByte := make([][]*rareNeedle, len(chosen))
	for i := range ns {
		if n := &ns[i]; n.found < 2 {
			k := slices.Index(chosen, n.needle[n.at])
			byByte[k] = append(byByte[k], n)
		}
	}
	text := d.text
	for lo := 0; lo < len(text); lo += scanBlock {
		hi := min(len(text), lo+scanBlock)
		for k, c := range chosen {
			live := byByte[k]
			for p := lo; len(live) > 0; p++ {
				i := strings.IndexByte(text[p:hi], c)
				if i < 0 {
					break
				}
				p += i
				for _, n := range live {
					if n.found > 1 {
						continue
					}
					// The byte after the hit tells most false hits apart
					// before the whole needle is compared (and charged).
					if a := n.at + 1; a < len(n.needle) && (p+1 == len(text) || text[p+1] != n.needle[a]) {
						continue
					}
					if *budget -= len(n.needle); *budget < 0 {
						n.found = 2
						continue
					}
					if s := p - n.at; d.alignedAt(s, n.needle) {
						n.found++
						n.start = s
					}
				}
			}
		}
	}
	for _, n := range ns {
		if n.found == 1 {
			starts[n.hunk] = n.start
		}
	}
}

// rarestByte returns the offset in key of its rarest byte in the text
// (byteRank): the byte indexRare scans for.
func (d *doc) rarestByte(key string) int {
	rank := d.byteRank()
	j, best := 0, rank(key[0])
	for i := 1; i < len(key); i++ {
		if r := rank(key[i]); r < best {
			j, best = i, r
		}
	}
	return j
}

// indexRare returns the first index of key in text at or after from, or
// -1: like strings.Index, but scanning for key's byte at j, its rarest in
// the text (rarestByte, worked out once by the caller for all its calls),
// whose hits are few, where strings.Index scans for its first.
func (d *doc) indexRare(text string, from int, key string, j int) int {
	c := key[j]
	for p := from + j; p < len(text); p++ {
		k := strings.IndexByte(text[p:], c)
		if k < 0 {
			return -1
		}
		p += k
		// The byte after the hit tells most false hits apart before
		// the whole key is compared.
		if j+1 < len(key) && (p+1 == len(text) || text[p+1] != key[j+1]) {
			continue
		}
		if s := p - j; s >= 0 && s+len(key) <= len(text) && text[s:s+len(key)] == key {
			return s
		}
	}
	return -1
}

// scanOne is scanRare for one needle: strings.Index of up to 32 bytes from
// its rarest byte, which scans for that byte while its hits are few and
// compares 32 bytes at a time once they are not (a byte every function of
// a file has, where only the function's name tells it apart).
func (d *doc) scanOne(n *rareNeedle, budget *int) {
	key := n.needle[n.at:min(len(n.needle), n.at+32)]
	for from := 0; ; {
		k := strings.Index(d.text[from:], key)
		if k < 0 {
			return
		}
		p := from + k
		from = p + 1
		if *budget -= len(n.needle); *budget < 0 {
			n.found = 2
			return
		}
		if s := p - n.at; d.alignedAt(s, n.needle) {
			if n.found++; n.found > 1 {
				return
			}
			n.start = s
		}
	}
}

// sampleText is the size from which byteRank counts bytes in a sample of
// the text rather than guessing from source code in general: counting
// costs about a nanosecond a byte, a small text's whole search less.
const sampleText = 256 << 10

// byteRank returns how frequent each byte is in the text, lower is rarer:
// for a large text, counts in 16 KB sampled from four places spread over
// it (weighted by commonness in source code, to break ties); for a small
// one, commonness alone.
func (d *doc) byteRank() func(c byte) int {
	if len(d.text) < sampleText {
		return commonness
	}
	if d.rank == nil {
		// About 10 µs, against 100 µs or more for the search itself.
		const piece = 4 << 10
		var counts [256]int
		for k := range 4 {
			at := k * (len(d.text) - piece) / 3
			for _, c := range []byte(d.text[at : at+piece]) {
				counts[c]++
			}
		}
		d.rank = new([256]int)
		for c := range d.rank {
			d.rank[c] = 16*counts[c] + commonness(byte(c))
		}
	}
	return func(c byte) int { return d.rank[c] }
}

// commonness ranks how often a byte occurs in source code, roughly.
func commonness(c byte) int {
	switch c {
	case ' ', '\t':
		return 9
	case 'e', 't', 'a', 'o', 'i', 'n', 's', 'r', 'l', 'c', 'd', 'u':
		return 8
	case '(', ')', '{', '}', '.', ',', ';', ':', '=', '_', '*', '&':
		return 5
	}
	switch {
	case c >= 'a' && c <= 'z':
		return 6
	case c >= 'A' && c <= 'Z':
		return 3
	}
	return 2
}

// window returns a doc of just the n lines from byte offset start (and the
// line before them, which deleting the last lines needs), and the match of
// those lines.
func (d *doc) window(start, n int) (*doc, match) {
	w := &doc{text: d.text, split: true}
	first := 0
	if start > 0 {
		prev := strings.LastIndexByte(d.text[:start-1], '\n') + 1
		l := line{start: prev, end: start - 1, nl: lf}
		if l.end > l.start && d.text[l.end-1] == '\r' {
			l.end, l.nl = l.end-1, crlf
		}
		w.lines = append(w.lines, l)
		first = 1
	}
	end := start
	for range n {
		nl := strings.IndexByte(d.text[end:], '\n')
		if nl < 0 {
			w.lines = append(w.lines, line{start: end, end: len(d.text)})
			end = len(d.text)
			break
		}
		w.lines = append(w.lines, line{start: end, end: end + nl, nl: lf})
		end += nl + 1
	}
	return w, match{first: first, n: n, tier: tierExact}
}

// find returns the candidates for orig at the loosest tier needed, and
// that tier. updated (the hunk's new lines) helps tell the model's
// indentation unit.
//
// Every tier's key is a function of the stricter tiers' keys, so the lines
// that can start a match at any tier are those whose loosest key equals
// the pivot's (orig's longest line): one search finds them (or the
// line index, once built), and each tier then checks only those. Checking
// them costs at most a budget of line comparisons a few times the file's
// size; a repetitive file that spends it (many windows matching for long
// stretches) is matched again in one linear pass per tier (findAll).
func (d *doc) find(orig, updated []string) ([]match, tier) {
	n := len(orig)
	lines := d.all()
	if n == 0 || n > len(lines) {
		return nil, numTiers
	}
	// The pivot is orig's longest line (trimmed): any line of a window
	// must match, and a long line has few look-alikes, where the first
	// line of a hunk is often a "}" that thousands of lines share.
	pivot, longest := 0, -1
	for i, l := range orig {
		if t := strings.TrimSpace(l); t != "" && len(t) > longest {
			pivot, longest = i, len(t)
		}
	}
	cands := d.candidates(tierPunctuation.key(orig[pivot]), pivot, len(lines)-n+pivot)
	budget := matchBudget(len(lines), n)
	for t := tierExact; t < numTiers; t++ {
		ms, ok := d.findAt(t, orig, updated, pivot, cands, &budget)
		if !ok {
			ms = d.findAll(t, orig, updated, &budget)
		}
		if len(ms) > 0 {
			return ms, t
		}
	}
	return nil, numTiers
}

// matchBudget is how many line comparisons matching orig may spend
// checking candidate windows before it switches to linear passes.
func matchBudget(fileLines, origLines int) int { return 1<<18 + 4*(fileLines+origLines) }

// sequentialBudget bounds the bytes that applying hunks one after the
// other (when a hunk builds on an earlier one) may scan: each hunk costs a
// pass over the text, so thousands of hunks on a large file would cost
// their product.
const sequentialBudget = 1 << 28

// indexAfterScans is how many candidate passes over a text's lines find
// makes before indexing them: an index costs several passes to build.
const indexAfterScans = 3

// candidates returns the lines from lo to hi whose loosest key is want.
func (d *doc) candidates(want string, lo, hi int) []int {
	var cands []int
	if d.byKey == nil && d.scans >= indexAfterScans {
		d.byKey = make(map[string][]int32)
		for i := range d.lines {
			k := tierPunctuation.key(d.content(i))
			d.byKey[k] = append(d.byKey[k], int32(i))
		}
	}
	if d.byKey != nil {
		for _, i := range d.byKey[want] {
			if int(i) >= lo && int(i) <= hi {
				cands = append(cands, int(i))
			}
		}
		return cands
	}
	d.scans++
	if run := literalRun(want); len(run) >= 3 {
		return d.candidatesByRun(want, run, lo, hi)
	}
	for i := lo; i <= hi; i++ {
		// Folding keeps ASCII bytes and never lengthens a line: most
		// lines are told apart by their length or first byte.
		t := strings.TrimSpace(d.content(i))
		if len(t) < len(want) || len(t) > 0 && len(want) > 0 && t[0] < utf8.RuneSelf && t[0] != want[0] {
			continue
		}
		if t == want || foldPunctuation(t) == want {
			cands = append(cands, i)
		}
	}
	return cands
}

// foldOutputs are the bytes foldPunctuation writes in place of Unicode
// punctuation and spaces: a line's other bytes are its own.
const foldOutputs = "-'\" ."

// isFoldOutput reports whether c is one of foldOutputs.
func isFoldOutput(c byte) bool {
	switch c {
	case '-', '\'', '"', ' ', '.':
		return true
	}
	return false
}

// literalRun returns the longest stretch of a folded, trimmed key without
// bytes that folding writes: every line whose key it is holds that stretch
// byte for byte, so a search of the text for it finds them all.
func literalRun(key string) string {
	// A loop over the bytes: strings.IndexAny builds its byte set on each
	// call, and keys are short.
	best, from := "", 0
	for i := 0; i <= len(key); i++ {
		if i < len(key) && !isFoldOutput(key[i]) {
			continue
		}
		if i-from > len(best) {
			best = key[from:i]
		}
		from = i + 1
	}
	return best
}

// candidatesByRun is candidates by a search of the text for run, a literal
// stretch of want (literalRun), instead of a look at every line: each hit's
// line is found by its offset and compared whole.
func (d *doc) candidatesByRun(want, run string, lo, hi int) []int {
	var cands []int
	lines := d.lines
	rare := d.rarestByte(run)
	for from := 0; from < len(d.text); {
		at := d.indexRare(d.text, from, run, rare)
		if at < 0 {
			break
		}
		// The line holding the hit: the last that starts at or before it.
		i, _ := slices.BinarySearchFunc(lines, at, func(l line, at int) int {
			if l.start > at {
				return 1
			}
			return -1
		})
		i--
		from = lines[i].end + len(lines[i].eol()) // one look per line
		if from <= at {
			from = at + 1
		}
		if i < lo || i > hi {
			continue
		}
		t := strings.TrimSpace(d.content(i))
		if t == want || len(t) >= len(want) && foldPunctuation(t) == want {
			cands = append(cands, i)
		}
	}
	return cands
}

// exactOnly returns where lines stand exactly (no looser tier).
func (d *doc) exactOnly(lines []string) []match {
	if allBlank(lines) {
		return nil
	}
	ms, t := d.find(lines, nil)
	if t != tierExact {
		return nil
	}
	return ms
}

// findAt returns the windows that match orig at tier t, among those whose
// pivot line is one of cands; or false when checking them spends the
// budget.
func (d *doc) findAt(t tier, orig, updated []string, pivot int, cands []int, budget *int) ([]match, bool) {
	want := t.key(orig[pivot])
	var out []match
	for _, i := range cands {
		*budget--
		if t.key(d.content(i)) != want {
			continue
		}
		m, ok := d.matchWindow(t, orig, updated, i-pivot, budget)
		if *budget < 0 {
			return nil, false
		}
		if ok {
			out = append(out, m)
		}
	}
	return out, true
}

// matchWindow checks orig against the lines from first on at tier t,
// spending a unit of budget per line compared.
func (d *doc) matchWindow(t tier, orig, updated []string, first int, budget *int) (match, bool) {
	for j, o := range orig {
		*budget--
		f := d.content(first + j)
		if t.key(f) != t.key(o) {
			return match{}, false
		}
	}
	m := match{first: first, n: len(orig), tier: t}
	if t < tierIndent {
		return m, true
	}
	*budget -= len(orig)
	im, ok := d.indentAt(orig, updated, first)
	if !ok {
		return match{}, false
	}
	m.indent = &im
	return m, true
}

// indentAt derives the uniform indentation shift from orig to the lines
// from first on, whose keys match.
func (d *doc) indentAt(orig, updated []string, first int) (indentMap, bool) {
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
	return deriveIndentMap(fileInd, modelInd, updInd)
}

// findAll returns every window that matches orig at tier t, in one pass
// over the file however repetitive it is: the keys of orig's lines are
// numbered, each file line gets its key's number (or none), and orig's
// numbers are searched for among the file's with Knuth-Morris-Pratt. At
// the indent tiers each window found is also checked for a uniform
// shift, within the budget; windows left unchecked when it runs out are
// returned without an indentMap (checkIndent derives it if one is
// chosen), so that they still count: many windows are an ambiguity,
// never a guess.
func (d *doc) findAll(t tier, orig, updated []string, budget *int) []match {
	ids := make(map[string]int32, len(orig))
	pat := make([]int32, len(orig))
	for j, o := range orig {
		k := t.key(o)
		id, ok := ids[k]
		if !ok {
			id = int32(len(ids))
			ids[k] = id
		}
		pat[j] = id
	}
	// back[j] is the length of the longest proper prefix of pat[:j+1]
	// that is also its suffix.
	back := make([]int32, len(pat))
	for j, k := 1, int32(0); j < len(pat); j++ {
		for k > 0 && pat[j] != pat[k] {
			k = back[k-1]
		}
		if pat[j] == pat[k] {
			k++
		}
		back[j] = k
	}
	var out []match
	q := int32(0) // how much of pat ends at the current line
	for i := range d.all() {
		id, ok := ids[t.key(d.content(i))]
		if !ok {
			q = 0
			continue
		}
		for q > 0 && pat[q] != id {
			q = back[q-1]
		}
		if pat[q] == id {
			q++
		}
		if int(q) < len(pat) {
			continue
		}
		q = back[q-1]
		m := match{first: i - len(pat) + 1, n: len(pat), tier: t}
		if t >= tierIndent && *budget >= 0 {
			*budget -= len(orig)
			im, ok := d.indentAt(orig, updated, m.first)
			if !ok {
				continue
			}
			m.indent = &im
		}
		out = append(out, m)
	}
	return out
}

// checkIndent derives the indentation shift of a match that findAll left
// unchecked, or says there is none.
func (d *doc) checkIndent(m *match, h Hunk, num, of int) error {
	if m.tier < tierIndent || m.indent != nil {
		return nil
	}
	im, ok := d.indentAt(h.Original, h.Updated, m.first)
	if !ok {
		return &HunkError{Hunk: num, Of: of, Reason: fmt.Sprintf("ORIGINAL matches lines %s %s line by line, but not with one uniform indentation shift; copy ORIGINAL's indentation exactly from the file", lineRange(m.first+1, m.first+m.n), m.tier)}
	}
	m.indent = &im
	return nil
}

// lineList renders the 1-based line numbers of matches for an error.
func lineList(ms []match) string {
	var parts []string
	for i, m := range ms {
		if i == 5 {
			parts = append(parts, fmt.Sprintf("and %d more", len(ms)-5))
			break
		}
		parts = append(parts, lineRange(m.first+1, m.first+m.n))
	}
	return strings.Join(parts, ", ")
}

// lineRange renders lines a to b (1-based) for a message.
func lineRange(a, b int) string {
	if a == b {
		return fmt.Sprint(a)
	}
	return fmt.Sprintf("%d-%d", a, b)
}
