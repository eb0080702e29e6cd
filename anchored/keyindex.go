package anchored

import (
	"math/bits"
	"slices"
	"strings"
)

// The key index: every line's key (the digest bits its anchor shows) in
// open-addressed tables, in which finding the lines that share a key, and
// the line a token names, costs a probe a line rather than a map lookup.
//
// The index is cut into partitions by the keys' first bits, each a table of
// its own, half full, filled while it is in the cache: the lines' slots are
// first sorted into their partitions (a counting sort, read and written in
// sequence), then each partition's table is filled from them. One table of
// the whole text, filled in line order, missed the cache at nearly every
// line of a large text: 20 ms of the 100 ms of anchoring 10 MB of Go.

// A slot of the key index: the top 32 bits of a key's first line's
// digest (its key, or the key's start when anchors show more than 6
// characters), and in its low 32 bits the first line + 1 or, once a second
// line has the key, groupFlag | the key's group; 0 is an empty slot. Eight
// bytes, so the index of a 250,000-line file is 4 MB.
type slot uint64

const groupFlag = 1 << 31

func newSlot(top uint64, line int) slot { return slot(top>>32<<32 | uint64(line+1)) }

// line returns the slot's line; the slot must not be a group's.
func (s slot) line() int { return int(uint32(s)) - 1 }

// group returns the group of a slot whose key several lines share, or -1.
func (s slot) group() int {
	if uint32(s)&groupFlag == 0 {
		return -1
	}
	return int(uint32(s) &^ groupFlag)
}

func (s slot) withGroup(g int32) slot { return s>>32<<32 | slot(groupFlag|uint32(g)) }

// A memberOf is a line of a group, as a partition's fill finds it.
type memberOf struct{ line, group int32 }

// Partitions hold about partitionLines lines each (their tables so fit in
// the cache), and there are at most 1<<maxPartitionBits of them (so that
// sorting the slots into them writes to few places at once).
const (
	partitionLines   = 1024
	maxPartitionBits = 10
)

// scan finds the lines whose key another line has too, and gathers them
// into groups, each in line order. With keep, the index is kept for
// lookup: every partition's table stays, laid out one after the other;
// else (a render, which looks nothing up) the partitions take turns in one
// table the size of the largest (one per core). A large text's lines are
// counted, sorted into partitions and filled in on two cores, each taking
// half the lines, then half the partitions.
func (t *Table) scan(keep bool) {
	t.indexKept = keep
	t.secondPart, t.secondBase = 1<<30, 0
	n := len(t.tops)
	pb := 0
	if n > 2*partitionLines {
		pb = min(bits.Len(uint(n/partitionLines))-1, maxPartitionBits, int(64-t.shift))
	}
	t.partShift = uint(64 - pb) // a shift by 64 leaves 0: one partition
	first := &t.fillers[0]
	first.reset(t)
	if pb == 0 {
		// One partition: the lines are its slots, in order, unsorted.
		t.partStart = append(t.partStart[:0], 0, int32(tableSize(n)))
		t.slots = resize(t.slots, tableSize(n))
		first.fill(t.slots, nil)
		t.takeGroups()
		return
	}
	parts := 1 << pb
	workers := workersFor(n)
	// Count the lines of each partition, each worker its own share of the
	// lines, and size each partition's table.
	half := (n + workers - 1) / workers
	for w := range workers {
		t.partCount[w] = resize(t.partCount[w], parts)
	}
	onWorkers(workers, func(w int) {
		count, shift := t.partCount[w], t.partShift
		clear(count)
		for _, top := range t.tops[w*half : min(n, (w+1)*half)] {
			count[top>>shift]++
		}
	})
	t.partStart = resize(t.partStart, parts+1)
	t.partFrom = resize(t.partFrom, parts+1)
	size, largest, at := 0, 0, 0
	for p := range parts {
		lines := int(t.partCount[0][p])
		if workers == 2 {
			lines += int(t.partCount[1][p])
		}
		t.partStart[p], t.partFrom[p] = int32(size), int32(at)
		// Each worker's count becomes where its first slot goes.
		if workers == 2 {
			t.partCount[1][p] = int32(at) + t.partCount[0][p]
		}
		t.partCount[0][p] = int32(at)
		ts := tableSize(lines)
		largest = max(largest, ts)
		size += ts
		at += lines
	}
	t.partStart[parts], t.partFrom[parts] = int32(size), int32(at)
	// Sort the lines' slots into their partitions, in line order: the
	// first worker's lines of a partition first, then the second's.
	sorted := resize(t.sortedSlots, n)
	t.sortedSlots = sorted
	onWorkers(workers, func(w int) {
		next, shift := t.partCount[w], t.partShift
		lo := w * half
		for i, top := range t.tops[lo:min(n, (w+1)*half)] {
			p := top >> shift
			sorted[next[p]] = newSlot(top, lo+i)
			next[p]++
		}
	})
	if !keep {
		size = workers * largest
	}
	t.slots = resize(t.slots, size)
	// Fill the partitions' tables: the first worker the first half of the
	// partitions, the second the rest, each gathering its own groups.
	split := parts
	if workers == 2 {
		split = parts / 2
		t.fillers[1].reset(t)
	}
	onWorkers(workers, func(w int) {
		f := &t.fillers[w]
		lo, hi := 0, split
		if w == 1 {
			lo, hi = split, parts
		}
		for p := lo; p < hi; p++ {
			var table []slot
			if keep {
				table = t.slots[t.partStart[p]:t.partStart[p+1]]
			} else {
				table = t.slots[w*largest:][:tableSize(int(t.partFrom[p+1]-t.partFrom[p]))]
			}
			f.fill(table, sorted[t.partFrom[p]:t.partFrom[p+1]])
		}
	})
	if workers == 2 {
		// The second worker's groups follow the first's: the slots of its
		// partitions number them from secondBase.
		t.secondPart, t.secondBase = split, int32(len(first.groupFirst))
		first.append(&t.fillers[1])
	}
	t.takeGroups()
}

