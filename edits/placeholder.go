package edits

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

// isPlaceholder reports whether a line stands for elided code, such as
// "# ...", "// ... existing code ...", "/* ... */" or "\" ...": a comment
// marker, optional spaces, then "...".
func isPlaceholder(l string) bool {
	// Most lines are told apart by their first byte after the indentation
	// (every hunk line is checked several times on each path); a byte that
	// may be other space (non-ASCII, a control) takes the long way.
	i := 0
	for i < len(l) && (l[i] == ' ' || l[i] == '\t') {
		i++
	}
	if i == len(l) {
		return false
	}
	switch c := l[i]; {
	case c == '/' || c == '#' || c == '"' || c == '-' || c == ';':
	case c > ' ' && c < utf8.RuneSelf:
		return false
	}
	t := strings.TrimSpace(l)
	for _, marker := range []string{"//", "#", "/*", "\"", "--", ";"} {
		if rest, ok := strings.CutPrefix(t, marker); ok {
			return strings.HasPrefix(strings.TrimLeft(rest, " \t"), "...")
		}
	}
	return false
}

func hasPlaceholder(lines []string) bool {
	for _, l := range lines {
		if isPlaceholder(l) {
			return true
		}
	}
	return false
}

// placeholders returns the placeholder lines of lines.
func placeholders(lines []string) []string {
	var out []string
	for _, l := range lines {
		if isPlaceholder(l) {
			out = append(out, l)
		}
	}
	return out
}

// splitAtPlaceholders splits lines into the pieces between placeholder
// lines.
func splitAtPlaceholders(lines []string) [][]string {
	pieces := [][]string{{}}
	for _, l := range lines {
		if isPlaceholder(l) {
			pieces = append(pieces, []string{})
			continue
		}
		pieces[len(pieces)-1] = append(pieces[len(pieces)-1], l)
	}
	return pieces
}

// resolvePieces applies a hunk with placeholders piece by piece: ORIGINAL
// and UPDATED must have their placeholders at matching places; each pair
// of pieces that differs is a hunk of its own, which must match exactly
// one place, after the previous piece. A placeholder is never written.
func resolvePieces(d *doc, h Hunk, num, of int) ([]replacement, error) {
	fail := func(format string, args ...any) ([]replacement, error) {
		return nil, &HunkError{Hunk: num, Of: of, Reason: fmt.Sprintf(format, args...)}
	}
	orig, upd := splitAtPlaceholders(h.Original), splitAtPlaceholders(h.Updated)
	if len(orig) != len(upd) {
		return fail("ORIGINAL has %d placeholder lines (like \"// ...\") and UPDATED %d; a placeholder stands for unchanged lines, so put one at the same place in both, or write the lines out in full (a placeholder is never written into the file)", len(orig)-1, len(upd)-1)
	}
	// Paired placeholders must be the same line: a different one is more
	// likely a real line of the file (a "// ..." in a comment) against a
	// model's placeholder than one elision written two ways.
	op, up := placeholders(h.Original), placeholders(h.Updated)
	for i := range op {
		if strings.TrimSpace(op[i]) != strings.TrimSpace(up[i]) {
			return fail("placeholder %d is %q in ORIGINAL but %q in UPDATED; use the same placeholder line at the same place in both, or write the lines out in full", i+1, clipShown(strings.TrimSpace(op[i])), clipShown(strings.TrimSpace(up[i])))
		}
	}
	var reps []replacement
	after := 0 // the next piece must start at or after this line
	for i := range orig {
		o, u := orig[i], upd[i]
		if slices.Equal(o, u) {
			if !allBlank(o) {
				if ms, _ := d.find(o, nil); len(ms) == 1 {
					after = ms[0].first + ms[0].n
				}
			}
			continue
		}
		if allBlank(o) {
			return fail("piece %d of the hunk (between placeholders) adds lines without any ORIGINAL line to place them by; include the lines around the change", i+1)
		}
		ms, t := d.find(o, u)
		var inOrder []match
		for _, m := range ms {
			if m.first >= after {
				inOrder = append(inOrder, m)
			}
		}
		switch {
		case len(inOrder) == 0 && len(ms) == 0:
			return fail("piece %d of ORIGINAL (between placeholders) was not found.\n%s", i+1, d.nearestRegion(o))
		case len(inOrder) == 0:
			return fail("piece %d of ORIGINAL (between placeholders) is found only before the piece ahead of it (lines %s); keep the pieces in file order", i+1, lineList(ms))
		case len(inOrder) > 1:
			return fail("piece %d of ORIGINAL (between placeholders) matches %d places (lines %s, %s); include more lines in it", i+1, len(inOrder), lineList(inOrder), t)
		}
		r, err := d.replace(inOrder[0], Hunk{Original: o, Updated: u}, num, of)
		if err != nil {
			return nil, err
		}
		reps = append(reps, r...)
		after = inOrder[0].first + inOrder[0].n
	}
	return reps, nil
}
