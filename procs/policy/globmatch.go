package policy

import (
	"unicode"
	"unicode/utf8"
)

// globMatch matches one path element of a bash pattern against a name
// without translating it to a regexp: `*`, `?`, brackets with `!` or `^`,
// ranges and POSIX classes, backslash escapes, case ignored (the widest
// reading, nocaseglob), a leading dot matched like any character (dotglob).
// ok is false for what it does not handle (extended operators, `[=a=]`
// and `[.a.]`), for which compilePattern's regexp decides. An unmatched
// `[` is an ordinary character, as in bash.
func globMatch(pat, name string) (matched, ok bool) {
	// The star to go back to, and where in name it resumes.
	starP, starN := -1, 0
	p, n := 0, 0
	for n < len(name) || p < len(pat) {
		if p < len(pat) {
			if extOperatorAt(pat, p) {
				return false, false
			}
			switch c := pat[p]; c {
			case '*':
				starP, starN = p, n
				p++
				continue
			case '?':
				if n < len(name) {
					_, size := utf8.DecodeRuneInString(name[n:])
					p++
					n += size
					continue
				}
			case '[':
				if n < len(name) {
					r, size := utf8.DecodeRuneInString(name[n:])
					end, in, supported := matchBracket(pat, p, r)
					if !supported {
						return false, false
					}
					if end < 0 { // no closing bracket: a literal [
						if r == '[' {
							p++
							n += size
							continue
						}
					} else if in {
						p = end
						n += size
						continue
					}
				}
			default:
				lit, size := utf8.DecodeRuneInString(pat[p:])
				if c == '\\' && p+1 < len(pat) {
					lit, size = utf8.DecodeRuneInString(pat[p+1:])
					size++
				}
				if n < len(name) {
					r, rsize := utf8.DecodeRuneInString(name[n:])
					if foldEqual(lit, r) {
						p += size
						n += rsize
						continue
					}
				}
			}
		}
		if starP >= 0 && starN < len(name) {
			_, size := utf8.DecodeRuneInString(name[starN:])
			starN += size
			p, n = starP+1, starN
			continue
		}
		return false, true
	}
	return true, true
}

// matchBracket reads the bracket expression at pat[p] ('[') and reports
// where it ends (-1: it does not close, and `[` is literal) and whether r
// is in it. supported is false for equivalence classes and collating
// symbols.
func matchBracket(pat string, p int, r rune) (end int, in, supported bool) {
	i := p + 1
	negate := false
	if i < len(pat) && (pat[i] == '!' || pat[i] == '^') {
		negate = true
		i++
	}
	first := true
	for i < len(pat) {
		c := pat[i]
		if c == ']' && !first {
			return i + 1, in != negate, true
		}
		first = false
		if c == '[' && i+1 < len(pat) && (pat[i+1] == ':' || pat[i+1] == '=' || pat[i+1] == '.') {
			kind := pat[i+1]
			j := i + 2
			for j+1 < len(pat) && !(pat[j] == kind && pat[j+1] == ']') {
				j++
			}
			if j+1 >= len(pat) {
				// Not closed: bash then takes `[` as a character of the set.
				in = in || foldEqual('[', r)
				i++
				continue
			}
			if kind != ':' {
				return 0, false, false
			}
			class, known := posixClass(pat[i+2:j], r)
			if !known {
				return 0, false, false
			}
			in = in || class
			i = j + 2
			continue
		}
		lo, size := utf8.DecodeRuneInString(pat[i:])
		if c == '\\' && i+1 < len(pat) {
			lo, size = utf8.DecodeRuneInString(pat[i+1:])
			size++
		}
		i += size
		hi := lo
		if i+1 < len(pat) && pat[i] == '-' && pat[i+1] != ']' {
			h, hsize := utf8.DecodeRuneInString(pat[i+1:])
			if pat[i+1] == '\\' && i+2 < len(pat) {
				h, hsize = utf8.DecodeRuneInString(pat[i+2:])
				hsize++
			}
			hi = h
			i += 1 + hsize
		}
		if inRange(lo, hi, r) {
			in = true
		}
	}
	return -1, false, true
}

// inRange reports r within lo-hi, case ignored.
func inRange(lo, hi, r rune) bool {
	for _, x := range []rune{r, unicode.ToLower(r), unicode.ToUpper(r)} {
		if lo <= x && x <= hi {
			return true
		}
	}
	return false
}

// posixClass reports whether r is in the class named (alpha, digit…),
// case ignored; known is false for a name bash does not know.
func posixClass(name string, r rune) (in, known bool) {
	switch name {
	case "alpha", "upper", "lower":
		return unicode.IsLetter(r), true
	case "digit":
		return '0' <= r && r <= '9', true
	case "alnum":
		return unicode.IsLetter(r) || unicode.IsDigit(r), true
	case "space":
		return unicode.IsSpace(r), true
	case "blank":
		return r == ' ' || r == '\t', true
	case "punct":
		return unicode.IsPunct(r) || unicode.IsSymbol(r), true
	case "print":
		return unicode.IsPrint(r), true
	case "graph":
		return unicode.IsGraphic(r) && !unicode.IsSpace(r), true
	case "cntrl":
		return unicode.IsControl(r), true
	case "xdigit":
		return isHex(byte(r)) && r < utf8.RuneSelf, true
	case "word":
		return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r), true
	}
	return false, false
}

// foldEqual reports a and b equal with case ignored.
func foldEqual(a, b rune) bool {
	return a == b || unicode.ToLower(a) == unicode.ToLower(b) || unicode.SimpleFold(a) == b
}
