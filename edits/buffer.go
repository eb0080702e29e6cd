package edits

import (
	"fmt"
	"hash/maphash"
	"strings"
	"sync"
)

// A Buffer is an editor buffer's text kept for cheap small changes: a run
// of chunks of whole lines (every chunk but the last ends with "\n"), each
// with its own Mapper. A change re-indexes only the chunks it touches, so
// a keystroke costs the size of a chunk plus one step per chunk rather
// than a copy of the whole text. Buffers are immutable: Replace returns a
// new one sharing the untouched chunks, so copies of a document may be
// read while it changes. The whole text is joined only when asked for,
// once per Buffer. Each chunk also keeps a filter of its lines, made with
// it, so that an exact hunk is searched for only in the chunks that may
// hold it (ResolveHunks).
type Buffer struct {
	chunks []*chunk // never empty; chunk i's text ends with '\n' unless it is the last
	size   int
	joined *joinedText // shared by copies of this Buffer value
	// seed hashes the chunks' lines (lineFilter): made by NewBuffer and
	// kept by Replace, so the Buffers that share chunks hash alike.
	seed maphash.Seed
}

// A chunk is a run of whole lines of a Buffer: its Mapper, and a filter
// of its lines that lets the exact matcher skip the chunks a hunk's line
// is not in (Buffer.uniqueLines) instead of searching the whole text.
type chunk struct {
	*Mapper
	lines lineFilter
}

func newChunk(text string, seed maphash.Seed) *chunk {
	return &chunk{Mapper: NewMapper(text), lines: newLineFilter(text, seed)}
}

// A lineFilter is a Bloom filter of the lines of a chunk (split at "\n",
// without it): a line it does not have is not in the chunk. 1024 bits,
// two per line: a 4 KB chunk of 40-byte lines passes a line it lacks
// about 3% of the time.
type lineFilter [16]uint64

func newLineFilter(text string, seed maphash.Seed) lineFilter {
	var f lineFilter
	for text != "" {
		line := text
		if i := strings.IndexByte(text, '\n'); i >= 0 {
			line, text = text[:i], text[i+1:]
		} else {
			text = ""
		}
		h := maphash.String(seed, line)
		f[h>>6&15] |= 1 << (h & 63)
		f[h>>16&15] |= 1 << (h >> 10 & 63)
	}
	return f
}

// mayHave reports whether the chunk may have a line of hash h (from the
// Buffer's seed); false means it has none.
func (f *lineFilter) mayHave(h uint64) bool {
	return f[h>>6&15]&(1<<(h&63)) != 0 && f[h>>16&15]&(1<<(h>>10&63)) != 0
}

type joinedText struct {
	once sync.Once
	text string
}

// chunkTarget is the size chunks are cut at (at the next line break).
// Small enough that re-indexing one is cheap, big enough that a large
// document has few.
const chunkTarget = 4 << 10

// NewBuffer returns a Buffer holding text.
func NewBuffer(text string) *Buffer {
	seed := maphash.MakeSeed()
	b := &Buffer{chunks: appendChunks(nil, text, seed), size: len(text), joined: &joinedText{}, seed: seed}
	if len(b.chunks) == 1 {
		b.joined.once.Do(func() { b.joined.text = text })
	}
	return b
}

// appendChunks cuts text after the first "\n" at or past chunkTarget
// bytes into each chunk, and appends them, their lines hashed with seed.
func appendChunks(chunks []*chunk, text string, seed maphash.Seed) []*chunk {
	for {
		cut := len(text)
		if len(text) > chunkTarget {
			if i := strings.IndexByte(text[chunkTarget-1:], '\n'); i >= 0 {
				cut = chunkTarget + i
			}
		}
		chunks = append(chunks, newChunk(text[:cut], seed))
		text = text[cut:]
		if text == "" {
			return chunks
		}
	}
}

// Len returns the length of the text in bytes.
func (b *Buffer) Len() int { return b.size }

