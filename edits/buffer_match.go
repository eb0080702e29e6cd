package edits

import (
	"bytes"
	"hash/maphash"
	"strings"
)

// ResolveHunks is ResolveHunks on the buffer's text without joining it
// when it can: each hunk's exact, whole-line, unique place is found chunk
// by chunk (a hunk across chunks included), searching only the chunks
// whose line filter may hold one of the hunk's lines, and its edit is
// made from the few lines around it. The server's open buffers are
// Buffers: the first
// patch after a keystroke would otherwise copy the whole document into a
// new string (5–7 ms for 10 MB, most of it page faults on the new memory)
// before searching it. Anything the exact fast path does not settle (a
// hunk not found exactly once, a looser match, an error to explain, a
// byte-order mark) goes to ResolveHunks on the joined text, so the
// result is always ResolveHunks's.
func (b *Buffer) ResolveHunks(hunks []Hunk) ([]TextEdit, error) {
	if es, ok := b.resolveExact(hunks); ok {
		return es, nil
	}
	return ResolveHunks(b.Text(), hunks)
}

// resolveExact is ResolveHunks's exact fast path over the chunks: ok is
// false when any hunk is not settled by it.
func (b *Buffer) resolveExact(hunks []Hunk) ([]TextEdit, bool) {
	if len(hunks) == 0 || b.size == 0 || strings.HasPrefix(b.chunks[0].text, bom) {
		return nil, false
	}
	budget := exactBudget("", hunks) + 4*b.size
	var reps []replacement
	for i, h := range hunks {
		if len(h.Original) == 0 || h.AtEOF || len(h.Scope) > 0 || allBlank(h.Original) || hasPlaceholder(h.Original) || hasPlaceholder(h.Updated) {
			return nil, false
		}
		needle := joinLines(h.Original)
		start, ok := b.uniqueLines(needle, &budget)
		if !ok {
			return nil, false
		}
		// The lines around the match, as a small doc: the line before it
		// (deleting the last lines needs it) to the end of its last line.
		ci, cbase := b.chunkAt(start, 0, 0)
		lo := b.lineStartBefore(start, ci, cbase)
		hi := start + len(needle)
		if hi < b.size {
			hi++ // its line break
		}
		local, err := b.Slice(lo, hi)
		if err != nil {
			return nil, false
		}
		if hi == b.size && pastFinalNewline(local, start-lo, h.Original) {
			return nil, false
		}
		w, m := newDoc(local).window(start-lo, len(h.Original))
		r, err := w.replace(m, h, i+1, len(hunks))
		if err != nil {
			return nil, false // explained by the general path
		}
		for k := range r {
			if r[k].start < 0 || r[k].end > len(local) {
				return nil, false
			}
			r[k].start += lo
			r[k].end += lo
			r[k].lineEnd += lo
		}
		reps = append(reps, r...)
	}
	if checkOverlaps(reps, len(hunks)) != nil {
		return nil, false
	}
	es := make([]TextEdit, 0, len(reps))
	changed := false
	for _, r := range reps {
		es = append(es, TextEdit{Start: r.start, End: r.end, New: r.repl})
		if !changed {
			old, err := b.Slice(r.start, r.end)
			changed = err != nil || old != r.repl
		}
	}
	if !changed {
		return nil, false // ErrNoChange, from the general path
	}
	return es, true
}

// uniqueLines returns the start of needle's only place in the text as
// whole lines (at a line start, followed by a line break or the end), or
// false when it has none, several, or checking them cost more than the
// budget. It looks for one of needle's lines only in the chunks whose
// line filter may have it (linesByFilter), and when no line of needle is
// that rare, for a key from needle's rarest byte in the whole text
// (linesByKey).
func (b *Buffer) uniqueLines(needle string, budget *int) (int, bool) {
	if start, ok, decided := b.linesByFilter(needle, budget); decided {
		return start, ok
	}
	return b.linesByKey(needle, budget)
}

