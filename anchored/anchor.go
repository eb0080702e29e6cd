// Package anchored addresses lines by content rather than by number, so a
// model's edits still land after the file moved under it (gptme's
// view_anchored / patch_anchored, research/gptme.md §6, rebuilt on xxh3).
//
// What is hashed, exactly:
//
//   - The text is split into lines at "\n"; a line's content excludes its
//     "\n" and a "\r" before it, and keeps everything else, trailing
//     whitespace included (a change of trailing whitespace is a change). A
//     text ending in "\n" has no empty last line; a byte-order mark is not
//     part of the first line.
//   - Each line's content is hashed once: h = xxh3-64(content).
//   - A line's anchor digest is xxh3-128 of its own hash and its
//     neighbours', the 24 bytes h(prev) h(line) h(next) little-endian, with
//     a fixed edge value for the missing neighbour of the first and last
//     lines. An anchor so stays valid when lines are inserted or deleted
//     elsewhere, and goes stale when its line or a neighbour changes.
//   - A line whose triple repeats elsewhere (a "}" between the same lines,
//     a run of blank lines) takes a wider context instead: 2, 3, … up to 8
//     neighbours on each side, the first radius that tells it apart, so
//     its anchor still names it alone. Only lines alike across 17 lines
//     are told apart by an ordinal in file order (".2", ".3", …), which an
//     edit above them can shift: editbench found radius-1 ordinals shifting
//     onto another line that passed the op's guard.
//
// Anchors are shown as 6 Crockford base-32 characters (30 bits) of the
// digest: about 3 tokens, against 8–10 for gptme's 16 hex digits and
// ordinal. Two different digests whose 6 characters agree are detected when
// a view is rendered, and those anchors are lengthened until they differ.
// Lines whose whole digests agree are compared by content: different
// contexts with one digest (a hash collision) are marked ambiguous ("?")
// and refused, never guessed between. A stale anchor matches another line
// only by chance, about n/2³⁰ for a file of n lines (1 in 100,000 for
// 10,000 lines), and an op's "expected" guard closes even that.
//
// How it is fast (render and resolve run at about 1 GB/s): lines are kept
// as offsets into the text, found and hashed in one pass; a table keeps
// only the top 64 bits of each digest, with the rare lengthened, ordinal
// and ambiguous anchors apart; and an open-addressed index of the keys
// (the digest bits an anchor shows) finds shared keys with one probe a
// line, and the line a token names with one probe. The scratch is reused
// from one text to the next.
package anchored

import (
	"encoding/binary"
	"slices"
	"strings"

	"github.com/zeebo/xxh3"
)

// DefaultWidth is the number of base-32 characters an anchor shows.
const DefaultWidth = 6

// maxWidth is the most characters a digest gives (125 of its 128 bits).
const maxWidth = 25

// edgeHash stands for the missing neighbour of the first and last lines.
const edgeHash = 0x9e3779b97f4a7c15

// Options tune anchors; the zero value is the default.
type Options struct {
	// Width is the number of characters an anchor shows (default 6).
	Width int
	// Hashes, if set, holds the line hashes of the very text being
	// anchored, kept by the caller from one version of a document to the
	// next (NewTextIndex, then Index.Update on each change), so that
	// anchoring the text does not hash every line again. An index that
	// does not fit the text (its number of lines, or the hashes of a
	// sample of them) is not used.
	Hashes *Index
	// hashLine replaces xxh3 in tests, to force collisions.
	hashLine func(string) uint64
}

func (o Options) width() int {
	if o.Width <= 0 {
		return DefaultWidth
	}
	return min(o.Width, maxWidth)
}

func (o Options) hash(s string) uint64 {
	if o.hashLine != nil {
		return o.hashLine(s)
	}
	return xxh3.HashString(s)
}

// A Line is one line of a text.
type Line struct {
	Content string // without its line ending
	EOL     string // "\n", "\r\n", or "" for a last line without one
}

