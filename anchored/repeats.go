package anchored

import "math/bits"

// Finding the lines that repeat a digest, or a key, among all the lines of
// a large text, when most are unique: a filter first (two passes over the
// lines, a probe each of a table small enough for the cache), which lets
// through every repeated line and at most about one unique line in
// eight; then only those are grouped exactly, in a table of their
// distinct digests, which the few common ones ("}" between the same
// lines, thousands of times) keep in the cache. (Grouping every line in
// a partitioned key index, before widening and again after, was a third
// of a one-core render of 10 MB of generated Go, and sorting the lines
// widened into buckets, radius by radius, 15% more.)

// A repeatFilter tells which of a set of values may occur more than once:
// every value is added, then repeats says no for most values that occur
// once and never for one that occurs twice. It is a table of bit pairs,
// at least 8 per value: a value's place gets "seen" when it is first
// added, "twice" when it is added again (or another value falls on it).
type repeatFilter struct {
	words []filterWord
	shift uint // a value's place is its product with an odd constant >> shift
}

// A filterWord holds the bits of 64 places of a repeatFilter.
type filterWord struct{ seen, twice uint64 }

// reset empties the filter for n values, reusing its memory.
func (f *repeatFilter) reset(n int) {
	placeBits := max(9, bits.Len(uint(8*n-1))) // at least 8 places a value, 512 in all
	f.shift = uint(64 - placeBits)
	f.words = resize(f.words, 1<<placeBits/64)
	clear(f.words)
}

func (f *repeatFilter) add(v uint64) {
	p := v * 0x9e3779b97f4a7c15 >> f.shift
	w, bit := &f.words[p/64], uint64(1)<<(p%64)
	w.twice |= w.seen & bit
	w.seen |= bit
}

// repeats returns 1 if v's place was added to more than once, else 0:
// passes keep a value by adding it, without a branch (which a filter
// letting half the lines through mispredicts).
func (f *repeatFilter) repeats(v uint64) int {
	p := v * 0x9e3779b97f4a7c15 >> f.shift
	return int(f.words[p/64].twice >> (p % 64) & 1)
}

// through writes to into the lines of from whose top filter lets
// through, and returns them: each line is written, and kept if it is let
// through.
func through(into, from []keyedLine, f *repeatFilter, shift uint) []keyedLine {
	into = resize(into, len(from))
	j := 0
	for _, k := range from {
		into[j] = k
		j += f.repeats(k.top >> shift)
	}
	return into[:j]
}

// markRepeatedTops gives every line its radius-1 digest, and marks in
// t.shared the lines whose digest's top another line has too (the lines
// widen starts from), and counts them: the filter of the lines' keys lets
// a few lines through (every line whose top is repeated has a repeated
// key), and the finders keep only those whose top is truly repeated. On
// one core the keys are added to the filter as the tops are mixed. The
// filter is kept for scanRepeated, to which widen adds the keys of the
// lines it widened.
func (t *Table) markRepeatedTops(ix *Index) {
	n := len(t.tops)
	t.shared = resize(t.shared, (n+63)/64)
	clear(t.shared)
	t.sharedCount = 0
	f := &t.filter
	t.filtered = n >= filterLines
	t.grouped = !t.filtered
	if !t.filtered {
		// Few lines: all of them go in the key index, whose groups hold
		// the lines of repeated tops as runs, and serve scanRepeated
		// too if nothing is widened.
		ix.radiusOneRange(t, 0, n, nil)
		t.scan(false)
		for g := range t.groups() {
			t.runs(t.group(g), func(run []int32) {
				if len(run) > 1 {
					t.sharedCount += len(run)
					for _, l := range run {
						t.shared[l/64] |= 1 << (l % 64)
					}
				}
			})
		}
		return
	}
	f.reset(n)
	if workersFor(n) == 1 {
		ix.radiusOneRange(t, 0, n, f)
	} else {
		ix.radiusOneDigests(t)
		for _, top := range t.tops {
			f.add(top >> t.shift)
		}
	}
	// The lines let through (written each, kept if let through: no
	// branch), then, for two finders, parted by their top's first bit
	// (the half of the values each takes).
	all := resize(t.keyed[0][0], n)
	m := 0
	for i, top := range t.tops {
		all[m] = keyedLine{top, int32(i)}
		m += f.repeats(top >> t.shift)
	}
	t.candidates = all[:m]
	if m == 0 {
		t.keyed[0][0] = all[:0]
		return
	}
	workers := workersFor(m)
	if workers == 1 {
		t.keyed[0] = [2][]keyedLine{all[:m], t.keyed[0][1][:0]}
	} else {
		// Worker w takes t.keyed[0][w] and t.keyed[1][w]: the lines of
		// top bit 0 go to t.keyed[1][0], of 1 to t.keyed[1][1] (all's
		// array stays t.keyed[0][0]'s, for next time).
		lo, hi := t.keyed[1][0][:0], t.keyed[1][1][:0]
		for _, k := range all[:m] {
			if k.top>>63 == 0 {
				lo = append(lo, k)
			} else {
				hi = append(hi, k)
			}
		}
		t.keyed[0] = [2][]keyedLine{all[:0], t.keyed[0][1][:0]}
		t.keyed[1] = [2][]keyedLine{lo, hi}
	}
	t.markSharedKeyed(workers, true)
}

