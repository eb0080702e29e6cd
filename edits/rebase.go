package edits

import (
	"fmt"
	"sort"
	"strings"
)

// A change made to one text can be carried to another that moved on —
// an undo after the user typed, a change the editor skipped, a review
// hunk accepted later — by describing it as hunks with context and
// applying them with the matcher, so that they land where their lines
// still are and fail where those lines changed.

// Rebase applies the change from → to onto cur, which may differ from
// from where the text was edited since: unchanged, cur simply becomes to;
// otherwise the change becomes hunks with as little context (0–3 lines)
// as lets them all apply, so edits next to the changed lines do not block
// it. Where cur changed the same lines, it fails with a *RebaseError.
func Rebase(cur, from, to string) (string, error) {
	if cur == from {
		return to, nil
	}
	var first error
	for ctx := 0; ctx <= 3; ctx++ {
		out, err := ApplyHunks(cur, changeHunks(from, to, ctx))
		if err == nil {
			return out, nil
		}
		if first == nil {
			first = err
		}
	}
	return "", &RebaseError{Err: first}
}

// A RebaseError says the lines a change touches were changed since.
type RebaseError struct {
	Err error // the matcher's error for the narrowest hunks
}

func (e *RebaseError) Error() string {
	return fmt.Sprintf("the lines it changes were changed since (%v)", e.Err)
}

func (e *RebaseError) Unwrap() error { return e.Err }

// UniqueHunks describes the change from → to as hunks, one per changed
// run of lines, each with as little context (0–3 lines) as makes it match
// one place in from.
func UniqueHunks(from, to string) []Hunk {
	lines := newLineIndex(from)
	var out []Hunk
	for _, e := range MinimalEdits(from, to) {
		for ctx := 0; ctx <= 3; ctx++ {
			h, ok := lines.hunk(e, ctx)
			if !ok {
				break
			}
			if _, err := ResolveHunks(from, []Hunk{h}); err == nil || ctx == 3 {
				out = append(out, h)
				break
			}
		}
	}
	return out
}

// changeHunks describes the change from → to as hunks with ctx lines of
// context on each side.
func changeHunks(from, to string, ctx int) []Hunk {
	lines := newLineIndex(from)
	var hunks []Hunk
	for _, e := range MinimalEdits(from, to) {
		if h, ok := lines.hunk(e, ctx); ok {
			hunks = append(hunks, h)
		}
	}
	return hunks
}

// lineIndex finds the lines of a text around an edit.
type lineIndex struct {
	text    string
	lines   []string // with their line endings
	offsets []int    // offsets[i] is where line i starts; one past the end last
}

func newLineIndex(text string) lineIndex {
	lines := strings.SplitAfter(text, "\n")
	offsets := make([]int, len(lines)+1)
	for i, l := range lines {
		offsets[i+1] = offsets[i] + len(l)
	}
	return lineIndex{text: text, lines: lines, offsets: offsets}
}

// hunk widens an edit to whole lines, plus ctx lines of context; ok is
// false when there are no lines to anchor it on.
func (li lineIndex) hunk(e TextEdit, ctx int) (Hunk, bool) {
	n := len(li.lines)
	a := sort.SearchInts(li.offsets, e.Start+1) - 1 // the line holding Start
	b := sort.SearchInts(li.offsets, e.End)         // the first line starting at or after End
	a, b = min(max(a, 0), n-1), min(b, n)
	if a == n-1 && a > 0 && li.lines[a] == "" {
		// Start is the end of a text ending in a newline: the "line"
		// there is empty and holds nothing to anchor on; the last line does.
		a--
	}
	if b == a {
		b = min(a+1, n) // a pure insertion: anchor on the next line
	}
	ca, cb := max(0, a-ctx), min(n, b+ctx)
	if ca == cb {
		return Hunk{}, false
	}
	orig := strings.Join(li.lines[ca:cb], "")
	upd := strings.Join(li.lines[ca:a], "") + li.text[li.offsets[a]:e.Start] + e.New + li.text[e.End:li.offsets[b]] + strings.Join(li.lines[b:cb], "")
	return Hunk{Original: hunkLines(orig), Updated: hunkLines(upd)}, true
}

// hunkLines splits text into a hunk's line contents (endings dropped): ""
// is no line at all (a deleted line), "\n" one empty line.
func hunkLines(s string) []string {
	if s == "" {
		return nil
	}
	s = strings.TrimSuffix(s, "\n")
	if s == "" {
		return []string{""}
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "\r")
	}
	return lines
}