// takeGroups makes the first filler's groups the table's.
func (t *Table) takeGroups() {
	f := &t.fillers[0]
	t.groupFirst, t.members, t.bounds = f.groupFirst, f.members, f.bounds
}

// A filler fills partitions' tables and gathers their groups: one per
// core, each with its own lists, joined when both are done.
type filler struct {
	t          *Table
	pairs      []memberOf
	groupAt    []int32
	lineSlots  []slot  // the slots of a one-partition index, in line order
	groupFirst []int32 // the first line of each of its groups
	members    []int32 // the lines of its groups, group by group
	bounds     []int32 // group g is members[bounds[g]:bounds[g+1]]
}

func (f *filler) reset(t *Table) {
	f.t = t
	f.groupFirst, f.members, f.bounds = f.groupFirst[:0], f.members[:0], append(f.bounds[:0], 0)
}

// append adds another filler's groups after f's.
func (f *filler) append(o *filler) {
	base := int32(len(f.members))
	f.groupFirst = append(f.groupFirst, o.groupFirst...)
	f.members = append(f.members, o.members...)
	for _, b := range o.bounds[1:] {
		f.bounds = append(f.bounds, base+b)
	}
}

// fill puts a partition's slots, in line order, into its table, and
// appends the groups of the keys several of its lines share. Nil slots
// stand for every line of the table, in order.
func (f *filler) fill(table []slot, slots []slot) {
	t := f.t
	clear(table)
	if slots == nil {
		slots = resize(f.lineSlots, len(t.tops))
		f.lineSlots = slots
		for i, top := range t.tops {
			slots[i] = newSlot(top, i)
		}
	}
	mask := len(table) - 1
	keyShift, posShift := t.slotKeyShift(), tablePosShift(len(table))
	wide := t.shift < 32 // the slots hold only the start of a key
	f.pairs = f.pairs[:0]
	firstGroup := int32(len(f.groupFirst))
	for _, s := range slots {
		h := slotPos(uint64(s)>>keyShift, posShift)
		for {
			o := table[h]
			if o == 0 {
				table[h] = s
				break
			}
			if (o^s)>>keyShift == 0 && (!wide || f.sameWideKey(o, s)) {
				f.share(table, h, s)
				break
			}
			h = (h + 1) & mask
		}
	}
	pairs := f.pairs
	if len(pairs) == 0 {
		return
	}
	// Group the members by a counting sort, which keeps line order (a
	// group's first line is recorded just before its second).
	groups := len(f.groupFirst) - int(firstGroup)
	base := int32(len(f.members))
	at := resize(f.groupAt, groups+1)
	f.groupAt = at
	clear(at)
	for _, p := range pairs {
		at[p.group-firstGroup+1]++
	}
	for g := 1; g <= groups; g++ {
		at[g] += at[g-1]
		f.bounds = append(f.bounds, base+at[g])
	}
	f.members = slices.Grow(f.members, len(pairs))[:int(base)+len(pairs)]
	for _, p := range pairs {
		g := p.group - firstGroup
		f.members[base+at[g]] = p.line
		at[g]++
	}
}

