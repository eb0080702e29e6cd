package edits

import "strings"

// A line of a text: its content and its line ending. It holds no
// pointer, so the lines of a large text are one allocation the garbage
// collector does not scan.
type line struct {
	start, end int     // the content, without the line ending
	nl         newline // its line ending
}

// newline is a line's ending.
type newline uint8

const (
	noNewline newline = iota // the last line, without one
	lf                       // "\n"
	crlf                     // "\r\n"
)

// eol returns the line's ending: "\n", "\r\n", or "" for a last line
// without one.
func (l line) eol() string {
	switch l.nl {
	case lf:
		return "\n"
	case crlf:
		return "\r\n"
	}
	return ""
}

// splitLines splits s into lines at "\n" only (never at a lone "\r" or
// Unicode separators), keeping each line's ending. A text that ends with a
// line ending has no empty last line; an empty text has no lines.
func splitLines(s string) []line {
	lines := make([]line, 0, strings.Count(s, "\n")+1)
	for start := 0; start < len(s); {
		i := strings.IndexByte(s[start:], '\n')
		if i < 0 {
			lines = append(lines, line{start: start, end: len(s)})
			break
		}
		end := start + i
		nl := lf
		if end > start && s[end-1] == '\r' {
			end--
			nl = crlf
		}
		lines = append(lines, line{start: start, end: end, nl: nl})
		start += i + 1
	}
	return lines
}

// contents returns the lines' contents.
func contents(s string, lines []line) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = s[l.start:l.end]
	}
	return out
}

// splitContent splits a hunk's text into line contents, dropping line
// endings ("a\nb" and "a\r\nb\r\n" both give ["a", "b"]).
func splitContent(s string) []string {
	return contents(s, splitLines(s))
}

// dominantEOL returns the line ending most of the lines use ("\n" when
// there is none).
func dominantEOL(lines []line) string {
	crlfs, lfs := 0, 0
	for _, l := range lines {
		switch l.nl {
		case crlf:
			crlfs++
		case lf:
			lfs++
		}
	}
	if crlfs > lfs {
		return "\r\n"
	}
	return "\n"
}

// Typographic Unicode characters that models replace with ASCII (and the
// other way round), folded for the last matching tier.
var punctuationFolder = strings.NewReplacer(
	"\u2010", "-", "\u2011", "-", "\u2012", "-", "\u2013", "-", "\u2014", "-", "\u2015", "-", "\u2212", "-",
	"\u2018", "'", "\u2019", "'", "\u201a", "'", "\u201b", "'",
	"\u201c", "\"", "\u201d", "\"", "\u201e", "\"", "\u201f", "\"",
	"\u00a0", " ", "\u2002", " ", "\u2003", " ", "\u2004", " ", "\u2005", " ", "\u2006", " ",
	"\u2007", " ", "\u2008", " ", "\u2009", " ", "\u200a", " ", "\u202f", " ", "\u205f", " ", "\u3000", " ",
	"\u2026", "...",
)

// foldPunctuation maps typographic quotes, dashes, spaces and the ellipsis
// to ASCII.
func foldPunctuation(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return punctuationFolder.Replace(s)
		}
	}
	return s
}
