package edits

import (
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"
)

// Positions in LSP are (line, character) pairs; agentls works in byte
// offsets. A Mapper converts between them for one text.
//
// Lines end at "\n", "\r\n" or a lone "\r", as LSP §3.17 "Text Documents"
// says; a position inside a "\r\n" or past a line's end means the line's end.
// The character counts depend on the position encoding the client and
// server agreed on: UTF-8 counts bytes, UTF-16 counts code units (a
// character outside the Basic Multilingual Plane, such as an emoji, counts
// 2), UTF-32 counts code points. A byte that is not valid UTF-8 counts as
// one character in every encoding.
//
// NewMapper indexes the line starts once, in linear time; each conversion
// then costs a binary search over the lines plus a walk along one line.

// Encoding is a position encoding.
type Encoding int

const (
	UTF16 Encoding = iota // the LSP default
	UTF8
	UTF32
)

func (e Encoding) String() string { return [...]string{"utf-16", "utf-8", "utf-32"}[e] }

// A Mapper converts byte offsets in a text to LSP positions and back.
type Mapper struct {
	text       string
	lineStarts []int // byte offset of each line's start
}

// NewMapper returns a Mapper for text.
func NewMapper(text string) *Mapper {
	starts := make([]int, 1, strings.Count(text, "\n")+2)
	return &Mapper{text: text, lineStarts: appendLineStarts(starts, text, 0, len(text))}
}

// appendLineStarts appends the starts of the lines that begin after a
// line break in text[from:to] ("\n", "\r\n" or a lone "\r").
func appendLineStarts(starts []int, text string, from, to int) []int {
	if strings.IndexByte(text[from:to], '\r') < 0 {
		// No "\r" (most text): the breaks are the "\n"s, found a block
		// of bytes at a time rather than one by one.
		for i := from; i < to; {
			k := strings.IndexByte(text[i:to], '\n')
			if k < 0 {
				break
			}
			i += k + 1
			starts = append(starts, i)
		}
		return starts
	}
	for i := from; i < to; i++ {
		switch text[i] {
		case '\n':
			starts = append(starts, i+1)
		case '\r':
			if i+1 < len(text) && text[i+1] == '\n' {
				i++
			}
			starts = append(starts, i+1)
		}
	}
	return starts
}

// Lines returns the number of lines (a text ending with a line break has
// an empty last line).
func (m *Mapper) Lines() int { return len(m.lineStarts) }

// lineEnd returns the offset where line's content ends (before its break).
func (m *Mapper) lineEnd(line int) int {
	if line+1 >= len(m.lineStarts) {
		return len(m.text)
	}
	end := m.lineStarts[line+1] - 1
	if end > m.lineStarts[line] && m.text[end] == '\n' && m.text[end-1] == '\r' {
		end--
	}
	return end
}

// Position returns the position of a byte offset.
func (m *Mapper) Position(offset int, enc Encoding) (line, char int, err error) {
	if offset < 0 || offset > len(m.text) {
		return 0, 0, fmt.Errorf("offset %d is outside the text (0-%d)", offset, len(m.text))
	}
	line = sort.Search(len(m.lineStarts), func(i int) bool { return m.lineStarts[i] > offset }) - 1
	start, lineEnd := m.lineStarts[line], m.lineEnd(line)
	end := min(offset, lineEnd)
	// Count the characters that end at or before the offset: an offset
	// inside a multi-byte character means that character's start.
	n := 0
	for i := start; i < end; {
		r, size := utf8.DecodeRuneInString(m.text[i:lineEnd])
		if i+size > end {
			break
		}
		n += width(r, size, enc)
		i += size
	}
	return line, n, nil
}

// width is the number of units a character (of size bytes) counts.
func width(r rune, size int, enc Encoding) int {
	switch {
	case enc == UTF8:
		return size
	case enc == UTF16 && r >= 0x10000:
		return 2
	}
	return 1
}

// Offset returns the byte offset of a position. A character past the end
// of its line means the line's end; one inside a multi-unit character
// means that character's start.
func (m *Mapper) Offset(line, char int, enc Encoding) (int, error) {
	if line < 0 || char < 0 {
		return 0, fmt.Errorf("position %d:%d is negative", line, char)
	}
	if line >= len(m.lineStarts) {
		return 0, fmt.Errorf("line %d is past the last line (%d)", line, len(m.lineStarts)-1)
	}
	start, end := m.lineStarts[line], m.lineEnd(line)
	n := 0
	for i := start; i < end; {
		r, size := utf8.DecodeRuneInString(m.text[i:end])
		w := width(r, size, enc)
		if n+w > char {
			return i, nil
		}
		n += w
		i += size
	}
	return end, nil
}

// Text returns the text the Mapper maps.
func (m *Mapper) Text() string { return m.text }

// Replace returns the Mapper of the text with the bytes [start, end)
// replaced by s, built from m's index rather than by rescanning: the lines
// before the change keep their starts, the changed ones are re-indexed, the
// later ones are shifted. It costs the size of the change plus a copy of
// the index (and of the string), not a scan of the text. m is unchanged, so
// Mappers can be shared between goroutines.
func (m *Mapper) Replace(start, end int, s string) (*Mapper, error) {
	if start < 0 || end < start || end > len(m.text) {
		return nil, fmt.Errorf("replace [%d, %d) outside the text (0-%d)", start, end, len(m.text))
	}
	// A "\r\n" split or joined by the change makes line breaks around it
	// ambiguous: re-index from the line before the change to the line after.
	from := sort.Search(len(m.lineStarts), func(i int) bool { return m.lineStarts[i] > start }) - 1
	if from > 0 {
		from-- // the previous line may end in a "\r" that now meets a "\n"
	}
	to := sort.Search(len(m.lineStarts), func(i int) bool { return m.lineStarts[i] > end })
	if to < len(m.lineStarts) {
		to++ // the line after, likewise
	}
	delta := len(s) - (end - start)
	text := m.text[:start] + s + m.text[end:]
	scanFrom := m.lineStarts[from]
	scanTo := len(text)
	if to < len(m.lineStarts) {
		scanTo = m.lineStarts[to] + delta
	}
	mid := appendLineStarts(nil, text, scanFrom, scanTo)
	tail := m.lineStarts[to:]
	starts := make([]int, 0, from+1+len(mid)+len(tail))
	starts = append(starts, m.lineStarts[:from+1]...)
	for _, st := range mid {
		if st < scanTo || to == len(m.lineStarts) {
			starts = append(starts, st)
		}
	}
	for _, st := range tail {
		starts = append(starts, st+delta)
	}
	return &Mapper{text: text, lineStarts: dedupe(starts)}, nil
}

// dedupe drops repeated starts (a scan that ends on a line start adds it
// once more).
func dedupe(s []int) []int {
	out := s[:1]
	for _, v := range s[1:] {
		if v != out[len(out)-1] {
			out = append(out, v)
		}
	}
	return out
}