// share records that the line of slot s has the key of table[h]: both
// are members of the key's group, made now if it is the key's second line.
// (Apart from fill's loop, which keeps fewer values live without it.)
func (f *filler) share(table []slot, h int, s slot) {
	o := table[h]
	g := int32(o.group())
	if g < 0 {
		g = int32(len(f.groupFirst))
		f.groupFirst = append(f.groupFirst, int32(o.line()))
		table[h] = o.withGroup(g)
		f.pairs = append(f.pairs, memberOf{int32(o.line()), g})
	}
	f.pairs = append(f.pairs, memberOf{int32(s.line()), g})
}

// sameWideKey reports whether two slots whose 32 bits agree hold the same
// key of more than 6 characters: their lines' digests have the rest.
func (f *filler) sameWideKey(a, b slot) bool {
	t := f.t
	return t.tops[f.slotLine(a)]>>t.shift == t.tops[f.slotLine(b)]>>t.shift
}

// slotLine returns a slot's line, or its group's first line, as the
// filler numbers its groups.
func (f *filler) slotLine(s slot) int {
	if g := s.group(); g >= 0 {
		return int(f.groupFirst[g])
	}
	return s.line()
}

// tableSize is the size of a partition's table for n lines: a power of
// two, at least twice n, so it is at most half full.
func tableSize(n int) int {
	size := 4
	for size < 2*n {
		size <<= 1
	}
	return size
}

// slotKey is what a slot's place in its table is computed from: its key,
// or the start of it that the slot holds when anchors show more than 6
// characters.
func (t *Table) slotKey(s slot) uint64 { return uint64(s) >> t.slotKeyShift() }

// slotKeyShift is the shift that leaves a slot's key, or the part of it
// the slot holds.
func (t *Table) slotKeyShift() uint { return max(t.shift, 32) }

// groupOf returns the group of a slot of partition p of the kept index,
// or -1 for a slot of one line.
func (t *Table) groupOf(s slot, p int) int {
	g := s.group()
	if g >= 0 && p >= t.secondPart {
		g += int(t.secondBase)
	}
	return g
}

// partitionOf returns the partition a key's top falls in, and its kept
// table.
func (t *Table) partitionOf(top uint64) (int, []slot) {
	p := top >> t.partShift
	return int(p), t.slots[t.partStart[p]:t.partStart[p+1]]
}

// slotPos is where a table looks for a key first: the key mixed by a
// multiplication, whose top bits (posShift leaves as many as the table's
// size has) spread keys that differ anywhere.
func slotPos(key uint64, posShift uint) int {
	return int(key * 0x9e3779b97f4a7c15 >> posShift)
}

// tablePosShift is slotPos's shift for a table of size slots, a power of
// two.
func tablePosShift(size int) uint { return uint(64 - bits.TrailingZeros(uint(size))) }

// sameKeyAs reports whether a slot of partition p of the kept index holds
// the key of a digest whose top is top.
func (t *Table) sameKeyAs(s slot, p int, top uint64) bool {
	if t.slotKey(s) != t.slotKey(newSlot(top, 0)) {
		return false
	}
	if t.shift >= 32 {
		return true // the slot holds the whole key
	}
	line := s.line()
	if g := t.groupOf(s, p); g >= 0 {
		line = int(t.groupFirst[g])
	}
	return t.tops[line]>>t.shift == top>>t.shift
}

// groups returns the number of groups of the last scan.
func (t *Table) groups() int { return len(t.bounds) - 1 }

// group returns the lines of group g sorted by digest, stably: lines with
// identical digests form runs, in line order.
func (t *Table) group(g int) []int32 {
	m := t.members[t.bounds[g]:t.bounds[g+1]]
	for _, l := range m[1:] {
		if t.tops[l] != t.tops[m[0]] {
			slices.SortStableFunc(m, func(a, b int32) int {
				return cmpUint64(t.tops[a], t.tops[b])
			})
			break
		}
	}
	return m
}

