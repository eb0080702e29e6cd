package edits

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// The edits a tool knows (where its hunks matched) travel with a
// FileChange, so the server sends an editor those rather than diffing the
// whole file, and converts their offsets to positions without indexing
// the whole text. This file holds what that takes: checking, trimming and
// composing byte-range edits, and converting sorted offsets to positions
// in one pass.

// editsFit reports whether es can be the edits that turn base into
// result: sorted, not overlapping, within base, their lengths adding up,
// and each edit's new text in result where the edit puts it. It costs the
// size of the edits, not of the texts: the bytes between edits are not
// compared (that would cost a diff), which the tests of each producer
// check instead.
func editsFit(base, result string, es []TextEdit) bool {
	if len(es) == 0 {
		return base == result
	}
	at, shift := 0, 0 // the end of the edit before, and the growth so far
	for _, e := range es {
		if e.Start < at || e.End < e.Start || e.End > len(base) {
			return false
		}
		s := e.Start + shift
		if s+len(e.New) > len(result) || result[s:s+len(e.New)] != e.New {
			return false
		}
		shift += len(e.New) - (e.End - e.Start)
		at = e.End
	}
	return len(base)+shift == len(result)
}

// checkEdits says what is wrong with es as edits of text, if anything:
// they must be sorted, not overlap (they may touch) and lie within text
// (of size bytes).
func checkEdits(size int, es []TextEdit) error {
	at := 0 // the end of the edit before
	for i, e := range es {
		switch {
		case e.End < e.Start:
			return fmt.Errorf("edit %d of %d ends (%d) before it starts (%d)", i+1, len(es), e.End, e.Start)
		case e.Start < at:
			return fmt.Errorf("edit %d of %d starts at %d, inside or before the edit before it (which ends at %d): edits must be sorted and not overlap", i+1, len(es), e.Start, at)
		case e.End > size:
			return fmt.Errorf("edit %d of %d ends at %d, past the end of the text (%d bytes)", i+1, len(es), e.End, size)
		}
		at = e.End
	}
	return nil
}

// minimalWithin trims each of the sorted edits of text to the bytes that
// change, and splits it where lines inside it stay as they are
// (MinimalEdits of its old and new text): a hunk replaces whole lines,
// context included, and an editor must keep its cursors on the lines the
// hunk only repeats. It costs the size of the edits. The result is never
// nil: no edits means nothing changes.
func minimalWithin(text baseText, es []TextEdit) []TextEdit {
	out := make([]TextEdit, 0, len(es))
	for _, e := range es {
		for _, m := range MinimalEdits(text.slice(e.Start, e.End), e.New) {
			out = append(out, TextEdit{Start: e.Start + m.Start, End: e.Start + m.End, New: m.New})
		}
	}
	return out
}

// composeEdits returns the edits that turn base into the text that second
// makes of mid, where first turns base into mid (both sorted and not
// overlapping): the edits of a file changed twice in one changeset,
// relative to its first base. Edits of the two that overlap or touch (in
// mid) become one; the cost is the size of the edits.
func composeEdits(base, mid string, first, second []TextEdit) []TextEdit {
	// Where each edit of first put its new text in mid.
	firstAt := make([]int, len(first))
	shift := 0
	for k, e := range first {
		firstAt[k] = e.Start + shift
		shift += len(e.New) - (e.End - e.Start)
	}
	var out []TextEdit
	shift = 0 // the growth from the edits of first before i
	for i, j := 0, 0; i < len(first) || j < len(second); {
		// A group of edits starts with the earlier of the next two, and
		// takes in every edit that overlaps or touches it, in mid.
		var start, end int
		if j == len(second) || i < len(first) && firstAt[i] <= second[j].Start {
			start = firstAt[i]
		} else {
			start = second[j].Start
		}
		end = start
		baseStart := start - shift
		fromJ := j
		for grew := true; grew; {
			grew = false
			for i < len(first) && firstAt[i] <= end {
				end = max(end, firstAt[i]+len(first[i].New))
				shift += len(first[i].New) - (first[i].End - first[i].Start)
				i, grew = i+1, true
			}
			for j < len(second) && second[j].Start <= end {
				end = max(end, second[j].End)
				j, grew = j+1, true
			}
		}
		var b strings.Builder
		at := start
		for _, e := range second[fromJ:j] {
			b.WriteString(mid[at:e.Start])
			b.WriteString(e.New)
			at = e.End
		}
		b.WriteString(mid[at:end])
		out = append(out, TextEdit{Start: baseStart, End: end - shift, New: b.String()})
	}
	return minimalWithin(textOf(base), out)
}

