// Package position converts between LSP positions and byte offsets, and
// does only that: one Mapper per text (an editor's buffer or a string), in
// the session's position encoding (UTF-16 unless the client chose
// another), as gopls's protocol.Mapper does. The counting itself is
// edits.Mapper's and edits.Buffer's; this package is the one place that
// turns their lines and characters into protocol.Position and
// protocol.Range, so no handler casts uint32s or walks lines by hand.
//
// Lines end at "\n", "\r\n" or a lone "\r", as LSP says.
package position

import (
	"fmt"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/edits"
)

// A Mapper converts positions in one text. The zero value is not usable:
// make one with New or ForText.
type Mapper struct {
	enc edits.Encoding
	// buf is the text when it is a buffer; else text is, and positions
	// are counted in one walk over it (edits.TextPositions), without an
	// index of its lines.
	buf  *edits.Buffer
	text string
}

// New returns the Mapper of a buffer.
func New(buf *edits.Buffer, enc edits.Encoding) Mapper { return Mapper{enc: enc, buf: buf} }

// ForText returns the Mapper of a string.
func ForText(text string, enc edits.Encoding) Mapper { return Mapper{enc: enc, text: text} }

// Offset returns the byte offset of p.
func (m Mapper) Offset(p protocol.Position) (int, error) {
	if m.buf != nil {
		return m.buf.Offset(int(p.Line), int(p.Character), m.enc)
	}
	return edits.NewMapper(m.text).Offset(int(p.Line), int(p.Character), m.enc)
}

// Offsets returns the byte offsets of r's start and end; a range that
// ends before it starts is an error.
func (m Mapper) Offsets(r protocol.Range) (start, end int, err error) {
	if start, err = m.Offset(r.Start); err != nil {
		return 0, 0, err
	}
	if end, err = m.Offset(r.End); err != nil {
		return 0, 0, err
	}
	if end < start {
		return 0, 0, fmt.Errorf("range %d:%d-%d:%d ends before it starts", r.Start.Line, r.Start.Character, r.End.Line, r.End.Character)
	}
	return start, end, nil
}

// LineOffsets returns where lines first..last lie, whole: from the start
// of line first to the start of line last+1, or the end of the text when
// last is its last line (or past it).
func (m Mapper) LineOffsets(first, last int) (start, end int, err error) {
	lines, size := m.lines()
	if first < 0 || first >= lines {
		return 0, 0, fmt.Errorf("line %d is not in the text (%d lines)", first, lines)
	}
	if start, err = m.Offset(protocol.Position{Line: uint32(first)}); err != nil {
		return 0, 0, err
	}
	end = size
	if last+1 < lines {
		if end, err = m.Offset(protocol.Position{Line: uint32(last + 1)}); err != nil {
			return 0, 0, err
		}
	}
	return start, max(start, end), nil
}

// Lines returns how many lines the text has (an empty text has one).
func (m Mapper) Lines() int {
	n, _ := m.lines()
	return n
}

func (m Mapper) lines() (lines, size int) {
	if m.buf != nil {
		return m.buf.Lines(), m.buf.Len()
	}
	return edits.NewMapper(m.text).Lines(), len(m.text)
}

// Positions returns the positions of offsets, which must not decrease:
// one walk over the text serves them all.
func (m Mapper) Positions(offsets ...int) ([]protocol.Position, error) {
	var ps []edits.Position
	var err error
	if m.buf != nil {
		ps, err = m.buf.Positions(offsets, m.enc)
	} else {
		ps, err = edits.TextPositions(m.text, offsets, m.enc)
	}
	if err != nil {
		return nil, err
	}
	out := make([]protocol.Position, len(ps))
	for i, p := range ps {
		out[i] = protocol.Position{Line: uint32(p.Line), Character: uint32(p.Character)}
	}
	return out, nil
}

// Position returns the position of a byte offset.
func (m Mapper) Position(off int) (protocol.Position, error) {
	ps, err := m.Positions(off)
	if err != nil {
		return protocol.Position{}, err
	}
	return ps[0], nil
}

// Range returns the range of bytes start..end.
func (m Mapper) Range(start, end int) (protocol.Range, error) {
	if end < start {
		return protocol.Range{}, fmt.Errorf("offsets %d-%d: the end is before the start", start, end)
	}
	ps, err := m.Positions(start, end)
	if err != nil {
		return protocol.Range{}, err
	}
	return protocol.Range{Start: ps[0], End: ps[1]}, nil
}

// LineRange is the range of whole lines first..end-1: from the start of line
// first to the start of line end (which a client clips to the text).
func LineRange(first, end int) protocol.Range {
	return protocol.Range{Start: At(first, 0), End: At(end, 0)}
}

// At is the position at line and character (in the client's units).
func At(line, char int) protocol.Position {
	return protocol.Position{Line: uint32(line), Character: uint32(char)}
}