// filterProbes is how many of a needle's lines, the longest,
// linesByFilter tries the chunks' filters with, to pick the rarest.
const filterProbes = 4

// linesByFilter is uniqueLines by the chunks' line filters: every place
// of needle as whole lines holds each line of needle as a whole line of
// the text, and a line never spans two chunks (each but the last ends
// with "\n"), so the places of needle are found from those of one of its
// lines, in the chunks whose filter may have that line. Of the longest
// few lines it takes the one the fewest chunks may have; decided is
// false when even that one is in too many chunks to be worth it.
func (b *Buffer) linesByFilter(needle string, budget *int) (start int, ok, decided bool) {
	type probe struct {
		line string
		at   int // its offset in needle
	}
	var probes [filterProbes]probe
	n := 0
	for at := 0; at < len(needle); {
		end := strings.IndexByte(needle[at:], '\n')
		if end < 0 {
			end = len(needle) - at
		}
		line := needle[at : at+end]
		// Keep the longest lines, longest first; of equal ones the first.
		k := n
		for k > 0 && len(probes[k-1].line) < len(line) {
			k--
		}
		if line != "" && k < filterProbes {
			if n < filterProbes {
				n++
			}
			copy(probes[k+1:n], probes[k:n-1])
			probes[k] = probe{line, at}
		}
		at += end + 1
	}
	best, bestHash, bestCount := -1, uint64(0), len(b.chunks)/8+1 // more chunks than that: scan the text
	for k := range n {
		if k > 0 && probes[k].line == probes[k-1].line {
			continue
		}
		h := maphash.String(b.seed, probes[k].line)
		count := 0
		for _, c := range b.chunks {
			if c.lines.mayHave(h) {
				if count++; count >= bestCount {
					break
				}
			}
		}
		if count < bestCount {
			best, bestHash, bestCount = k, h, count
		}
	}
	if best < 0 {
		return 0, false, false
	}
	line, lineAt := probes[best].line, probes[best].at
	found := 0
	base := 0
	for i, c := range b.chunks {
		t := c.text
		if !c.lines.mayHave(bestHash) {
			base += len(t)
			continue
		}
		if *budget -= len(t); *budget < 0 {
			return 0, false, true
		}
		for from := 0; ; {
			k := strings.Index(t[from:], line)
			if k < 0 {
				break
			}
			p := from + k
			from = p + 1
			if p > 0 && t[p-1] != '\n' || p+len(line) < len(t) && t[p+len(line)] != '\n' {
				continue // not a whole line
			}
			if *budget -= len(needle); *budget < 0 {
				return 0, false, true
			}
			if b.linesAt(base+p-lineAt, needle, i, base) {
				if found++; found > 1 {
					return 0, false, true
				}
				start = base + p - lineAt
			}
		}
		base += len(t)
	}
	return start, found == 1, true
}

