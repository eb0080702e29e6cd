package edits

import (
	"github.com/aymanbagabas/go-udiff"
)

// A TextEdit replaces the bytes [Start, End) of a text with New.
type TextEdit struct {
	Start, End int
	New        string
}

// MinimalEdits returns small edits that turn before into after, in order
// and not overlapping: a line diff first, then each changed run of lines
// trimmed of the bytes it shares with its replacement at both ends. Lines
// the change does not touch are not part of any edit, so an editor keeps
// its cursors, marks and folds there.
func MinimalEdits(before, after string) []TextEdit {
	if before == after {
		return nil
	}
	// Most changes touch a small part of a large text: diff only the lines
	// between the common prefix and suffix.
	p := 0
	for p < len(before) && p < len(after) && before[p] == after[p] {
		p++
	}
	for p > 0 && before[p-1] != '\n' {
		p--
	}
	s := 0
	for s < len(before)-p && s < len(after)-p && before[len(before)-1-s] == after[len(after)-1-s] {
		s++
	}
	for s > 0 && len(before)-s > 0 && before[len(before)-s-1] != '\n' {
		s-- // back to the start of a line
	}
	var out []TextEdit
	for _, e := range udiff.Lines(before[p:len(before)-s], after[p:len(after)-s]) {
		e.Start += p
		e.End += p
		old := before[e.Start:e.End]
		p := 0
		for p < len(old) && p < len(e.New) && old[p] == e.New[p] {
			p++
		}
		s := 0
		for s < len(old)-p && s < len(e.New)-p && old[len(old)-1-s] == e.New[len(e.New)-1-s] {
			s++
		}
		// Keep a multi-byte character whole: back off to its start.
		for p > 0 && p < len(old) && !isCharBoundary(old, p) {
			p--
		}
		for s > 0 && !isCharBoundary(old, len(old)-s) {
			s--
		}
		if p+s > len(old) || p+s > len(e.New) {
			continue
		}
		out = append(out, TextEdit{Start: e.Start + p, End: e.End - s, New: e.New[p : len(e.New)-s]})
	}
	return out
}

// isCharBoundary reports whether i is not inside a UTF-8 sequence of s.
func isCharBoundary(s string, i int) bool {
	return i == 0 || i == len(s) || s[i]&0xC0 != 0x80
}

// ApplyEdits applies sorted, non-overlapping edits to text.
func ApplyEdits(text string, edits []TextEdit) string {
	var reps []replacement
	for _, e := range edits {
		reps = append(reps, replacement{start: e.Start, end: e.End, repl: e.New})
	}
	out, _ := splice(text, reps, 0)
	return out
}