// diffEdits is MinimalEdits for two whole texts that mostly agree (a
// change made without its edits: a save, an anchored patch, a rebase):
// the common prefix and suffix, to line boundaries, are found comparing
// blocks of bytes at a time, and only the lines between are diffed. The
// edits are MinimalEdits': its own prefix and suffix scans stop at the
// same line boundaries, found a byte at a time.
func diffEdits(before, after string) []TextEdit {
	if before == after {
		return nil
	}
	p := sharedPrefixLen(before, after)
	for p > 0 && before[p-1] != '\n' {
		p--
	}
	s := sharedSuffixLen(before[p:], after[p:])
	for s > 0 && len(before)-s > 0 && before[len(before)-s-1] != '\n' {
		s--
	}
	es := MinimalEdits(before[p:len(before)-s], after[p:len(after)-s])
	for i := range es {
		es[i].Start += p
		es[i].End += p
	}
	return es
}

// compareBlock is how many bytes sharedPrefixLen and sharedSuffixLen
// compare at once: a string comparison of a block runs at memory speed, a
// byte loop at about a byte a cycle.
const compareBlock = 256

// sharedPrefixLen returns the length of the longest common prefix of a and b.
func sharedPrefixLen(a, b string) int {
	n := min(len(a), len(b))
	p := 0
	for p+compareBlock <= n && a[p:p+compareBlock] == b[p:p+compareBlock] {
		p += compareBlock
	}
	for p < n && a[p] == b[p] {
		p++
	}
	return p
}

// sharedSuffixLen returns the length of the longest common suffix of a and b.
func sharedSuffixLen(a, b string) int {
	n := min(len(a), len(b))
	s := 0
	for s+compareBlock <= n && a[len(a)-s-compareBlock:len(a)-s] == b[len(b)-s-compareBlock:len(b)-s] {
		s += compareBlock
	}
	for s < n && a[len(a)-1-s] == b[len(b)-1-s] {
		s++
	}
	return s
}

// A Position is a place in a text as LSP counts it: a line, and the
// characters before it on that line in some Encoding.
type Position struct{ Line, Character int }

// Positions returns the positions of offsets in the buffer, as
// Mapper.Position does; offsets must not decrease. One walk over the
// chunks serves them all, so a few edits in a large buffer cost a step per
// chunk and a walk along their lines, not a scan of the text.
func (b *Buffer) Positions(offsets []int, enc Encoding) ([]Position, error) {
	out := make([]Position, len(offsets))
	i, base, first := 0, 0, 0 // chunk i starts at byte base, on line first
	prev := 0
	for k, off := range offsets {
		if off < prev || off > b.size {
			return nil, fmt.Errorf("offset %d is outside the text (0-%d) or before the one before it (%d)", off, b.size, prev)
		}
		prev = off
		for i < len(b.chunks)-1 && off >= base+len(b.chunks[i].text) {
			base += len(b.chunks[i].text)
			first += b.chunks[i].Lines() - 1
			i++
		}
		line, char, err := b.chunks[i].Position(off-base, enc)
		if err != nil {
			return nil, err
		}
		out[k] = Position{Line: first + line, Character: char}
	}
	return out, nil
}

// TextPositions returns the positions of offsets in text, as
// Mapper.Position does; offsets must not decrease. It builds no index of
// the text: the line breaks between one offset and the next are counted
// (a vector count where that stretch has no "\r"), so the cost is reading
// the text up to the last offset once, with nothing allocated but the
// result. A text converted once needs no more; a Mapper serves one
// converted many times.
func TextPositions(text string, offsets []int, enc Encoding) ([]Position, error) {
	out := make([]Position, len(offsets))
	line, lineStart, at := 0, 0, 0 // the breaks in text[:at] are counted: at is on line, which starts at lineStart
	for k, off := range offsets {
		if off < at || off > len(text) {
			return nil, fmt.Errorf("offset %d is outside the text (0-%d) or before the one before it (%d)", off, len(text), at)
		}
		if seg := text[at:off]; strings.IndexByte(seg, '\r') < 0 {
			if n := strings.Count(seg, "\n"); n > 0 {
				line += n
				lineStart = at + strings.LastIndexByte(seg, '\n') + 1
			}
		} else {
			for i := at; i < off; i++ {
				switch text[i] {
				case '\n':
					line, lineStart = line+1, i+1
				case '\r':
					if i+1 < len(text) && text[i+1] == '\n' {
						if i+1 == off {
							continue // off is inside the "\r\n": the break ends after it
						}
						i++
					}
					line, lineStart = line+1, i+1
				}
			}
		}
		at = off
		end := off
		if off > lineStart && text[off-1] == '\r' && off < len(text) && text[off] == '\n' {
			end = off - 1 // inside a "\r\n": the line's end
		}
		// Count the characters that end at or before end, as Mapper does.
		n := 0
		for i := lineStart; i < end; {
			r, size := utf8.DecodeRuneInString(text[i:])
			if i+size > end {
				break
			}
			n += width(r, size, enc)
			i += size
		}
		out[k] = Position{Line: line, Character: n}
	}
	return out, nil
}
