package anchored

import (
	"math/bits"
	"strconv"
)

// A Table holds the anchor of every line of a text, compactly: the top 64
// bits of each line's digest, and the rare exceptions (wider contexts,
// lengthened anchors, ordinals, collisions) apart. Tokens are written out
// only for the lines shown; looking a token up is a probe of the table's
// open-addressed key index, not a pass over the text.
type Table struct {
	tops  []uint64 // digest[0] of each line
	lows  []uint64 // digest[1], only when anchors show more than 12 characters
	width int      // characters shown (more where lengthened)

	radii      []int8               // context radius of each line's digest; nil means 1
	lengthened map[int32]lengthened // anchors shown longer than width
	ordinals   map[int32]int32      // ordinals above 1: lines alike across 17 lines
	ambiguous  map[int32]bool       // lines whose digest collides with a different context
	special    []uint64             // a bit per line in one of the three maps above

	// The key index of the last scan: every key (the digest bits an anchor
	// shows) with its first line, and the lines of keys several lines share,
	// grouped by key in line order.
	shift      uint    // a line's key is its digest's top >> shift
	partShift  uint    // and its partition of the index, top >> partShift
	partStart  []int32 // partition p's table is slots[partStart[p]:partStart[p+1]]
	slots      []slot
	indexKept  bool    // slots hold every partition's table, for lookup
	partFrom   []int32 // partition p's lines are sortedSlots[partFrom[p]:partFrom[p+1]]
	secondPart int     // partitions from secondPart on number their groups
	secondBase int32   // from secondBase in their slots
	groupFirst []int32 // the first line of each group
	members    []int32 // lines of shared keys, group by group
	bounds     []int32 // group g is members[bounds[g]:bounds[g+1]]

	// Scratch kept for the next build.
	radiiBuf    []int8
	partCount   [2][]int32 // per worker
	fillers     [2]filler
	sortedSlots []slot
	lowsBuf     []uint64
	specialBuf  []uint64
	shared      []uint64          // widen's lines still shared, a bit a line
	sharedCount int               // how many
	keyed       [2][2][]keyedLine // their digests, per worker, by top's first bit, in line order
	finders     [2]sharedFinder
	filter      repeatFilter
	filtered    bool        // whether the filter holds the keys, for scanRepeated (else the key index takes every line)
	grouped     bool        // whether the groups of the last scan are those of the final digests
	candidates  []keyedLine // the lines markRepeatedTops's filter let through
	through     []slot      // the lines scanRepeated's filter let through
}

// lengthened is an anchor shown with more characters than the table's
// width, because another line's anchor shares its first characters.
type lengthened struct {
	d     digest
	width uint8
}

// Len returns the number of lines.
func (t *Table) Len() int { return len(t.tops) }

// digest returns line i's digest as far as the table keeps it: whole when
// lengthened or when anchors are wider than 12 characters, else its top 64
// bits (60 of which make 12 characters).
func (t *Table) digest(i int) (digest, int) {
	if l, ok := t.lengthened[int32(i)]; ok {
		return l.d, int(l.width)
	}
	d := digest{t.tops[i], 0}
	if t.lows != nil {
		d[1] = t.lows[i]
	}
	return d, t.width
}

// AppendToken appends line i's anchor to b: its characters, and ".k" for an
// ordinal k > 1.
func (t *Table) AppendToken(b []byte, i int) []byte {
	if !t.isSpecial(i) {
		if t.width == DefaultWidth {
			return appendDefault(b, t.tops[i])
		}
		if t.lows == nil {
			return digest{t.tops[i], 0}.appendChars(b, t.width)
		}
	}
	d, w := t.digest(i)
	b = d.appendChars(b, w)
	if o := t.ordinals[int32(i)]; o > 1 {
		b = append(b, '.')
		b = strconv.AppendInt(b, int64(o), 10)
	}
	return b
}

// isSpecial reports whether line i's anchor is lengthened, has an ordinal
// or is ambiguous: one bit test, so that rendering the other lines does no
// map lookup.
func (t *Table) isSpecial(i int) bool {
	return t.special != nil && t.special[i/64]&(1<<(i%64)) != 0
}

func (t *Table) markSpecial(l int32) {
	if t.special == nil {
		t.special = resize(t.specialBuf, (len(t.tops)+63)/64)
		t.specialBuf = t.special
		clear(t.special)
	}
	t.special[l/64] |= 1 << (l % 64)
}