// SplitLines splits text into lines. A leading byte-order mark is returned
// apart.
func SplitLines(text string) (lines []Line, bom string) {
	var ls lineSet
	ls.split(text)
	lines = make([]Line, ls.Len())
	for i := range lines {
		lines[i] = Line{Content: ls.content(i), EOL: ls.eol(i)}
	}
	return lines, ls.bom
}

// LineContents returns the contents of text's lines as an Index hashes
// them: without their line endings. With atStart, text begins a document
// and a byte-order mark before its first line is not part of it; else
// text is lines from further on, and the mark is content.
func LineContents(text string, atStart bool) []string {
	var ls lineSet
	ls.split(text)
	contents := make([]string, ls.Len())
	for i := range contents {
		contents[i] = ls.content(i)
	}
	if ls.bom != "" && !atStart {
		if len(contents) == 0 {
			return []string{ls.bom}
		}
		contents[0] = ls.bom + contents[0]
	}
	return contents
}

// JoinLines is the inverse of SplitLines.
func JoinLines(lines []Line, bom string) string {
	n := len(bom)
	for _, l := range lines {
		n += len(l.Content) + len(l.EOL)
	}
	var b strings.Builder
	b.Grow(n)
	b.WriteString(bom)
	for _, l := range lines {
		b.WriteString(l.Content)
		b.WriteString(l.EOL)
	}
	return b.String()
}

// A lineSet is a text cut into lines without copying it: offsets only, so
// a 10 MB file costs the garbage collector nothing to scan and a reused
// lineSet costs no allocation.
type lineSet struct {
	text  string // without the byte-order mark
	bom   string
	start []int // line i is text[start[i]:start[i+1]], its ending included
}

// split cuts text into lines, reusing the offsets' array.
func (ls *lineSet) split(text string) { ls.splitHashing(text, nil) }

// splitHashing is split that also hashes each line's content with xxh3 into
// *hashes as the line is found, while it is in the cache: one pass over a
// text too big for the cache, not two.
func (ls *lineSet) splitHashing(text string, hashes *[]uint64) {
	ls.bom = ""
	if strings.HasPrefix(text, "\ufeff") {
		ls.bom, text = "\ufeff", text[3:]
	}
	ls.text = text
	if cap(ls.start) == 0 {
		// The first text: sized once, not grown by doubling.
		ls.start = make([]int, 0, strings.Count(text, "\n")+2)
	}
	start := append(ls.start[:0], 0)
	var hs []uint64
	if hashes != nil {
		hs = (*hashes)[:0]
	}
	for at := 0; at < len(text); {
		end := len(text)
		if i := strings.IndexByte(text[at:], '\n'); i >= 0 {
			end = at + i + 1
		}
		if hashes != nil {
			hs = append(hs, xxh3.HashString(text[at:end-eolLen(text[at:end])]))
		}
		start = append(start, end)
		at = end
	}
	ls.start = start
	if hashes != nil {
		*hashes = hs
	}
}

// Len returns the number of lines.
func (ls *lineSet) Len() int { return len(ls.start) - 1 }

// content returns line i without its line ending.
func (ls *lineSet) content(i int) string {
	a, b := ls.start[i], ls.start[i+1]
	return ls.text[a : b-eolLen(ls.text[a:b])]
}

// eol returns line i's line ending: "\n", "\r\n" or "".
func (ls *lineSet) eol(i int) string {
	a, b := ls.start[i], ls.start[i+1]
	return ls.text[b-eolLen(ls.text[a:b]) : b]
}

// eolLen is the length of the line ending that ends line (with it).
func eolLen(line string) int {
	n := len(line)
	switch {
	case n == 0 || line[n-1] != '\n':
		return 0
	case n >= 2 && line[n-2] == '\r':
		return 2
	}
	return 1
}

// An Index holds the content hash of every line of a text, so anchors can
// be computed, and kept up to date after an edit by rehashing only the
// lines that changed.
type Index struct {
	opts   Options
	hashes []uint64
}

