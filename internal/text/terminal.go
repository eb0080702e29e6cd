package text

import "strings"

const (
	esc = 0x1b
	bel = 0x07
	can = 0x18 // cancels a sequence under way
	sub = 0x1a // cancels a sequence under way
)

// StripEscapes removes the escape sequences a program writes for a
// terminal (colours, cursor moves, titles, hyperlinks, device controls),
// read by ECMA-48's grammar:
//
//   - CSI: ESC [, parameter and intermediate bytes (0x20–0x3F), a final
//     byte (0x40–0x7E);
//   - the control strings OSC (ESC ]), DCS (ESC P), SOS (ESC X), PM (ESC ^)
//     and APC (ESC _): everything up to BEL or ST (ESC \), CAN or SUB, the
//     next ESC, or the end of s;
//   - any other escape: ESC, intermediate bytes (0x20–0x2F), a final byte
//     (0x30–0x7E), as ESC ( B or ESC 7.
//
// Outside control strings, a sequence that breaks its grammar ends at the
// byte that breaks it, which is kept: a line break, a character or a new
// ESC is never taken as part of a CSI or an escape, so a malformed or cut
// one loses no text after it (a terminal would swallow up to the next
// final byte). Only ASCII bytes are removed outside control strings, and
// a control string ends at an ASCII byte, so valid UTF-8 stays valid. No
// ESC is left in the result, so stripping twice changes nothing.
func StripEscapes(s string) string {
	i := strings.IndexByte(s, esc)
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i >= 0 {
		b.WriteString(s[:i])
		s = s[i+escapeLen(s[i:]):]
		i = strings.IndexByte(s, esc)
	}
	b.WriteString(s)
	return b.String()
}

// escapeLen is the length of the escape sequence that starts s (s[0] is
// ESC): at least 1.
func escapeLen(s string) int {
	if len(s) < 2 {
		return len(s)
	}
	switch c := s[1]; {
	case c == '[':
		k := 2
		for k < len(s) && s[k] >= 0x20 && s[k] <= 0x3f {
			k++
		}
		if k < len(s) && s[k] >= 0x40 && s[k] <= 0x7e {
			k++
		}
		return k
	case c == ']' || c == 'P' || c == 'X' || c == '^' || c == '_':
		return 2 + controlStringLen(s[2:])
	case c >= 0x20 && c <= 0x7e:
		k := 1
		for k < len(s) && s[k] >= 0x20 && s[k] <= 0x2f {
			k++
		}
		if k < len(s) && s[k] >= 0x30 && s[k] <= 0x7e {
			k++
		}
		return k
	default: // a control, DEL or a non-ASCII byte: only the ESC goes
		return 1
	}
}

// controlStringLen is the length of a control string's body and its
// terminator: BEL, ST (ESC \), CAN or SUB, or all of s when none comes.
// Another ESC ends the string as a terminal's parser does, and starts a
// sequence of its own.
func controlStringLen(s string) int {
	for k := 0; k < len(s); k++ {
		switch s[k] {
		case bel, can, sub:
			return k + 1
		case esc: // ST, or a new sequence that ends this one
			if k+1 < len(s) && s[k+1] == '\\' {
				return k + 2
			}
			return k
		}
	}
	return len(s)
}

// TrimBlankLines removes whitespace-only lines at the start and/or end,
// keeping the indentation of the first line that stays; trimming the end
// also drops the last line's trailing spaces.
func TrimBlankLines(s string, leading, trailing bool) string {
	for leading {
		line, rest, found := strings.Cut(s, "\n")
		if strings.TrimSpace(line) != "" {
			break
		}
		s = rest
		if !found {
			s = ""
			break
		}
	}
	for trailing {
		i := strings.LastIndexByte(s, '\n')
		if strings.TrimSpace(s[i+1:]) != "" {
			s = strings.TrimRight(s, " \t\r")
			break
		}
		if i < 0 {
			s = ""
			break
		}
		s = s[:i]
	}
	return s
}