// linesByKey is uniqueLines by a search of the whole text: each chunk is
// searched for a key of up to 32 bytes of needle from its rarest byte,
// and the seams between chunks for a key that crosses one, and the whole
// needle is compared around each hit.
func (b *Buffer) linesByKey(needle string, budget *int) (int, bool) {
	rank := b.byteRank()
	at := 0
	for j := 1; j < len(needle); j++ {
		if needle[j] != '\n' && (needle[at] == '\n' || rank[needle[j]] < rank[needle[at]]) {
			at = j
		}
	}
	key := needle[at:min(len(needle), at+32)]
	found, start := 0, -1
	check := func(s, i, base int) bool { // false: stop, the answer is known
		if *budget -= len(needle); *budget < 0 {
			found = 2
			return false
		}
		if b.linesAt(s, needle, i, base) {
			found++
			start = s
		}
		return found < 2
	}
	var seam [62]byte
	keyBytes := []byte(key)
	base := 0
	for i, c := range b.chunks {
		t := c.text
		for from := 0; ; {
			k := strings.Index(t[from:], key)
			if k < 0 {
				break
			}
			p := from + k
			from = p + 1
			if !check(base+p-at, i, base) {
				return 0, false
			}
		}
		// A key across the seam after this chunk: it starts in the last
		// len(key)-1 bytes of this one.
		if i+1 < len(b.chunks) && len(key) > 1 {
			tail := t[max(0, len(t)-(len(key)-1)):]
			n := copy(seam[:], tail)
			for _, next := range b.chunks[i+1:] {
				if n >= len(tail)+len(key)-1 {
					break
				}
				n += copy(seam[n:len(tail)+len(key)-1], next.text)
			}
			for from := 0; from < len(tail); {
				k := bytes.Index(seam[from:n], keyBytes)
				if k < 0 || from+k >= len(tail) {
					break
				}
				p := from + k
				from = p + 1
				if !check(base+len(t)-len(tail)+p-at, i, base) {
					return 0, false
				}
			}
		}
		base += len(t)
	}
	return start, found == 1
}

// linesAt reports whether needle stands at s as whole lines, comparing
// across chunks without joining them. Chunk i, starting at base, is near
// s: the search's hit.
func (b *Buffer) linesAt(s int, needle string, i, base int) bool {
	e := s + len(needle)
	if s < 0 || e > b.size {
		return false
	}
	if s > 0 && b.byteAt(s-1, i, base) != '\n' || e < b.size && b.byteAt(e, i, base) != '\n' {
		return false
	}
	i, base = b.chunkAt(s, i, base)
	rest := needle
	off := s - base
	for len(rest) > 0 {
		t := b.chunks[i].text[off:]
		n := min(len(t), len(rest))
		if t[:n] != rest[:n] {
			return false
		}
		rest = rest[n:]
		i, off = i+1, 0
	}
	return true
}

// chunkAt returns the chunk holding byte off (0 <= off < b.size) and the
// offset the chunk starts at, walking from chunk i (starting at base).
func (b *Buffer) chunkAt(off, i, base int) (int, int) {
	for off < base && i > 0 {
		i--
		base -= len(b.chunks[i].text)
	}
	for off >= base+len(b.chunks[i].text) && i+1 < len(b.chunks) {
		base += len(b.chunks[i].text)
		i++
	}
	return i, base
}

// byteAt returns the text's byte at off (0 <= off < b.size), walking from
// chunk i (starting at base).
func (b *Buffer) byteAt(off, i, base int) byte {
	i, base = b.chunkAt(off, i, base)
	return b.chunks[i].text[off-base]
}

// lineStartBefore returns where the line before the one starting at off
// starts (0 for the first line).
func (b *Buffer) lineStartBefore(off, i, base int) int {
	if off <= 1 {
		return 0
	}
	// The line before ends at off-1 ('\n'); look back from off-2.
	i, base = b.chunkAt(off-2, i, base)
	end := off - 2 - base + 1
	for {
		if k := strings.LastIndexByte(b.chunks[i].text[:end], '\n'); k >= 0 {
			return base + k + 1
		}
		if i == 0 {
			return 0
		}
		i--
		base -= len(b.chunks[i].text)
		end = len(b.chunks[i].text)
	}
}

// byteRank ranks how frequent each byte is in the text, lower is rarer,
// as doc.byteRank does: counts in four chunks spread over the text
// (weighted by commonness in source code, to break ties), or commonness
// alone for a small text. The search scans for a needle's rarest byte.
func (b *Buffer) byteRank() *[256]int {
	var rank [256]int
	if b.size >= sampleText {
		n := len(b.chunks)
		for k := range 4 {
			for _, c := range []byte(b.chunks[k*(n-1)/3].text) {
				rank[c] += 16
			}
		}
	}
	for c := range rank {
		rank[c] += commonness(byte(c))
	}
	return &rank
}
