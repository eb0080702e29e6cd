package anchored

import (
	"fmt"
	"strings"
	"unsafe"
)

// A ViewLine is one line of a rendered view.
type ViewLine struct {
	Line   int    `json:"line"` // 1-based
	Anchor string `json:"anchor"`
	Text   string `json:"text"` // without its line ending
}

// View returns the anchored lines from..to (1-based, inclusive; 0 for to
// means the end).
func View(text string, from, to int, opts Options) ([]ViewLine, error) {
	lines, _ := SplitLines(text)
	from, to, err := clampRange(from, to, len(lines))
	if err != nil {
		return nil, err
	}
	t := NewIndex(lines, opts).Anchors(lines)
	out := make([]ViewLine, 0, to-from+1)
	for i := from - 1; i < to; i++ {
		out = append(out, ViewLine{Line: i + 1, Anchor: string(t.appendShown(nil, i)), Text: lines[i].Content})
	}
	return out, nil
}

// RenderText renders lines from..to of text as the model reads them,
// "anchor│ text" per line, writing the anchors straight into the output.
func RenderText(text string, from, to int, opts Options) (string, error) {
	lines, _ := SplitLines(text)
	if len(lines) == 0 {
		return "(empty file)\n", nil
	}
	from, to, err := clampRange(from, to, len(lines))
	if err != nil {
		return "", err
	}
	t := NewIndex(lines, opts).Anchors(lines)
	size := 0
	for i := from - 1; i < to; i++ {
		size += len(lines[i].Content) + t.width + 6
	}
	b := make([]byte, 0, size)
	for i := from - 1; i < to; i++ {
		b = t.appendShown(b, i)
		b = append(b, "│ "...)
		b = append(b, lines[i].Content...)
		b = append(b, '\n')
	}
	return unsafe.String(unsafe.SliceData(b), len(b)), nil // b is not used again: no copy
}

// appendShown appends line i's anchor as shown: an ambiguous one is
// marked, so the model addresses that line another way.
func (t *Table) appendShown(b []byte, i int) []byte {
	b = t.AppendToken(b, i)
	if t.Ambiguous(i) {
		b = append(b, '?')
	}
	return b
}

func clampRange(from, to, n int) (int, int, error) {
	if from <= 0 {
		from = 1
	}
	if to <= 0 || to > n {
		to = n
	}
	if n > 0 && from > n {
		return 0, 0, fmt.Errorf("line %d is past the end of the file (%d lines)", from, n)
	}
	if from > to && n > 0 {
		return 0, 0, fmt.Errorf("the range %d:%d is empty", from, to)
	}
	return from, to, nil
}

// Render writes view lines as the model reads them: "anchor│ text".
func Render(view []ViewLine) string {
	if len(view) == 0 {
		return "(empty file)\n"
	}
	var b strings.Builder
	n := 0
	for _, l := range view {
		n += len(l.Anchor) + len(l.Text) + 5
	}
	b.Grow(n)
	for _, l := range view {
		b.WriteString(l.Anchor)
		b.WriteString("│ ")
		b.WriteString(l.Text)
		b.WriteByte('\n')
	}
	return b.String()
}
