package tools

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// parseLenientJSON reads the arguments of a tool call. Strict JSON is read
// by encoding/json (numbers kept as json.Number so they print as written).
// Failing that, it accepts what models and gptme's own Python adapters
// write: 'single-quoted' strings, True/False/None, bare identifier keys,
// trailing commas and missing commas between members. It does not guess
// beyond that: unbalanced or truncated input is an error.
func parseLenientJSON(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err == nil && !dec.More() {
		return v, nil
	}
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
	var out []byte
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
					if save := l.i; l.i+1 < len(l.b) && l.b[l.i] == '\\' && l.b[l.i+1] == 'u' {
						l.i += 2
						if r2, ok := l.hex4(); ok {
							r = utf16.DecodeRune(r, r2)
						} else {
							l.i = save
						}
					}
				}
				out = utf8.AppendRune(out, r)
			default:
				out = append(out, e) // \" \' \\ \/ and anything else: the character itself
			}
		default:
			out = append(out, c)
			l.i++
		}
	}
	return "", l.errorf("unexpected end in a string")
}

func (l *lenient) hex4() (rune, bool) {
	if l.i+4 > len(l.b) {
		return 0, false
	}
	n, err := strconv.ParseUint(string(l.b[l.i:l.i+4]), 16, 32)
	if err != nil {
		return 0, false
	}
	l.i += 4
	return rune(n), true
}

func (l *lenient) number() (any, error) {
	j := l.i
	for j < len(l.b) && (l.b[j] >= '0' && l.b[j] <= '9' || l.b[j] == '-' || l.b[j] == '+' || l.b[j] == '.' || l.b[j] == 'e' || l.b[j] == 'E') {
		j++
	}
	s := string(l.b[l.i:j])
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return nil, l.errorf("bad number %q", s)
	}
	l.i = j
	if !json.Valid([]byte(s)) {
		s = strconv.FormatFloat(f, 'g', -1, 64) // +1, 1. or .5: print it as JSON reads it
	}
	return json.Number(s), nil
}