// Text returns the whole text, joined on first use.
func (b *Buffer) Text() string {
	b.joined.once.Do(func() {
		var sb strings.Builder
		sb.Grow(b.size)
		for _, c := range b.chunks {
			sb.WriteString(c.text)
		}
		b.joined.text = sb.String()
	})
	return b.joined.text
}

// Slice returns text[start:end] without joining the whole text.
func (b *Buffer) Slice(start, end int) (string, error) {
	if start < 0 || end < start || end > b.size {
		return "", fmt.Errorf("slice [%d, %d) outside the text (0-%d)", start, end, b.size)
	}
	var sb strings.Builder
	base := 0
	for _, c := range b.chunks {
		lo, hi := max(start, base), min(end, base+len(c.text))
		if lo < hi {
			if lo == start && hi == end {
				return c.text[lo-base : hi-base], nil // within one chunk: no copy
			}
			sb.WriteString(c.text[lo-base : hi-base])
		}
		base += len(c.text)
	}
	return sb.String(), nil
}

// Lines returns the number of lines (a text ending with a line break has
// an empty last line).
func (b *Buffer) Lines() int {
	n := 1
	for _, c := range b.chunks {
		n += c.Lines() - 1
	}
	return n
}

// Offset returns the byte offset of a position, as Mapper.Offset does.
func (b *Buffer) Offset(line, char int, enc Encoding) (int, error) {
	if line < 0 || char < 0 {
		return 0, fmt.Errorf("position %d:%d is negative", line, char)
	}
	first, base := 0, 0 // the first line and offset of chunk i
	for i, c := range b.chunks {
		breaks := c.Lines() - 1
		if line < first+breaks || i == len(b.chunks)-1 {
			off, err := c.Offset(line-first, char, enc)
			if err != nil {
				return 0, fmt.Errorf("line %d is past the last line (%d)", line, first+breaks)
			}
			return base + off, nil
		}
		first += breaks
		base += len(c.text)
	}
	panic("unreachable: a Buffer has a chunk")
}

// Replace returns a Buffer with text[start:end] replaced by s.
func (b *Buffer) Replace(start, end int, s string) (*Buffer, error) {
	if start < 0 || end < start || end > b.size {
		return nil, fmt.Errorf("replace [%d, %d) outside the text (0-%d)", start, end, b.size)
	}
	// Chunks i..j hold the change: i the one start falls in (the last for
	// the very end), j the one end falls in or ends at.
	i, iBase := 0, 0
	for i < len(b.chunks)-1 && iBase+len(b.chunks[i].text) <= start {
		iBase += len(b.chunks[i].text)
		i++
	}
	j, jEnd := i, iBase+len(b.chunks[i].text)
	for j < len(b.chunks)-1 && jEnd < end {
		j++
		jEnd += len(b.chunks[j].text)
	}
	var sb strings.Builder
	sb.Grow(jEnd - iBase + len(s) - (end - start))
	for _, c := range b.chunks[i : j+1] {
		sb.WriteString(c.text)
	}
	old := sb.String()
	text := old[:start-iBase] + s + old[end-iBase:]
	// Every chunk but the last must end with '\n' (so no "\r\n" spans two
	// chunks); take in the next chunks until the text does, and a small
	// next chunk too, so deletions do not leave ever more tiny chunks.
	for j+1 < len(b.chunks) && (!strings.HasSuffix(text, "\n") || len(text) < chunkTarget/4) {
		j++
		text += b.chunks[j].text
	}
	chunks := make([]*chunk, 0, len(b.chunks)+len(text)/chunkTarget+1)
	chunks = append(chunks, b.chunks[:i]...)
	if text != "" || len(chunks) == 0 && j+1 == len(b.chunks) {
		chunks = appendChunks(chunks, text, b.seed)
	}
	chunks = append(chunks, b.chunks[j+1:]...)
	return &Buffer{chunks: chunks, size: b.size + len(s) - (end - start), joined: &joinedText{}, seed: b.seed}, nil
}
