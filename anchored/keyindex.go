package anchored

import (
	"math/bits"
	"slices"
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
// table the size of the largest.
func (t *Table) scan(keep bool) {
	t.indexKept = keep
	t.nGroups = 0
	t.groupFirst, t.members = t.groupFirst[:0], t.members[:0]
	t.bounds = append(t.bounds[:0], 0)
	n := len(t.tops)
	pb := 0
	if n > 2*partitionLines {
		pb = min(bits.Len(uint(n/partitionLines))-1, maxPartitionBits, int(64-t.shift))
	}
	t.partShift = uint(64 - pb) // a shift by 64 leaves 0: one partition
	parts := 1 << pb
	// Count the lines of each partition, and size its table.
	count := resize(t.partCount, parts+1)
	t.partCount = count
	clear(count)
	for _, top := range t.tops {
		count[top>>t.partShift+1]++
	}
	t.partStart = resize(t.partStart, parts+1)
	size, largest := 0, 0
	for p := range parts {
		t.partStart[p] = int32(size)
		ts := tableSize(int(count[p+1]))
		largest = max(largest, ts)
		size += ts
	}
	t.partStart[parts] = int32(size)
	// Sort the lines' slots into their partitions, in line order.
	for p := 1; p <= parts; p++ {
		count[p] += count[p-1]
	}
	sorted := resize(t.sortedSlots, n)
	t.sortedSlots = sorted
	for i, top := range t.tops {
		p := top >> t.partShift
		sorted[count[p]] = newSlot(top, i)
		count[p]++
	}
	if !keep {
		size = largest
	}
	t.slots = resize(t.slots, size)
	from := 0
	for p := range parts {
		// count[p] is now where partition p's slots end.
		var table []slot
		if keep {
			table = t.slots[t.partStart[p]:t.partStart[p+1]]
		} else {
			table = t.slots[:tableSize(int(count[p])-from)]
		}
		t.fill(table, sorted[from:count[p]])
		from = int(count[p])
	}
}

// fill puts a partition's slots, in line order, into its table, and
// appends the groups of the keys several of its lines share.
func (t *Table) fill(table []slot, slots []slot) {
	clear(table)
	mask := len(table) - 1
	pairs := t.pairs[:0]
	firstGroup := t.nGroups
	for _, s := range slots {
		h := slotOf(t.slotKey(s), len(table))
		for {
			o := table[h]
			if o == 0 {
				table[h] = s
				break
			}
			if t.sameKey(o, s) {
				g := int32(o.group())
				if g < 0 {
					g = t.nGroups
					t.nGroups++
					t.groupFirst = append(t.groupFirst, int32(o.line()))
					table[h] = o.withGroup(g)
					pairs = append(pairs, memberOf{int32(o.line()), g})
				}
				pairs = append(pairs, memberOf{int32(s.line()), g})
				break
			}
			h = (h + 1) & mask
		}
	}
	t.pairs = pairs
	if len(pairs) == 0 {
		return
	}
	// Group the members by a counting sort, which keeps line order (a
	// group's first line is recorded just before its second).
	groups := int(t.nGroups - firstGroup)
	base := int32(len(t.members))
	at := resize(t.groupAt, groups+1)
	t.groupAt = at
	clear(at)
	for _, p := range pairs {
		at[p.group-firstGroup+1]++
	}
	for g := 1; g <= groups; g++ {
		at[g] += at[g-1]
		t.bounds = append(t.bounds, base+at[g])
	}
	t.members = slices.Grow(t.members, len(pairs))[:int(base)+len(pairs)]
	for _, p := range pairs {
		g := p.group - firstGroup
		t.members[base+at[g]] = p.line
		at[g]++
	}
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
func (t *Table) slotKey(s slot) uint64 { return uint64(s) >> max(t.shift, 32) }

// slotLine returns a slot's line, or its group's first line.
func (t *Table) slotLine(s slot) int {
	if g := s.group(); g >= 0 {
		return int(t.groupFirst[g])
	}
	return s.line()
}

// partitionOf returns the kept table of the partition a key's top falls
// in.
func (t *Table) partitionOf(top uint64) []slot {
	p := top >> t.partShift
	return t.slots[t.partStart[p]:t.partStart[p+1]]
}

// slotOf is where the key index of size slots starts looking for key:
// the key mixed, then mapped onto [0, size) by a multiplication.
func slotOf(key uint64, size int) int {
	hi, _ := bits.Mul64(key*0x9e3779b97f4a7c15, uint64(size))
	return int(hi)
}

// sameKey reports whether two slots hold the same key.
func (t *Table) sameKey(a, b slot) bool {
	// A slot's 32 bits hold the whole key when anchors show at most 6
	// characters; else the lines' digests have the rest.
	return t.slotKey(a) == t.slotKey(b) &&
		(t.shift >= 32 || t.tops[t.slotLine(a)]>>t.shift == t.tops[t.slotLine(b)]>>t.shift)
}

// sameKeyAs reports whether the slot holds the key of a digest whose top
// is top.
func (t *Table) sameKeyAs(s slot, top uint64) bool {
	return t.slotKey(s) == t.slotKey(newSlot(top, 0)) &&
		(t.shift >= 32 || t.tops[t.slotLine(s)]>>t.shift == top>>t.shift)
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

// lookup returns the line whose anchor is exactly tok (with its ordinal),
// or -1: a probe of the key index, and a look at the group of a shared
// key.
func (t *Table) lookup(tok string) int {
	base, _ := splitOrdinal(tok)
	keyChars := min(t.width, 12)
	if len(base) < t.width || len(base) > maxWidth {
		return -1
	}
	var key uint64
	for k := range keyChars {
		v := decodeCrockford(base[k])
		if v < 0 {
			return -1
		}
		key = key<<5 | uint64(v)
	}
	if len(t.tops) == 0 {
		return -1
	}
	t.keepIndex()
	top := key << t.shift
	table := t.partitionOf(top)
	for h := slotOf(t.slotKey(newSlot(top, 0)), len(table)); ; h = (h + 1) & (len(table) - 1) {
		s := table[h]
		switch {
		case s == 0:
			return -1
		case !t.sameKeyAs(s, top):
			continue
		case s.group() < 0:
			if t.Token(s.line()) == tok {
				return s.line()
			}
			return -1
		}
		var b []byte
		for _, l := range t.members[t.bounds[s.group()]:t.bounds[s.group()+1]] {
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