func cmpUint64(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// runs calls f for each run of identical digests in a group from group().
func (t *Table) runs(m []int32, f func(run []int32)) {
	for len(m) > 0 {
		k := 1
		for k < len(m) && t.tops[m[k]] == t.tops[m[0]] {
			k++
		}
		f(m[:k])
		m = m[k:]
	}
}

// lookupAll returns the line each token names exactly, as lookup does,
// or -1. A few tokens (a batch of ops) are looked for in one pass over the
// lines' keys, so the index need not be kept (laying out every
// partition's table costs more than the pass); many, in the index.
func (t *Table) lookupAll(toks []string) map[string]int {
	found := make(map[string]int, len(toks))
	if len(toks) > maxScannedTokens || t.indexKept {
		for _, tok := range toks {
			found[tok] = t.lookup(tok)
		}
		return found
	}
	// The keys wanted, and a bitmap of their low bits that most lines'
	// keys miss.
	var filter [filterWords]uint64
	wanted := map[uint64][]string{}
	for _, tok := range toks {
		found[tok] = -1
		if key, ok := t.tokenKey(tok); ok {
			filter[key%(filterWords*64)/64] |= 1 << (key % 64)
			wanted[key] = append(wanted[key], tok)
		}
	}
	if len(wanted) == 0 {
		return found
	}
	var b []byte
	for i, top := range t.tops {
		key := top >> t.shift
		if filter[key%(filterWords*64)/64]&(1<<(key%64)) == 0 {
			continue
		}
		for _, tok := range wanted[key] {
			if b = t.AppendToken(b[:0], i); string(b) == tok && !t.Ambiguous(i) && found[tok] < 0 {
				found[tok] = i
			}
		}
	}
	return found
}

// resolveUnique returns the line each token names, as lookupAll would
// once the keys are settled, when it can tell before settling them: when
// every token is a plain anchor (as many characters as the table shows,
// no ordinal) whose key one line alone has. That line's anchor is then
// its digest's characters whatever settling does (no other line shares
// its key, so it is neither lengthened, given an ordinal nor ambiguous),
// and no other line's anchor starts with them. One pass over the lines'
// keys, as lookupAll's; nil when a token is not so (the caller settles
// the keys and looks up).
func (t *Table) resolveUnique(toks []string) map[string]int {
	if len(toks) > maxScannedTokens {
		return nil
	}
	type wantedKey struct {
		key   uint64
		lines int // how many lines have the key
		line  int // the first
	}
	var filter [filterWords]uint64
	wanted := make([]wantedKey, 0, len(toks))
	for _, tok := range toks {
		if len(tok) != t.width || strings.IndexByte(tok, '.') >= 0 {
			return nil
		}
		key, ok := t.tokenKey(tok)
		if !ok {
			return nil
		}
		filter[key%(filterWords*64)/64] |= 1 << (key % 64)
		wanted = append(wanted, wantedKey{key: key, line: -1})
	}
	for i, top := range t.tops {
		key := top >> t.shift
		if filter[key%(filterWords*64)/64]&(1<<(key%64)) == 0 {
			continue
		}
		for k := range wanted {
			if w := &wanted[k]; w.key == key {
				if w.lines++; w.lines == 1 {
					w.line = i
				}
			}
		}
	}
	found := make(map[string]int, len(toks))
	var b []byte
	for k, tok := range toks {
		w := wanted[k]
		if w.lines != 1 {
			return nil
		}
		if b = t.AppendToken(b[:0], w.line); string(b) != tok {
			return nil
		}
		found[tok] = w.line
	}
	return found
}

// Bounds of lookupAll's pass.
const (
	maxScannedTokens = 256
	filterWords      = 64 // 4096 bits
)

// tokenKey returns the key a token's anchor characters name: its first
// min(width, 12) characters, decoded.
func (t *Table) tokenKey(tok string) (uint64, bool) {
	base, _ := splitOrdinal(tok)
	if len(base) < t.width || len(base) > maxWidth {
		return 0, false
	}
	var key uint64
	for k := range min(t.width, 12) {
		v := decodeCrockford(base[k])
		if v < 0 {
			return 0, false
		}
		key = key<<5 | uint64(v)
	}
	return key, true
}

// lookup returns the line whose anchor is exactly tok (with its ordinal),
// or -1: a probe of the key index, and a look at the group of a shared
// key.
func (t *Table) lookup(tok string) int {
	key, ok := t.tokenKey(tok)
	if !ok || len(t.tops) == 0 {
		return -1
	}
	t.keepIndex()
	top := key << t.shift
	p, table := t.partitionOf(top)
	for h := slotPos(t.slotKey(newSlot(top, 0)), tablePosShift(len(table))); ; h = (h + 1) & (len(table) - 1) {
		s := table[h]
		switch {
		case s == 0:
			return -1
		case !t.sameKeyAs(s, p, top):
			continue
		case s.group() < 0:
			if t.Token(s.line()) == tok {
				return s.line()
			}
			return -1
		}
		var b []byte
		g := t.groupOf(s, p)
		for _, l := range t.members[t.bounds[g]:t.bounds[g+1]] {
			if b = t.AppendToken(b[:0], int(l)); string(b) == tok && !t.Ambiguous(int(l)) {
				return int(l)
			}
		}
		return -1
	}
}

// keepIndex makes the key index of the table's digests if the last scan
// did not keep it (a table built for a render): lookup needs it.
func (t *Table) keepIndex() {
	if !t.indexKept {
		t.scan(true)
	}
}

// decodeCrockford returns the value of an anchor character, or -1.
func decodeCrockford(c byte) int {
	for v := range len(crockford) {
		if crockford[v] == c {
			return v
		}
	}
	return -1
}
