// Package termtext turns what programs print for a terminal into plain
// text: escape sequences (colours, cursor moves, titles, hyperlinks)
// removed, and blank lines at the ends trimmed. The shell's messages, job
// output and the diagnostics parser read command output through it.
package termtext

import "strings"

// StripEscapes removes ANSI escape sequences: CSI (ESC [ ... final byte),
// OSC (ESC ] ... BEL or ESC \) and two-byte escapes (with their
// intermediates, as ESC ( B).
func StripEscapes(s string) string {
	if !strings.Contains(s, "\x1b") {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for k := 0; k < len(s); k++ {
		if s[k] != 0x1b {
			b.WriteByte(s[k])
			continue
		}
		if k+1 >= len(s) {
			break
		}
		switch s[k+1] {
		case '[': // CSI: parameters and intermediates, then a final byte
			k += 2
			for k < len(s) && (s[k] < 0x40 || s[k] > 0x7e) {
				k++
			}
		case ']': // OSC: a string ended by BEL or ST (ESC \)
			k += 2
			for k < len(s) && s[k] != 0x07 && !(s[k] == 0x1b && k+1 < len(s) && s[k+1] == '\\') {
				k++
			}
			if k < len(s) && s[k] == 0x1b {
				k++
			}
		default: // ESC, intermediates (ESC ( B), a final byte
			k++
			for k < len(s) && s[k] >= 0x20 && s[k] <= 0x2f {
				k++
			}
			if k < len(s) && s[k] >= 0x80 {
				k-- // not a final byte but a character: keep it whole
			}
		}
	}
	return b.String()
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