// appendDefault appends the DefaultWidth characters of a digest whose top
// is top: the common case, unrolled.
func appendDefault(b []byte, top uint64) []byte {
	return append(b,
		crockford[top>>59], crockford[top>>54&31], crockford[top>>49&31],
		crockford[top>>44&31], crockford[top>>39&31], crockford[top>>34&31])
}

// Token returns line i's anchor.
func (t *Table) Token(i int) string {
	var b [40]byte
	return string(t.AppendToken(b[:0], i))
}

// Ambiguous reports whether different lines share line i's whole digest (a
// hash collision, only seen with a weak hash in tests): such a line cannot
// be named by its anchor.
func (t *Table) Ambiguous(i int) bool { return t.isSpecial(i) && t.ambiguous[int32(i)] }

// build computes the anchor of every line into t, reusing t's memory: a
// caller that keeps a Table per document renders without allocating once
// it has grown to the document's size. content returns a line's content.
//
// Ordinals and collisions depend on the whole text, so this is a pass over
// it: a digest per line and a probe of an open-addressed index of the keys
// (the digest bits an anchor shows). Only lines whose key is shared take
// the slow path: repeated contexts get wider digests, and the index is
// built again; different digests sharing a key get longer anchors. With
// lookups, every partition's table is kept for looking tokens up (Apply
// with a huge batch); a render, and a batch of a few ops (lookupAll's one
// pass), do without it.
func (ix *Index) build(t *Table, content func(int) string, lookups bool) {
	ix.digests(t)
	ix.settleKeys(t, content, lookups)
}

// digests is build's first part: every line's final digest, widened where
// its context repeats. Until settleKeys, no anchor is lengthened, given an
// ordinal or marked ambiguous.
func (ix *Index) digests(t *Table) {
	n := len(ix.hashes)
	t.width = ix.opts.width()
	t.shift = uint(64 - 5*min(t.width, 12))
	t.tops = resize(t.tops, n)
	t.lows = nil
	if t.width > 12 {
		t.lows = resize(t.lowsBuf, n)
		t.lowsBuf = t.lows
	}
	t.radii, t.lengthened, t.ordinals, t.ambiguous, t.special = nil, nil, nil, nil, nil
	t.markRepeatedTops(ix)
	t.widen(ix)
}

// settleKeys is build's second part: the keys several lines share are
// found, and settled.
func (ix *Index) settleKeys(t *Table, content func(int) string, lookups bool) {
	if lookups {
		t.scan(true)
	} else {
		t.scanRepeated()
	}
	t.settle(ix, content)
}

// radiusOneDigests gives every line the digest of its hash and its two
// neighbours'.
func (ix *Index) radiusOneDigests(t *Table) {
	inHalves(len(ix.hashes), func(from, to int) { ix.radiusOneRange(t, from, to, nil) })
}

// radiusOneRange gives the lines from..to their radius-1 digests, and
// adds their keys to filter if it is not nil (while they are at hand).
func (ix *Index) radiusOneRange(t *Table, from, to int, filter *repeatFilter) {
	if from == to {
		return
	}
	hashes := ix.hashes
	prev, cur := ix.hashAt(from-1), hashes[from]
	tops := t.tops[:to]
	for i := from; i < to; i++ {
		next := ix.hashAt(i + 1)
		if t.lows != nil {
			d := mixDigest(prev, cur, next)
			tops[i], t.lows[i] = d[0], d[1]
		} else {
			tops[i] = mixTop(prev, cur, next)
		}
		if filter != nil {
			filter.add(tops[i] >> t.shift)
		}
		prev, cur = cur, next
	}
}