// markSharedKeyed makes t.shared the lines of t.keyed whose top another
// of them has, and counts them: on two workers, each takes the tops of
// one first bit, from both workers' lists. Filtered says a filter let
// the lines through already.
func (t *Table) markSharedKeyed(workers int, filtered bool) {
	words := len(t.shared)
	onWorkers(workers, func(w int) {
		f := &t.finders[w]
		f.shared = resize(f.shared, words)
		clear(f.shared)
		if workers == 1 {
			f.markRepeated(t.keyed[0][0], t.keyed[0][1], 0, filtered) // t.keyed[1] is empty
		} else {
			f.markRepeated(t.keyed[0][w], t.keyed[1][w], 1, filtered)
		}
	})
	copy(t.shared, t.finders[0].shared)
	if workers == 2 {
		for i, word := range t.finders[1].shared {
			t.shared[i] |= word
		}
	}
	t.sharedCount = 0
	for _, word := range t.shared {
		t.sharedCount += bits.OnesCount64(word)
	}
}

// scanRepeated finds the lines whose key another line has too, and
// gathers them into groups, each in line order, as scan(false) does: the
// filter markRepeatedTops made lets a few lines through, and only those
// are put in the key index (in partitions, when they are many). A text
// too small for the filter keeps markRepeatedTops's groups if nothing
// was widened, and is scanned whole again if some lines were.
func (t *Table) scanRepeated() {
	switch {
	case t.grouped:
		return // markRepeatedTops's groups, nothing widened since
	case !t.filtered:
		t.scan(false)
		return
	}
	t.indexKept = false
	t.secondPart, t.secondBase = 1<<30, 0
	first := &t.fillers[0]
	first.reset(t)
	// The filter holds every line's radius-1 key and the final keys of
	// the lines widened (addSettled, addStillShared): a superset of the
	// final keys, so every line whose key is repeated gets through, and a
	// few more.
	through := t.through[:0]
	if t.radii == nil {
		// Nothing widened: the filter lets through the lines it let
		// through for markRepeatedTops, which kept them.
		for _, k := range t.candidates {
			through = append(through, newSlot(k.top, int(k.line)))
		}
	} else {
		f := &t.filter
		through = resize(through, len(t.tops))
		m := 0
		for i, top := range t.tops {
			through[m] = newSlot(top, i)
			m += f.repeats(top >> t.shift)
		}
		through = through[:m]
	}
	t.through = through
	m := len(through)
	if m == 0 {
		t.takeGroups()
		return
	}
	pb := 0
	if m > 2*partitionLines {
		pb = min(bits.Len(uint(m/partitionLines))-1, maxPartitionBits, int(64-t.shift))
	}
	if pb == 0 {
		t.slots = resize(t.slots, tableSize(m))
		first.fill(t.slots, through)
		t.takeGroups()
		return
	}
	// Sort the slots into partitions by the keys' first bits, in line
	// order, and fill each partition's table in turn.
	parts, shift := 1<<pb, uint(64-pb)
	count := resize(t.partCount[0], parts+1)
	t.partCount[0] = count
	clear(count)
	for _, s := range through {
		count[uint64(s)>>shift+1]++
	}
	largest := 0
	for p := 1; p <= parts; p++ {
		largest = max(largest, int(count[p]))
		count[p] += count[p-1]
	}
	t.partFrom = append(t.partFrom[:0], count...)
	sorted := resize(t.sortedSlots, m)
	t.sortedSlots = sorted
	for _, s := range through {
		p := uint64(s) >> shift
		sorted[count[p]] = s
		count[p]++
	}
	t.slots = resize(t.slots, tableSize(largest))
	for p := range parts {
		part := sorted[t.partFrom[p]:t.partFrom[p+1]]
		first.fill(t.slots[:tableSize(len(part))], part)
	}
	t.takeGroups()
}

