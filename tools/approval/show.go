package approval

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/agentls/agentls/internal/text"
)

// What is approved is what runs (DESIGN §8a): a question shows every
// line of the command or cell it asks about, so that no line runs that
// the user was not shown. Action is a one-line summary (for a button, a
// code action's title, the model's "the user declined" note); Detail
// holds all of it whenever the summary is not, and the places that ask
// show Detail whole. Digest names exactly what was shown, so an answer
// given where only the summary is seen can be bound to the full text.

// SummaryBytes bounds Action for commands: a summary longer than this,
// or of more than one line, comes with the full listing in Detail.
const SummaryBytes = 100

// Command is the question for running text (a shell block, a Python
// cell, tmux verbs): Action its first line, clipped, saying how much
// more there is; Detail, unless Action already is all of it, every line
// of it (Listing).
func Command(text, reason, pattern string) Question {
	text = strings.TrimSpace(text)
	q := Question{Action: Summary(text), Reason: reason, Pattern: pattern}
	if q.Action != text {
		q.Detail = Listing(text)
	}
	return q
}

// Summary is action's first line, its hidden characters escaped, cut to
// SummaryBytes, saying how many lines follow.
func Summary(action string) string {
	first, rest, multi := strings.Cut(strings.TrimSpace(action), "\n")
	first = text.Shorten(Escape(first), SummaryBytes, "…")
	if multi {
		first += fmt.Sprintf(" … (+%d lines)", strings.Count(rest, "\n")+1)
	}
	return first
}

// Listing is text as a question shows it whole: every line, numbered
// (so a renderer that joins lines cannot make line 2 read as part of
// line 1's comment), with the characters that would hide, overwrite or
// reorder what is shown written as escapes (Escape).
func Listing(text string) string {
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	width := len(fmt.Sprint(len(lines)))
	var b strings.Builder
	for i, l := range lines {
		if i > 0 {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "%*d│ %s", width, i+1, Escape(l))
	}
	return b.String()
}

// Lines counts text's lines as Listing numbers them.
func Lines(text string) int {
	return strings.Count(strings.TrimRight(text, "\n"), "\n") + 1
}

// Escape writes the characters of s that a terminal, an editor's message
// or a diagnostic would not show as themselves as Go-style escapes:
// control characters but the tab (a carriage return or an ANSI sequence
// can overwrite what came before), bidirectional and invisible format
// characters (they reorder or hide text), and bytes that are not UTF-8.
// A backslash is left alone: it is shown as it is.
func Escape(s string) string {
	if !needsEscape(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case hidden(r):
			if r < 0x80 {
				fmt.Fprintf(&b, `\x%02x`, r)
			} else {
				fmt.Fprintf(&b, `\u%04x`, r)
			}
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

func needsEscape(s string) bool {
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && n == 1) || hidden(r) {
			return true
		}
		i += n
	}
	return false
}

// hidden reports whether r is not shown as itself: a control character
// (C0 but the tab and newline, DEL, C1), or a format character (Cf:
// bidirectional controls, zero-width spaces and joiners, the BOM).
func hidden(r rune) bool {
	if r == '\t' || r == '\n' {
		return false
	}
	return unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || r == '\u2028' || r == '\u2029'
}

// Digest names what q shows: a hex SHA-256 prefix of its kind, summary
// and detail. An answer that carries it answers this text and no other.
func (q Question) Digest() string {
	h := sha256.New()
	fmt.Fprintf(h, "%t\x00%s\x00%s\x00", q.Edit, q.Action, q.Detail)
	return hex.EncodeToString(h.Sum(nil))[:16]
}
