package parse

import (
	"encoding/json"
	"fmt"
	"strconv"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// parseLenientJSON reads the arguments of a tool call: JSON (numbers kept
// as json.Number, so they print as written), and what models and gptme's
// own Python adapters write instead: 'single-quoted' strings, True/False/
// None, bare identifier keys, trailing commas and missing commas between
// members. It does not guess beyond that: unbalanced or truncated input is
// an error. For strict JSON it gives what encoding/json gives (a fuzz test
// checks), at several times its speed.
func parseLenientJSON(b []byte) (any, error) {
	l := lenient{b: b}
	v, err := l.value(0)
	if err != nil {
		return nil, err
	}
	l.space()
	if l.i != len(l.b) {
		return nil, l.errorf("unexpected %q after the value", l.b[l.i])
	}
	return v, nil
}

const maxJSONDepth = 1000

type lenient struct {
	b []byte
	i int
	// shared says b is immutable (a string's memory), so strings without
	// escapes may alias it rather than be copied.
	shared  bool
	scratch []byte // decodes escaped strings, reused
}

func (l *lenient) errorf(format string, args ...any) error {
	return fmt.Errorf("at byte %d: %s", l.i, fmt.Sprintf(format, args...))
}

func (l *lenient) space() {
	for l.i < len(l.b) && isSpace(l.b[l.i]) {
		l.i++
	}
}

func (l *lenient) value(depth int) (any, error) {
	if depth > maxJSONDepth {
		return nil, l.errorf("nested too deeply")
	}
	l.space()
	if l.i >= len(l.b) {
		return nil, l.errorf("unexpected end")
	}
	switch c := l.b[l.i]; {
	case c == '{':
		return l.object(depth)
	case c == '[':
		return l.array(depth)
	case c == '"' || c == '\'':
		return l.str()
	case c == '-' || c == '+' || c >= '0' && c <= '9' || c == '.':
		return l.number()
	default:
		word := takeWhile(l.b[l.i:], isNameByte)
		switch word {
		case "true", "True":
			l.i += len(word)
			return true, nil
		case "false", "False":
			l.i += len(word)
			return false, nil
		case "null", "None":
			l.i += len(word)
			return nil, nil
		}
		return nil, l.errorf("unexpected %q", c)
	}
}

func (l *lenient) object(depth int) (any, error) {
	l.i++ // {
	obj := map[string]any{}
	for {
		l.space()
		if l.i >= len(l.b) {
			return nil, l.errorf("unexpected end in an object")
		}
		if l.b[l.i] == '}' {
			l.i++
			return obj, nil
		}
		var key string
		switch c := l.b[l.i]; {
		case c == '"' || c == '\'':
			k, err := l.str()
			if err != nil {
				return nil, err
			}
			key = k
		default:
			key = takeWhile(l.b[l.i:], isNameByte)
			if key == "" || c >= '0' && c <= '9' {
				return nil, l.errorf("expected a key, found %q", c)
			}
			l.i += len(key)
		}
		l.space()
		if l.i >= len(l.b) || l.b[l.i] != ':' {
			return nil, l.errorf("expected ':' after key %q", key)
		}
		l.i++
		v, err := l.value(depth + 1)
		if err != nil {
			return nil, err
		}
		obj[key] = v
		l.space()
		if l.i < len(l.b) && l.b[l.i] == ',' {
			l.i++
		}
	}
}

func (l *lenient) array(depth int) (any, error) {
	l.i++ // [
	arr := []any{}
	for {
		l.space()
		if l.i >= len(l.b) {
			return nil, l.errorf("unexpected end in an array")
		}
		if l.b[l.i] == ']' {
			l.i++
			return arr, nil
		}
		v, err := l.value(depth + 1)
		if err != nil {
			return nil, err
		}
		arr = append(arr, v)
		l.space()
		if l.i < len(l.b) && l.b[l.i] == ',' {
			l.i++
		}
	}
}

func (l *lenient) str() (string, error) {
	q := l.b[l.i]
	l.i++
	start := l.i
	j := l.i
	for j < len(l.b) && l.b[j] != q && l.b[j] != '\\' {
		j++
	}
	if j < len(l.b) && l.b[j] == q {
		l.i = j + 1 // no escapes: the common case
		if l.shared && j > start {
			return unsafe.String(&l.b[start], j-start), nil
		}
		return string(l.b[start:j]), nil
	}
	out := append(l.scratch[:0], l.b[start:j]...)
	defer func() { l.scratch = out[:0] }()
	l.i = j
	for l.i < len(l.b) {
		c := l.b[l.i]
		switch {
		case c == q:
			l.i++
			return string(out), nil
		case c == '\\':
			if l.i+1 >= len(l.b) {
				return "", l.errorf("unexpected end in a string")
			}
			e := l.b[l.i+1]
			l.i += 2
			switch e {
			case 'n':
				out = append(out, '\n')
			case 't':
				out = append(out, '\t')
			case 'r':
				out = append(out, '\r')
			case 'b':
				out = append(out, '\b')
			case 'f':
				out = append(out, '\f')
			case 'u':
				r, ok := l.hex4()
				if !ok {
					return "", l.errorf("bad \\u escape")
				}
				if utf16.IsSurrogate(r) {
					r2 := unicode.ReplacementChar
					if l.i+1 < len(l.b) && l.b[l.i] == '\\' && l.b[l.i+1] == 'u' {
						save := l.i
						l.i += 2
						if r2, ok = l.hex4(); !ok || utf16.DecodeRune(r, r2) == unicode.ReplacementChar {
							l.i = save // not a pair: the second escape stands alone
							r2 = unicode.ReplacementChar
						}
					}
					r = utf16.DecodeRune(r, r2)
				}
				out = utf8.AppendRune(out, r)
			default:
				out = append(out, e) // \" \' \\ \/ and anything else: the character itself
			}
		default:
			// Copy the run up to the next quote or backslash at once.
			j := l.i + 1
			for j < len(l.b) && l.b[j] != q && l.b[j] != '\\' {
				j++
			}
			out = append(out, l.b[l.i:j]...)
			l.i = j
		}
	}
	return "", l.errorf("unexpected end in a string")
}

func (l *lenient) hex4() (rune, bool) {
	if l.i+4 > len(l.b) {
		return 0, false
	}
	var r rune
	for _, c := range l.b[l.i : l.i+4] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	l.i += 4
	return r, true
}

func (l *lenient) number() (any, error) {
	j := l.i
	for j < len(l.b) && (l.b[j] >= '0' && l.b[j] <= '9' || l.b[j] == '-' || l.b[j] == '+' || l.b[j] == '.' || l.b[j] == 'e' || l.b[j] == 'E') {
		j++
	}
	s := string(l.b[l.i:j])
	if json.Valid([]byte(s)) {
		l.i = j
		return json.Number(s), nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return nil, l.errorf("bad number %q", s)
	}
	l.i = j
	return json.Number(strconv.FormatFloat(f, 'g', -1, 64)), nil // +1, 1. or .5: as JSON writes it
}