// addStillShared adds to the filter the keys of the lines still shared
// after widen's last radius, which they keep.
func (t *Table) addStillShared() {
	if !t.filtered {
		return
	}
	for w, word := range t.shared {
		for ; word != 0; word &= word - 1 {
			l := w*64 + bits.TrailingZeros64(word)
			t.filter.add(t.tops[l] >> t.shift)
		}
	}
}

// addSettled adds to the filter the keys of the lines widen widened at
// this radius whose digest is now their own (the lines of t.keyed that
// t.shared no longer marks): their final keys, for scanRepeated.
func (t *Table) addSettled() {
	if !t.filtered {
		return
	}
	for _, lists := range t.keyed {
		for _, ks := range lists {
			for _, k := range ks {
				if t.shared[k.line/64]&(1<<(k.line%64)) == 0 {
					t.filter.add(k.top >> t.shift)
				}
			}
		}
	}
}

// Bounds of the filters: a text of filterLines lines or more has its
// lines' keys filtered (markRepeatedTops), fewer go whole into the key
// index; widen's lines, from filterFrom on, are filtered before
// markRepeated's table of distinct tops, and a table that would outgrow
// maxDistinct slots (2 MB, the cache) gives way to markShared's buckets.
//
// (The key index took texts of up to 4096 lines: with a new text at
// each call, as a tool reads, its probes mispredict where the filter's do
// not, and the filter rendered texts of 500 to 4000 lines of Go 12–24%
// faster, the same below; BenchmarkRenderGoLike.)
const (
	filterLines = 256
	filterFrom  = 4096
	maxDistinct = 1 << 17
)

// markRepeated sets the bits of f.shared of the lines in a and b whose top
// another line in them has too, as markShared does, cheaper when they
// hold few distinct tops, as repeated lines of code do (a "}" between the
// same lines, thousands of times): unless filtered already, a filter lets
// through the lines whose top may be repeated; then the tops are counted
// in one open-addressed table of the distinct ones, which the common
// tops keep in the cache. Only if the distinct tops outgrow the cache
// are the lines sorted into markShared's buckets instead.
func (f *sharedFinder) markRepeated(a, b []keyedLine, skip uint, filtered bool) {
	if !filtered && len(a)+len(b) >= filterFrom {
		f.filter.reset(len(a) + len(b))
		for _, ks := range [2][]keyedLine{a, b} {
			for _, k := range ks {
				f.filter.add(k.top)
			}
		}
		buf := resize(f.through, len(a)+len(b))
		f.through = buf
		m := len(through(buf, a, &f.filter, 0))
		m += len(through(buf[m:], b, &f.filter, 0))
		a, b = buf[:m], nil
	}
	if !f.markDistinct(a, b) {
		clear(f.shared)
		f.markShared(a, b, skip)
	}
}

// markDistinct is markRepeated's table of distinct tops, at most half
// full: it reports false, leaving f.shared to be cleared, when the tops
// would fill more than half of maxDistinct slots.
func (f *sharedFinder) markDistinct(a, b []keyedLine) bool {
	size := 64
	for size < 2*(len(a)+len(b)) && size < maxDistinct {
		size <<= 1
	}
	seen := resize(f.seen, size)
	f.seen = seen
	clear(seen)
	hashShift := uint(64 - bits.TrailingZeros(uint(size)))
	distinct := 0
	for _, ks := range [2][]keyedLine{a, b} {
		for _, k := range ks {
			if f.markTop(seen, hashShift, k) {
				if distinct++; 2*distinct > size {
					return false
				}
			}
		}
	}
	return true
}