// NewTextIndex hashes the lines of text (a byte-order mark is not part of
// the first line).
func NewTextIndex(text string, opts Options) *Index {
	ix := &Index{}
	ix.load(&lineSet{}, text, opts)
	return ix
}

// Clone returns a copy of the index that later Updates of either leave
// the other alone: a snapshot for one version of a document.
func (ix *Index) Clone() *Index {
	return &Index{opts: ix.opts, hashes: slices.Clone(ix.hashes)}
}

// Equal reports whether two indexes hold the same line hashes: a caller
// keeping one up to date can check it against a fresh one.
func (ix *Index) Equal(o *Index) bool { return slices.Equal(ix.hashes, o.hashes) }

// load splits text into ls and hashes its lines, reusing both's memory.
func (ix *Index) load(ls *lineSet, text string, opts Options) {
	ix.opts = opts
	ix.opts.Hashes = nil
	if ix.opts.hashLine == nil {
		ls.splitHashing(text, &ix.hashes)
		return
	}
	ls.split(text)
	ix.hashes = resize(ix.hashes, ls.Len())
	for i := range ix.hashes {
		ix.hashes[i] = ix.opts.hashLine(ls.content(i))
	}
}

// Len returns the number of lines.
func (ix *Index) Len() int { return len(ix.hashes) }

// Update records that the lines [first, first+removed) were replaced by
// added: only the added lines are hashed (their neighbours' digests follow,
// as digests are computed from the hashes when needed).
func (ix *Index) Update(first, removed int, added []string) {
	tail := ix.hashes[first+removed:]
	if len(added) != removed {
		n := len(ix.hashes) - removed + len(added)
		if cap(ix.hashes) >= n {
			grown := ix.hashes[:n]
			copy(grown[first+len(added):], tail)
			ix.hashes = grown
		} else {
			h := make([]uint64, n, n+n/8)
			copy(h, ix.hashes[:first])
			copy(h[first+len(added):], tail)
			ix.hashes = h
		}
	}
	for i, s := range added {
		ix.hashes[first+i] = ix.opts.hash(s)
	}
}

// digest is a line's anchor digest.
type digest [2]uint64

// maxRadius is how far a repeated line's context is widened before lines
// that are still alike are told apart by an ordinal.
const maxRadius = 8

// digestR hashes the line's hash with r neighbours on each side (edge
// values past the ends). Radius 1 is every line's anchor; repeated lines
// use a wider one (see Anchors).
func (ix *Index) digestR(i, r int) digest {
	var buf [(2*maxRadius+1)*8 + 1]byte
	b := buf[:(2*r+1)*8]
	for k := -r; k <= r; k++ {
		h := uint64(edgeHash)
		if j := i + k; j >= 0 && j < len(ix.hashes) {
			h = ix.hashes[j]
		}
		binary.LittleEndian.PutUint64(b[(k+r)*8:], h)
	}
	if r > 1 {
		// Tell a wide digest from a narrow one of the same bytes.
		b = append(b, byte(r))
	}
	h := xxh3.Hash128(b)
	return digest{h.Hi, h.Lo}
}

// crockford is Crockford's base-32 alphabet, lower case: no i, l, o, u.
const crockford = "0123456789abcdefghjkmnpqrstvwxyz"

// appendChars appends the first n base-32 characters of a digest to b.
func (d digest) appendChars(b []byte, n int) []byte {
	for k := range n {
		bit := k * 5 // take bits [bit, bit+5) from the top
		var v uint64
		switch {
		case bit+5 <= 64:
			v = d[0] >> (64 - bit - 5)
		case bit >= 64:
			v = d[1] >> (128 - bit - 5)
		default: // straddles the two words
			v = d[0]<<(bit+5-64) | d[1]>>(128-bit-5)
		}
		b = append(b, crockford[v&31])
	}
	return b
}
