package anchored

import (
	"math/bits"
	"slices"
)

// The key index: an open-addressed table of every line's key (the digest
// bits its anchor shows), in which finding the lines that share a key, and
// the line a token names, costs a probe a line rather than a map lookup.

// A slot of the key index: the top 32 bits of its first line's digest
// (its key, or the key's start when anchors show more than 6 characters)
// and the first line + 1; 0 is an empty slot. Eight bytes, so the index of
// a 250,000-line file is 4 MB.
type slot uint64

func newSlot(top uint64, line int) slot { return slot(top>>32<<32 | uint64(line+1)) }

func (s slot) line() int { return int(uint32(s)) - 1 }

type memberOf struct{ line, group int32 }

// scan builds the key index: one probe per line. Lines whose key another
// line has too are gathered into groups, each in line order.
func (t *Table) scan() {
	t.pairs, t.nGroups, t.groupOf = t.pairs[:0], 0, nil
	// Half full: a probe seldom goes past its first slot. (Three quarters
	// full took the scan of 250,000 lines from 2.5 ms to 4.5 ms, and cutting
	// the index into parts that each stay in the cache gained nothing.)
	t.slots = resize(t.slots, 2*len(t.tops)+16)
	clear(t.slots)
	slots, size, shift := t.slots, len(t.slots), t.shift
	for i, top := range t.tops {
		h := slotOf(top>>shift, size)
		for {
			s := slots[h]
			if s == 0 {
				slots[h] = newSlot(top, i)
				break
			}
			if t.sameKey(s, top) {
				t.share(s.line(), i)
				break
			}
			if h++; h == size {
				h = 0
			}
		}
	}
	pairs, groups := t.pairs, t.nGroups
	// Group the members by a counting sort, which keeps line order (a
	// group's first line is recorded just before its second).
	t.bounds = resize(t.bounds, int(groups)+1)
	clear(t.bounds)
	for _, p := range pairs {
		t.bounds[p.group+1]++
	}
	for g := 1; g <= int(groups); g++ {
		t.bounds[g] += t.bounds[g-1]
	}
	t.members = resize(t.members, len(pairs))
	for _, p := range pairs {
		// bounds[g] is advanced past each member placed, then restored.
		t.members[t.bounds[p.group]] = p.line
		t.bounds[p.group]++
	}
	for g := int(groups); g > 0; g-- {
		t.bounds[g] = t.bounds[g-1]
	}
	t.bounds[0] = 0
}

// share records that line i has the key of line first, the key's first
// line: both are members of the key's group.
func (t *Table) share(first, i int) {
	if t.groupOf == nil {
		t.groupOf = resize(t.groupBuf, len(t.tops))
		t.groupBuf = t.groupOf
		clear(t.groupOf)
	}
	if t.groupOf[first] == 0 {
		t.nGroups++
		t.groupOf[first] = t.nGroups
		t.pairs = append(t.pairs, memberOf{int32(first), t.nGroups - 1})
	}
	t.pairs = append(t.pairs, memberOf{int32(i), t.groupOf[first] - 1})
}

// slotOf is where the key index of size slots starts looking for key:
// the key mixed, then mapped onto [0, size) by a multiplication.
func slotOf(key uint64, size int) int {
	hi, _ := bits.Mul64(key*0x9e3779b97f4a7c15, uint64(size))
	return int(hi)
}

// sameKey reports whether the slot holds the key of a digest whose top is
// top.
func (t *Table) sameKey(s slot, top uint64) bool {
	// The slot's 32 bits hold the whole key when anchors show at most 6
	// characters; else the first line's digest has the rest.
	return (uint64(s)^top)>>max(t.shift, 32) == 0 &&
		(t.shift >= 32 || t.tops[s.line()]>>t.shift == top>>t.shift)
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
	size := len(t.slots)
	if len(t.tops) == 0 {
		return -1
	}
	top := key << t.shift
	h := slotOf(key, size)
	for {
		s := t.slots[h]
		switch {
		case s == 0:
			return -1
		case !t.sameKey(s, top):
			if h++; h == size {
				h = 0
			}
			continue
		case t.groupOf == nil || t.groupOf[s.line()] == 0:
			if t.Token(s.line()) == tok {
				return s.line()
			}
			return -1
		}
		var b []byte
		g := t.groupOf[s.line()] - 1
		for _, l := range t.members[t.bounds[g]:t.bounds[g+1]] {
			if b = t.AppendToken(b[:0], int(l)); string(b) == tok && !t.Ambiguous(int(l)) {
				return int(l)
			}
		}
		return -1
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
