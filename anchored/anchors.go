package anchored

import "strconv"

// A Table holds the anchor of every line of a text, compactly: tokens are
// written out only for the lines shown or looked up.
type Table struct {
	digests   []digest
	ordinals  []int32 // 1 for the first of identical triples, 2, 3, … after
	widths    []uint8 // characters shown; 0 means the default width
	ambiguous map[int]bool
	width     int
}

// Len returns the number of lines.
func (t *Table) Len() int { return len(t.digests) }

// AppendToken appends line i's anchor to b: its characters, and ".k" for an
// ordinal k > 1.
func (t *Table) AppendToken(b []byte, i int) []byte {
	w := t.width
	if t.widths != nil && t.widths[i] != 0 {
		w = int(t.widths[i])
	}
	b = t.digests[i].appendChars(b, w)
	if o := t.ordinals[i]; o > 1 {
		b = append(b, '.')
		b = strconv.AppendInt(b, int64(o), 10)
	}
	return b
}

// Token returns line i's anchor.
func (t *Table) Token(i int) string {
	var b [40]byte
	return string(t.AppendToken(b[:0], i))
}

// Ambiguous reports whether different lines share line i's whole digest (a
// hash collision, only seen with a weak hash in tests): such a line cannot
// be named by its anchor.
func (t *Table) Ambiguous(i int) bool { return t.ambiguous[i] }

// group is the lines whose anchors agree in their first width characters.
type group struct {
	first    int32 // the first such line; its digest is the group's
	count    int32 // lines with exactly that digest so far
	mixed    bool  // lines with other digests share the prefix
	collided bool  // lines with that digest have different triples
}

// Anchors computes the anchor of every line. Ordinals and collisions
// depend on the whole text, so this is one pass over it: a digest and a
// lookup in an open-addressed table per line. lines gives the contents,
// which tell identical triples from hash collisions.
func (ix *Index) Anchors(lines []Line) *Table {
	n := len(ix.hashes)
	w := ix.opts.width()
	t := &Table{digests: make([]digest, n), ordinals: make([]int32, n), width: w}
	shift := uint(64 - 5*min(w, 12))
	size := 1
	for size < 2*n+2 {
		size <<= 1
	}
	slots := make([]int32, size) // group index + 1; 0 is empty
	groups := make([]group, 0, n/2+1)
	var mixed []uint64
	for i := range n {
		d := ix.digest(i)
		t.digests[i] = d
		key := d[0] >> shift
		h := int((key * 0x9e3779b97f4a7c15 >> 32) & uint64(size-1))
		for slots[h] != 0 && t.digests[groups[slots[h]-1].first][0]>>shift != key {
			h = (h + 1) & (size - 1)
		}
		if slots[h] == 0 {
			groups = append(groups, group{first: int32(i), count: 1})
			slots[h] = int32(len(groups))
			t.ordinals[i] = 1
			continue
		}
		g := &groups[slots[h]-1]
		switch {
		case t.digests[g.first] == d && !g.mixed:
			g.count++
			t.ordinals[i] = g.count
			if !sameTriple(lines, int(g.first), i) {
				g.collided = true
			}
		case !g.mixed:
			g.mixed = true
			mixed = append(mixed, key)
		}
	}
	for _, key := range mixed {
		t.lengthen(lines, key, shift)
	}
	for _, g := range groups {
		if g.collided && !g.mixed {
			d := t.digests[g.first]
			for i := int(g.first); i < n; i++ {
				if t.digests[i] == d {
					t.markAmbiguous(i)
				}
			}
		}
	}
	return t
}

func (t *Table) markAmbiguous(i int) {
	if t.ambiguous == nil {
		t.ambiguous = map[int]bool{}
	}
	t.ambiguous[i] = true
}

// lengthen gives the lines of a prefix group shared by different digests
// anchors long enough to tell the digests apart, with ordinals counted per
// digest. It runs only for such groups, which a 30-bit prefix makes rare.
func (t *Table) lengthen(lines []Line, key uint64, shift uint) {
	var members []int
	for i, d := range t.digests {
		if d[0]>>shift == key {
			members = append(members, i)
		}
	}
	width := t.width
	for ; width < maxWidth; width++ {
		seen := map[string]digest{}
		clash := false
		for _, i := range members {
			c := t.digests[i].chars(width)
			if d, ok := seen[c]; ok && d != t.digests[i] {
				clash = true
				break
			}
			seen[c] = t.digests[i]
		}
		if !clash {
			break
		}
	}
	if t.widths == nil {
		t.widths = make([]uint8, len(t.digests))
	}
	count := map[digest]int32{}
	first := map[digest]int{}
	for _, i := range members {
		d := t.digests[i]
		count[d]++
		if count[d] == 1 {
			first[d] = i
		} else if !sameTriple(lines, first[d], i) {
			t.markAmbiguous(first[d])
			t.markAmbiguous(i)
		}
		t.ordinals[i] = count[d]
		t.widths[i] = uint8(width)
	}
}

// sameTriple reports whether lines i and j have the same contents and
// neighbours, so equal digests are identical triples, not a collision.
func sameTriple(lines []Line, i, j int) bool {
	at := func(k int) (string, bool) {
		if k < 0 || k >= len(lines) {
			return "", false
		}
		return lines[k].Content, true
	}
	for d := -1; d <= 1; d++ {
		a, aok := at(i + d)
		b, bok := at(j + d)
		if a != b || aok != bok {
			return false
		}
	}
	return true
}
