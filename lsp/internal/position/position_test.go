package position

import (
	"testing"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/edits"
)

// text has a surrogate pair (😀: 4 bytes, 2 UTF-16 units, 1 code point),
// a two-byte character (é), and the three line ends LSP knows. Its
// offsets: a 0, 😀 1-4, b 5, \r\n 6-7 | c 8, \r 9 | d 10, \n 11 | é 12-13,
// \n 14 | (empty last line) 15.
const text = "a😀b\r\nc\rd\né\n"

// mappers are the two kinds of Mapper of one text: both must agree.
func mappers(enc edits.Encoding) map[string]Mapper {
	return map[string]Mapper{"buffer": New(edits.NewBuffer(text), enc), "text": ForText(text, enc)}
}

// TestPosition: byte offsets to LSP positions, in each encoding.
func TestPosition(t *testing.T) {
	tests := []struct {
		name string
		enc  edits.Encoding
		off  int
		want protocol.Position
	}{
		{"start", edits.UTF16, 0, At(0, 0)},
		{"before the pair", edits.UTF16, 1, At(0, 1)},
		{"after the pair: two UTF-16 units", edits.UTF16, 5, At(0, 3)},
		{"after the pair: four UTF-8 bytes", edits.UTF8, 5, At(0, 5)},
		{"after the pair: one UTF-32 unit", edits.UTF32, 5, At(0, 2)},
		{"inside the pair: its start", edits.UTF16, 3, At(0, 1)},
		{"before CRLF", edits.UTF16, 6, At(0, 4)},
		{"between CR and LF: the line's end", edits.UTF16, 7, At(0, 4)},
		{"after CRLF", edits.UTF16, 8, At(1, 0)},
		{"after a lone CR", edits.UTF16, 10, At(2, 0)},
		{"after é, UTF-16", edits.UTF16, 14, At(3, 1)},
		{"after é, UTF-8", edits.UTF8, 14, At(3, 2)},
		{"the end", edits.UTF16, len(text), At(4, 0)},
	}
	for _, tt := range tests {
		for kind, m := range mappers(tt.enc) {
			got, err := m.Position(tt.off)
			if err != nil || got != tt.want {
				t.Errorf("%s: %s Position(%d) = %v, %v; want %v", tt.name, kind, tt.off, got, err, tt.want)
			}
		}
	}
	for kind, m := range mappers(edits.UTF16) {
		if _, err := m.Position(len(text) + 1); err == nil {
			t.Errorf("%s: an offset past the end has a position", kind)
		}
	}
}

// TestOffset: LSP positions to byte offsets, in each encoding; a
// character past its line's end means the end (not the next line), one
// inside a character means its start.
func TestOffset(t *testing.T) {
	tests := []struct {
		name string
		enc  edits.Encoding
		pos  protocol.Position
		want int // -1: an error
	}{
		{"after the pair, UTF-16", edits.UTF16, At(0, 3), 5},
		{"after the pair, UTF-8", edits.UTF8, At(0, 5), 5},
		{"after the pair, UTF-32", edits.UTF32, At(0, 2), 5},
		{"between the pair's two units", edits.UTF16, At(0, 2), 1},
		{"past the line's end stays before its CRLF", edits.UTF16, At(0, 99), 6},
		{"past a lone CR's line", edits.UTF16, At(1, 5), 9},
		{"after é", edits.UTF16, At(3, 1), 14},
		{"the empty last line", edits.UTF16, At(4, 0), len(text)},
		{"past the last line", edits.UTF16, At(5, 0), -1},
	}
	for _, tt := range tests {
		for kind, m := range mappers(tt.enc) {
			got, err := m.Offset(tt.pos)
			if tt.want < 0 {
				if err == nil {
					t.Errorf("%s: %s Offset(%v) = %d, want an error", tt.name, kind, tt.pos, got)
				}
				continue
			}
			if err != nil || got != tt.want {
				t.Errorf("%s: %s Offset(%v) = %d, %v; want %d", tt.name, kind, tt.pos, got, err, tt.want)
			}
		}
	}
}

// TestRanges: a range to offsets and back, and whole lines as offsets.
func TestRanges(t *testing.T) {
	for kind, m := range mappers(edits.UTF16) {
		r := protocol.Range{Start: At(0, 1), End: At(2, 1)} // 😀b\r\nc\rd
		start, end, err := m.Offsets(r)
		if err != nil || text[start:end] != "😀b\r\nc\rd" {
			t.Errorf("%s: Offsets(%v) = %d, %d, %v", kind, r, start, end, err)
		}
		if back, err := m.Range(start, end); err != nil || back != r {
			t.Errorf("%s: Range(%d, %d) = %v, %v; want %v", kind, start, end, back, err, r)
		}
		if _, _, err := m.Offsets(protocol.Range{Start: At(2, 0), End: At(1, 0)}); err == nil {
			t.Errorf("%s: a range ending before its start has offsets", kind)
		}
		for _, tc := range []struct {
			first, last int
			want        string
		}{
			{0, 0, "a😀b\r\n"},
			{1, 2, "c\rd\n"},
			{3, 9, "é\n"}, // past the last line: to the end
			{4, 4, ""},
		} {
			start, end, err := m.LineOffsets(tc.first, tc.last)
			if err != nil || text[start:end] != tc.want {
				t.Errorf("%s: LineOffsets(%d, %d) = %q, %v; want %q", kind, tc.first, tc.last, text[start:end], err, tc.want)
			}
		}
		if _, _, err := m.LineOffsets(5, 5); err == nil {
			t.Errorf("%s: a line past the end has offsets", kind)
		}
		if m.Lines() != 5 {
			t.Errorf("%s: Lines() = %d, want 5", kind, m.Lines())
		}
	}
	if got := LineRange(2, 4); got != (protocol.Range{Start: At(2, 0), End: At(4, 0)}) {
		t.Errorf("LineRange(2, 4) = %v", got)
	}
}