// widen gives lines that repeat their radius-1 context (the same digest:
// the same three lines; t.shared marks them, as markRepeatedTops found
// them) the digest of the narrowest wider context that tells them apart.
// All are refined together, radius by radius; lines whose wider digest is
// still shared go on to the next radius. Equal digests are taken for
// equal contexts here, without comparing the lines: a hash collision only
// makes lines widen further, and settle compares the contexts of the
// digests still shared at the end. It reports whether any digest changed.
// The final key of each line it widens is added to the filter
// markRepeatedTops made, for scanRepeated.
//
// The work is done in line order and in pieces that fit in the cache, so
// its cost per line does not grow with the text: the lines still shared
// are a bitset, their digests are taken in line order (reading the line
// hashes around each in sequence), and the shared digests are told from
// the others by markRepeated: a filter, then a table of the few distinct
// digests left (or, if they are many, sorting small buckets of them).
// (Counting the digests in one hash table, and taking them in the order
// of the groups, missed the cache at every line of a large file: 45% of
// the time of anchoring 10 MB of Go, and the reason its cost per byte
// grew with the file.)
func (t *Table) widen(ix *Index) bool {
	n := len(t.tops)
	if t.sharedCount == 0 {
		return false
	}
	t.grouped = false
	t.radii = resize(t.radiiBuf, n)
	t.radiiBuf = t.radii
	clear(t.radii)
	words := len(t.shared)
	for r := 2; r <= maxRadius; r++ {
		// Many lines still shared are widened on two cores: each takes
		// half the bitset, then finds the shared tops of half the values.
		workers := workersFor(t.sharedCount)
		onWorkers(workers, func(w int) {
			// Each worker's lines are kept apart by their top's first bit:
			// the half of the values each finder takes.
			lo, hi := w*words/workers, (w+1)*words/workers
			ks := [2][]keyedLine{t.keyed[w][0][:0], t.keyed[w][1][:0]}
			for w, word := range t.shared[lo:hi] {
				for word != 0 {
					l := (lo+w)*64 + bits.TrailingZeros64(word)
					word &= word - 1
					left, right := ix.hashAt(l-r), ix.hashAt(l+r)
					if t.lows != nil {
						d := widenDigest(t.tops[l], r, left, right)
						t.tops[l], t.lows[l] = d[0], d[1]
					} else {
						t.tops[l] = widenTop(t.tops[l], r, left, right)
					}
					t.radii[l] = int8(r)
					top := t.tops[l]
					ks[top>>63] = append(ks[top>>63], keyedLine{top, int32(l)})
				}
			}
			t.keyed[w] = ks
		})
		if workers == 1 {
			t.keyed[1][0], t.keyed[1][1] = t.keyed[1][0][:0], t.keyed[1][1][:0]
		}
		total := 0
		for _, ks := range t.keyed {
			total += len(ks[0]) + len(ks[1])
		}
		if total == 0 {
			break
		}
		t.markSharedKeyed(workers, false)
		t.addSettled()
	}
	t.addStillShared()
	return true
}

// A keyedLine is a line and its digest's top.
type keyedLine struct {
	top  uint64
	line int32
}

// A sharedFinder finds the tops that several lines share, for widen: one
// per core, each with its own scratch and bitset.
type sharedFinder struct {
	bucketEnds []int32
	sorted     []keyedLine
	seen       []seenTop
	shared     []uint64 // a bit a line

	filter  repeatFilter
	through []keyedLine // the lines its filter let through
}

// markShared sets the bits of f.shared of the lines in a and b whose top
// another line in them has too. The tops' first skip bits are the same
// for all (two finders take the values by their first bit); the lines are
// cut into buckets of about 1024 by the next bits (a counting sort, in
// sequence), and each bucket's tops are counted in a table small enough
// for the cache. (Buckets of 32 spent more in clearing their tables and
// scattering into thousands of buckets than in finding the shared tops.)
func (f *sharedFinder) markShared(a, b []keyedLine, skip uint) {
	lists := [2][]keyedLine{a, b}
	count := len(a) + len(b)
	bucketBits := max(0, min(16, bits.Len(uint(count/1024))))
	shift := uint(64 - bucketBits)
	bucket := func(top uint64) int {
		if bucketBits == 0 {
			return 0
		}
		return int(top << skip >> shift)
	}
	nb := 1 << bucketBits
	f.bucketEnds = resize(f.bucketEnds, nb+1)
	clear(f.bucketEnds)
	for _, ks := range lists {
		for _, k := range ks {
			f.bucketEnds[bucket(k.top)+1]++
		}
	}
	for b := 1; b <= nb; b++ {
		f.bucketEnds[b] += f.bucketEnds[b-1]
	}
	sorted := resize(f.sorted, count)
	f.sorted = sorted
	for _, ks := range lists {
		for _, k := range ks {
			b := bucket(k.top)
			sorted[f.bucketEnds[b]] = k
			f.bucketEnds[b]++
		}
	}
	from := 0
	for b := range nb {
		// bucketEnds[b] is now where bucket b ends.
		m := sorted[from:f.bucketEnds[b]]
		from = int(f.bucketEnds[b])
		if len(m) < 2 {
			continue
		}
		// An open-addressed table of the bucket's tops, at most half full:
		// each top's first line is marked when a second line has it.
		size := 4
		for size < 2*len(m) {
			size <<= 1
		}
		seen := resize(f.seen, size)
		f.seen = seen
		clear(seen)
		hashShift := uint(64 - bits.TrailingZeros(uint(size)))
		for _, k := range m {
			f.markTop(seen, hashShift, k)
		}
	}
}

