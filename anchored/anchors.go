package anchored

import "strconv"

// A Table holds the anchor of every line of a text, compactly: tokens are
// written out only for the lines shown or looked up.
type Table struct {
	digests   []digest
	ordinals  []int32 // 1 for the first of identical triples, 2, 3, … after
	widths    []uint8 // characters shown; 0 means the default width
	ambiguous map[int]bool
	radii     []int8 // context radius of each digest; nil or 0 means 1
	width     int

	// Scratch for the next AnchorsInto.
	slots  []int32
	groups []group
	gidx   []int32
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
// depend on the whole text, so this is a pass over it (a digest and a
// lookup in an open-addressed table per line), and a second one when some
// lines repeat and get wider digests. lines gives the contents, which tell
// identical contexts from hash collisions.
func (ix *Index) Anchors(lines []Line) *Table {
	t := &Table{}
	ix.AnchorsInto(t, lines)
	return t
}

// AnchorsInto is Anchors writing into t, whose memory it reuses: a caller
// that keeps a Table per document (as the language server does) renders
// without allocating once the table has grown to the document's size.
func (ix *Index) AnchorsInto(t *Table, lines []Line) {
	n := len(ix.hashes)
	t.digests = resize(t.digests, n)
	t.ordinals = resize(t.ordinals, n)
	t.widths, t.radii, t.ambiguous = nil, nil, nil
	t.width = ix.opts.width()
	for i := range n {
		t.digests[i] = ix.digest(i)
	}
	repeated := t.index(lines, false)
	if len(repeated) > 0 {
		ix.widen(t, lines, repeated)
		clear(t.ordinals)
		t.widths, t.ambiguous = nil, nil
		t.index(lines, true)
	}
}

// resize returns s with length n, reusing its array when it is big enough
// (the caller overwrites every element).
func resize[T any](s []T, n int) []T {
	if cap(s) >= n {
		return s[:n]
	}
	return make([]T, n)
}

// widen gives the lines of each group of identical radius-1 digests the
// digest of the narrowest wider context that tells them apart. All groups
// are refined together, radius by radius; lines whose wider digest is
// still shared go on to the next radius. (A wider window contains the
// narrower one, so lines of different groups never share a wider digest
// but by a hash collision, which index marks.)
func (ix *Index) widen(t *Table, lines []Line, groups [][]int) {
	var work []int32
	for _, g := range groups {
		for _, l := range g {
			work = append(work, int32(l))
		}
	}
	type seen struct{ first, count int32 }
	for r := 2; r <= maxRadius && len(work) > 0; r++ {
		counts := make(map[digest]seen, len(work))
		for _, l := range work {
			d := ix.digestR(int(l), r)
			t.digests[l] = d
			t.setRadius(int(l), r)
			if c, ok := counts[d]; ok {
				c.count++
				counts[d] = c
			} else {
				counts[d] = seen{first: l, count: 1}
			}
		}
		kept := work[:0]
		for _, l := range work {
			c := counts[t.digests[l]]
			if c.count > 1 && sameWindow(lines, int(c.first), int(l), r) {
				kept = append(kept, l)
			}
		}
		work = kept
	}
}

// index assigns ordinals to identical digests, marks collisions, and
// lengthens anchors whose shown characters clash. It returns the groups of
// lines with identical radius-1 digests, unless final.
func (t *Table) index(lines []Line, final bool) [][]int {
	n := len(t.digests)
	w := t.width
	shift := uint(64 - 5*min(w, 12))
	size := 1
	for size < 2*n+2 {
		size <<= 1
	}
	t.slots = resize(t.slots, size) // group index + 1; 0 is empty
	clear(t.slots)
	slots := t.slots
	t.gidx = resize(t.gidx, n) // each line's group, for gathering repeats
	gidx := t.gidx
	if cap(t.groups) < n {
		// At most one group a line: grown once, not by doubling.
		t.groups = make([]group, 0, n)
	}
	groups := t.groups[:0]
	defer func() { t.groups = groups[:0] }()
	var mixed []uint64
	for i := range n {
		d := t.digests[i]
		key := d[0] >> shift
		h := int((key * 0x9e3779b97f4a7c15 >> 32) & uint64(size-1))
		for slots[h] != 0 && t.digests[groups[slots[h]-1].first][0]>>shift != key {
			h = (h + 1) & (size - 1)
		}
		if slots[h] == 0 {
			groups = append(groups, group{first: int32(i), count: 1})
			slots[h] = int32(len(groups))
			gidx[i] = int32(len(groups) - 1)
			t.ordinals[i] = 1
			continue
		}
		gidx[i] = slots[h] - 1
		g := &groups[slots[h]-1]
		switch {
		case t.digests[g.first] == d && !g.mixed:
			g.count++
			t.ordinals[i] = g.count
			if !sameWindow(lines, int(g.first), i, int(t.radius(i))) {
				g.collided = true
			}
		case !g.mixed:
			g.mixed = true
			mixed = append(mixed, key)
		}
	}
	// The lines of every mixed group, gathered in one pass.
	members := map[uint64][]int{}
	for _, key := range mixed {
		members[key] = nil
	}
	if len(mixed) > 0 {
		for i, d := range t.digests {
			if ls, ok := members[d[0]>>shift]; ok {
				members[d[0]>>shift] = append(ls, i)
			}
		}
	}
	if !final {
		// Groups of lines with identical digests, gathered in one pass
		// by each line's group.
		var repeated [][]int
		at := make([]int32, len(groups)) // index in repeated + 1
		for k, g := range groups {
			if g.count > 1 && !g.collided && !g.mixed {
				repeated = append(repeated, make([]int, 0, g.count))
				at[k] = int32(len(repeated))
			}
		}
		if len(repeated) > 0 {
			for i := range n {
				if k := at[gidx[i]]; k > 0 {
					repeated[k-1] = append(repeated[k-1], i)
				}
			}
		}
		for _, key := range mixed {
			// Identical digests inside a mixed group repeat too.
			byDigest := map[digest][]int{}
			for _, i := range members[key] {
				byDigest[t.digests[i]] = append(byDigest[t.digests[i]], i)
			}
			for _, ls := range byDigest {
				if len(ls) > 1 && sameWindow(lines, ls[0], ls[1], 1) {
					repeated = append(repeated, ls)
				}
			}
		}
		if len(repeated) > 0 {
			return repeated
		}
	}
	for _, key := range mixed {
		t.lengthen(lines, members[key])
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
	return nil
}

// radius returns the context radius line i's digest was taken with.
func (t *Table) radius(i int) int8 {
	if t.radii == nil {
		return 1
	}
	if r := t.radii[i]; r > 0 {
		return r
	}
	return 1
}

func (t *Table) setRadius(i, r int) {
	if t.radii == nil {
		t.radii = make([]int8, len(t.digests))
	}
	t.radii[i] = int8(r)
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
func (t *Table) lengthen(lines []Line, members []int) {
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
		} else if !sameWindow(lines, first[d], i, int(t.radius(i))) {
			t.markAmbiguous(first[d])
			t.markAmbiguous(i)
		}
		t.ordinals[i] = count[d]
		t.widths[i] = uint8(width)
	}
}

// sameWindow reports whether lines i and j have the same contents within
// r lines on each side (edges included), so equal digests are identical
// contexts, not a hash collision.
func sameWindow(lines []Line, i, j, r int) bool {
	for d := -r; d <= r; d++ {
		a, b := i+d, j+d
		ain, bin := a >= 0 && a < len(lines), b >= 0 && b < len(lines)
		if ain != bin || ain && lines[a].Content != lines[b].Content {
			return false
		}
	}
	return true
}
