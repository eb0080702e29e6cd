package edits

import (
	"fmt"
	"slices"
	"strings"

	"github.com/agentls/agentls/internal/text"
)

// A Hunk replaces the lines Original with the lines Updated. Lines are
// contents only: the file's own line endings are used when it is applied.
type Hunk struct {
	Original []string
	Updated  []string
	// Line is the hunk's line in the patch text (1-based), for errors.
	Line int
	// Scope (V4A's "@@ func main() {" lines) places the hunk after those
	// lines: of the places an ORIGINAL matches, only those after them
	// count, and an empty ORIGINAL inserts right after them.
	Scope []string
	// AtEOF says ORIGINAL ends at the end of the file (V4A's
	// "*** End of File"); with an empty ORIGINAL, UPDATED is appended.
	AtEOF bool
}

// ParseConflict reads gptme's conflict-marker format: one or more hunks
//
//	<<<<<<< ORIGINAL
//	lines to find
//	=======
//	lines to put instead
//	>>>>>>> UPDATED
//
// Marker noise that models produce is tolerated (5 to 9 marker characters,
// trailing spaces or characters, words after an upper-case UPDATED or
// REPLACE, SEARCH/REPLACE for ORIGINAL/UPDATED, CRLF). Text between or
// after hunks — code fences, a sentence introducing the next hunk — is
// ignored, as gptme does, unless it holds a marker-like line: that is a
// hunk with a missing or misspelled marker, and dropping it would lose an
// edit, so the patch is refused. Content is never split at
// a line that merely looks like a marker: an ORIGINAL marker must name
// ORIGINAL or SEARCH (so a real "<<<<<<< HEAD" is content), and when
// several "=" lines stand between the markers the one of exactly seven
// equals signs is the divider; if that is not unique, the hunk is refused
// rather than guessed (gptme's seven-equals rule).
func ParseConflict(patch string) ([]Hunk, error) {
	lines := splitContent(patch)
	var hunks []Hunk
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if !IsOriginalMarker(l) {
			t := strings.TrimSpace(l)
			if t == "" || strings.HasPrefix(t, "```") {
				continue
			}
			if len(hunks) == 0 {
				return nil, fmt.Errorf("line %d: expected \"<<<<<<< ORIGINAL\", found %q: a patch is made of <<<<<<< ORIGINAL / ======= / >>>>>>> UPDATED hunks only", i+1, clip(l))
			}
			if !markerLike(l) {
				continue // prose between or after hunks
			}
			where := fmt.Sprintf("between hunks %d and %d", len(hunks), len(hunks)+1)
			if !slices.ContainsFunc(lines[i+1:], IsOriginalMarker) {
				where = "after the last hunk"
			}
			return nil, fmt.Errorf("line %d: text %s has a marker-like line %q, which looks like a hunk with a missing or misspelled marker; write every hunk as <<<<<<< ORIGINAL / ======= / >>>>>>> UPDATED, each marker on its own line", i+1, where, clip(l))
		}
		start := i
		end := -1
		for j := i + 1; j < len(lines); j++ {
			if IsUpdatedMarker(lines[j]) {
				end = j
				break
			}
		}
		if end < 0 {
			return nil, fmt.Errorf("hunk at line %d: missing \">>>>>>> UPDATED\" after the \"<<<<<<< ORIGINAL\" marker", start+1)
		}
		div, err := findDivider(lines, start, end)
		if err != nil {
			return nil, err
		}
		hunks = append(hunks, Hunk{
			Original: lines[start+1 : div],
			Updated:  lines[div+1 : end],
			Line:     start + 1,
		})
		i = end
	}
	if len(hunks) == 0 {
		return nil, fmt.Errorf("no hunks: a patch needs at least one <<<<<<< ORIGINAL / ======= / >>>>>>> UPDATED hunk")
	}
	return hunks, nil
}

// findDivider returns the index of the "=======" line between the markers
// at start and end.
func findDivider(lines []string, start, end int) (int, error) {
	var exact, loose []int
	for j := start + 1; j < end; j++ {
		n, ok := dividerLen(lines[j])
		if !ok {
			continue
		}
		loose = append(loose, j)
		if n == 7 {
			exact = append(exact, j)
		}
	}
	switch {
	case len(exact) == 1:
		return exact[0], nil
	case len(exact) == 0 && len(loose) == 1:
		return loose[0], nil
	case len(exact) == 0 && len(loose) == 0:
		return 0, fmt.Errorf("hunk at line %d: missing the \"=======\" line between ORIGINAL and UPDATED", start+1)
	}
	cands := exact
	if len(cands) == 0 {
		cands = loose
	}
	var at []string
	for _, j := range cands {
		at = append(at, fmt.Sprint(j+1))
	}
	return 0, fmt.Errorf("hunk at line %d: %d \"=======\" lines (lines %s) between ORIGINAL and UPDATED; use exactly one divider, and if the code has such a line, include more context so it is not mistaken for one", start+1, len(cands), strings.Join(at, ", "))
}

// IsOriginalMarker reports whether l opens a hunk: 5–9 '<', then ORIGINAL
// or SEARCH.
func IsOriginalMarker(l string) bool { return isMarker(l, '<', false, "ORIGINAL", "SEARCH") }

// IsUpdatedMarker reports whether l closes a hunk: 5–9 '>', then UPDATED
// or REPLACE, and after an upper-case word anything models add to it, even
// glued on (">>>>>>> UPDATED (hunk 1)", ">>>>>>> UPDATED```"), as gptme
// discards it.
func IsUpdatedMarker(l string) bool { return isMarker(l, '>', true, "UPDATED", "REPLACE") }

// isMarker reports whether l is a marker of c's and one of words. With
// wordsAfter, an upper-case word may be followed by any text; a lower-case
// one (a quoted line in Markdown, ">>>>> updated the docs") may not.
func isMarker(l string, c byte, wordsAfter bool, words ...string) bool {
	l = strings.TrimSpace(l)
	n := 0
	for n < len(l) && l[n] == c {
		n++
	}
	if n < 5 || n > 9 {
		return false
	}
	rest := strings.TrimSpace(l[n:])
	for _, w := range words {
		if len(rest) >= len(w) && strings.EqualFold(rest[:len(w)], w) {
			tail := rest[len(w):]
			if wordsAfter && rest[:len(w)] == w {
				// Whatever follows is dropped, as gptme does: words
				// (">>>>>>> UPDATED hunk 1"), or text glued on by a model
				// (">>>>>>> UPDATEDXYZ", ">>>>>>> UPDATED```" with the
				// closing fence on the marker's line).
				return true
			}
			// Allow noise after the word (">", ":", spaces), not more words.
			tail = strings.TrimSpace(tail)
			return len(tail) <= 2 && !strings.ContainsAny(tail, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
		}
	}
	return false
}

// markerLike reports whether l starts like a conflict marker or divider:
// three or more '<', '=' or '>' in a row.
func markerLike(l string) bool {
	t := strings.TrimSpace(l)
	return len(t) >= 3 && strings.IndexByte("<=>", t[0]) >= 0 && t[1] == t[0] && t[2] == t[0]
}

// dividerLen reports whether l is a divider candidate (5–9 '=' and nothing
// else but whitespace) and how many '=' it has.
func dividerLen(l string) (int, bool) {
	l = strings.TrimSpace(l)
	n := 0
	for n < len(l) && l[n] == '=' {
		n++
	}
	return n, n == len(l) && n >= 5 && n <= 9
}

// clip shortens s for an error message to at most 80 bytes, never inside
// a character.
func clip(s string) string { return text.Shorten(s, 77, "...") }