// A seenTop is a slot of markShared's table: a top, its first line + 1 (0
// for an empty slot), and whether another line has it too.
type seenTop struct {
	top    uint64
	line   int32
	shared bool
}

// markTop puts k's top in seen, an open-addressed table (its length a
// power of two, at most half full, indexed by the top's high bits after
// hashShift): the first line of a top is kept, and when a second line has
// it both are marked shared. It reports whether the top was new.
func (f *sharedFinder) markTop(seen []seenTop, hashShift uint, k keyedLine) bool {
	h := int((k.top * 0x9e3779b97f4a7c15) >> hashShift)
	for {
		e := &seen[h]
		if e.line == 0 {
			*e = seenTop{k.top, k.line + 1, false}
			return true
		}
		if e.top == k.top {
			if !e.shared {
				e.shared = true
				l := e.line - 1
				f.shared[l/64] |= 1 << (l % 64)
			}
			f.shared[k.line/64] |= 1 << (k.line % 64)
			return false
		}
		h = (h + 1) & (len(seen) - 1)
	}
}

// settle deals with the keys several lines still share after widening:
// different digests get anchors long enough to tell them apart; identical
// digests (contexts alike across 17 lines) get ordinals in line order; and
// identical digests of different contexts, a hash collision, are marked
// ambiguous, never guessed between.
func (t *Table) settle(ix *Index, content func(int) string) {
	for g := range t.groups() {
		m := t.group(g)
		if t.tops[m[0]] != t.tops[m[len(m)-1]] {
			t.lengthen(ix, m)
		}
		t.runs(m, func(run []int32) {
			for k, l := range run[1:] {
				if t.ordinals == nil {
					t.ordinals = map[int32]int32{}
				}
				t.ordinals[l] = int32(k + 2)
				t.markSpecial(l)
			}
			for _, l := range run[1:] {
				if !sameWindow(content, len(t.tops), int(run[0]), int(l), int(t.radius(int(l)))) {
					if t.ambiguous == nil {
						t.ambiguous = map[int32]bool{}
					}
					for _, a := range run {
						t.ambiguous[a] = true
						t.markSpecial(a)
					}
					return
				}
			}
		})
	}
}

// lengthen gives the lines of a group of different digests sharing a key
// anchors long enough to tell those digests apart: as many characters as
// the longest common prefix of two of them needs, plus one. (Sorted, only
// neighbours need comparing.)
func (t *Table) lengthen(ix *Index, m []int32) {
	full := func(l int32) digest {
		if t.lows != nil {
			return digest{t.tops[l], t.lows[l]}
		}
		return ix.digestR(int(l), int(t.radius(int(l))))
	}
	width := t.width
	prev := full(m[0])
	for _, l := range m[1:] {
		d := full(l)
		if d != prev {
			width = max(width, commonBits(prev, d)/5+1)
		}
		prev = d
	}
	width = min(width, maxWidth)
	if t.lengthened == nil {
		t.lengthened = map[int32]lengthened{}
	}
	for _, l := range m {
		t.lengthened[l] = lengthened{d: full(l), width: uint8(width)}
		t.markSpecial(l)
	}
}

// commonBits is the number of leading bits two digests share.
func commonBits(a, b digest) int {
	if a[0] != b[0] {
		return bits.LeadingZeros64(a[0] ^ b[0])
	}
	return 64 + bits.LeadingZeros64(a[1]^b[1])
}

// radius returns the context radius line i's digest was taken with.
func (t *Table) radius(i int) int8 {
	if t.radii == nil || t.radii[i] == 0 {
		return 1
	}
	return t.radii[i]
}

// resize returns s with length n, reusing its array when it is big enough
// (the caller overwrites every element).
func resize[T any](s []T, n int) []T {
	if cap(s) >= n {
		return s[:n]
	}
	return make([]T, n)
}

// sameWindow reports whether lines i and j of n have the same contents
// within r lines on each side (edges included), so equal digests are
// identical contexts, not a hash collision.
func sameWindow(content func(int) string, n, i, j, r int) bool {
	for d := -r; d <= r; d++ {
		a, b := i+d, j+d
		ain, bin := a >= 0 && a < n, b >= 0 && b < n
		if ain != bin || ain && content(a) != content(b) {
			return false
		}
	}
	return true
}
