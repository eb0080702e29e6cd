package anchored

import (
	"math/bits"
	"runtime"
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
	noCR  bool  // text has no "\r": every line but the last ends in "\n"
}

// split cuts text into lines, reusing the offsets' array.
func (ls *lineSet) split(text string) { ls.splitHashing(text, nil) }

// splitHashing is split that also hashes each line's content with xxh3 into
// *hashes as the line is found, while it is in the cache: one pass over a
// text too big for the cache, not two. A large text is cut in two halves
// at a line end, found and hashed at once on two cores: hashing is most of
// the time of anchoring a text.
func (ls *lineSet) splitHashing(text string, hashes *[]uint64) {
	ls.bom = ""
	if strings.HasPrefix(text, "\ufeff") {
		ls.bom, text = "\ufeff", text[3:]
	}
	ls.text = text
	cut := len(text)
	if len(text) >= parallelBytes && runtime.GOMAXPROCS(0) > 1 {
		if i := strings.IndexByte(text[len(text)/2:], '\n'); i >= 0 {
			cut = len(text)/2 + i + 1
		}
	}
	// The lines are counted first (a vectorised count, 20 GB/s), so each
	// half writes its own part of the arrays, and nothing grows.
	first := strings.Count(text[:cut], "\n")
	n := first + strings.Count(text[cut:], "\n")
	if len(text) > 0 && text[len(text)-1] != '\n' {
		n++ // a last line without an ending
	}
	ls.start = resize(ls.start, n+1)
	ls.start[0] = 0
	var hs []uint64
	if hashes != nil {
		hs = resize(*hashes, n)
		*hashes = hs
	}
	if cut == len(text) {
		ls.noCR = cutLines(text, 0, len(text), ls.start[1:], hs)
		return
	}
	var noCR [2]bool
	onWorkers(2, func(w int) {
		if w == 0 {
			noCR[0] = cutLines(text, 0, cut, ls.start[1:1+first], head(hs, first))
		} else {
			noCR[1] = cutLines(text, cut, len(text), ls.start[1+first:], tail(hs, first))
		}
	})
	ls.noCR = noCR[0] && noCR[1]
}

// parallelBytes is the size from which a text's lines are found and hashed
// on two cores: below it, waking the other core costs more than it saves
// (see parallelLines).
const parallelBytes = 256 << 10

func head(s []uint64, n int) []uint64 {
	if s == nil {
		return nil
	}
	return s[:n]
}

func tail(s []uint64, n int) []uint64 {
	if s == nil {
		return nil
	}
	return s[n:]
}

// cutLines finds the lines of text[from:to], which starts a line and ends
// one (or the text): end[j] is where its line j ends (its line ending
// included), and hs[j], if hs is not nil, the hash of its content. Line
// ends are found eight bytes at a time (newlineMask), not by a call of
// strings.IndexByte per line: lines of code are short (20 bytes on
// average), and the call's setup cost more than the search, 16 ns a line.
// It reports whether text[from:to] holds no "\r".
func cutLines(text string, from, to int, end []int, hs []uint64) (noCR bool) {
	noCR = strings.IndexByte(text[from:to], '\r') < 0
	at, j := from, 0
	i := from
	for ; i+8 <= to; i += 8 {
		for m := newlineMask(loadWord(text, i)); m != 0; m &= m - 1 {
			e := i + bits.TrailingZeros64(m)>>3 + 1
			if hs != nil {
				hs[j] = hashContent(text[at:e])
			}
			end[j] = e
			at, j = e, j+1
		}
	}
	for ; i < to; i++ {
		if text[i] == '\n' {
			if hs != nil {
				hs[j] = hashContent(text[at : i+1])
			}
			end[j] = i + 1
			at, j = i+1, j+1
		}
	}
	if at < to {
		if hs != nil {
			hs[j] = hashContent(text[at:to])
		}
		end[j] = to
	}
	return noCR
}

// hashContent is the hash of a line's content: the line without its
// ending.
func hashContent(line string) uint64 {
	return xxh3.HashString(line[:len(line)-eolLen(line)])
}

// loadWord returns the eight bytes of s at i, little-endian.
func loadWord(s string, i int) uint64 {
	s = s[i : i+8]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// newlineMask has the top bit of each byte of w that is '\n' set, and no
// other bit: exact, as no carry crosses from one byte into the next.
func newlineMask(w uint64) uint64 {
	const low7, ones = 0x7f7f7f7f7f7f7f7f, 0x0101010101010101
	x := w ^ '\n'*ones // the newlines are now zero bytes
	return ^((x&low7 + low7) | x | low7)
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

// digestR is line i's digest at radius r: its radius-1 digest, then each
// wider radius mixed in, one pair of neighbours at a time (edge values past
// the ends). Radius 1 is every line's anchor; repeated lines use a wider
// one (see Table.widen, which takes the same steps).
func (ix *Index) digestR(i, r int) digest {
	d := mixDigest(ix.hashAt(i-1), ix.hashAt(i), ix.hashAt(i+1))
	for k := 2; k <= r; k++ {
		d = widenDigest(d[0], k, ix.hashAt(i-k), ix.hashAt(i+k))
	}
	return d
}

// hashAt is line j's hash, or the edge value past either end.
func (ix *Index) hashAt(j int) uint64 {
	if j < 0 || j >= len(ix.hashes) {
		return edgeHash
	}
	return ix.hashes[j]
}

// Constants of the mix: odd, with bits spread (splitmix64's, murmur's and
// xxh3's), none of them the edge value: a factor left^k is zero only for
// a hash equal to k.
const (
	mixK0 = 0xbf58476d1ce4e5b9
	mixK1 = 0x94d049bb133111eb
	mixK2 = 0xc2b2ae3d27d4eb4f
	mixK3 = 0xd6e8feb86659fd93
	mixK4 = 0x27d4eb2f165667c5
)

// mixDigest is the radius-1 digest of a line whose hash is mid, between
// lines whose hashes are left and right: 128 bits from two 64×64→128-bit
// multiplications of the hashes with constants, folded, then avalanched,
// as xxh3 mixes its input. Left and right take different constants, so a
// context and its mirror image differ. (xxh3-128 of the 24 bytes took
// 11 ns a line; this takes 2.)
func mixDigest(left, mid, right uint64) digest {
	a := fold(left^mixK0, mid^mixK1)
	b := fold(right^mixK2, mid^mixK3)
	return digest{avalanche(a + b), avalanche(a ^ bits.RotateLeft64(b, 29) ^ mixK4)}
}

// mixTop is mixDigest's top half alone: all a table keeps of most lines.
func mixTop(left, mid, right uint64) uint64 {
	return avalanche(fold(left^mixK0, mid^mixK1) + fold(right^mixK2, mid^mixK3))
}

// widenDigest is the digest at radius r of a line whose digest at radius
// r-1 has the top top, and whose neighbours r lines away have the hashes
// left and right. The radius is mixed in, so a wide digest is never a
// narrow one of the same hashes.
func widenDigest(top uint64, r int, left, right uint64) digest {
	return mixDigest(left, top^uint64(r)*mixK4, right)
}

// widenTop is widenDigest's top half alone.
func widenTop(top uint64, r int, left, right uint64) uint64 {
	return mixTop(left, top^uint64(r)*mixK4, right)
}

// fold multiplies a and b to 128 bits and folds the halves together.
func fold(a, b uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	return hi ^ lo
}

// avalanche spreads every bit of h over the whole word (xxh3's final mix).
func avalanche(h uint64) uint64 {
	h ^= h >> 37
	h *= 0x165667919e3779f9
	return h ^ h>>32
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
