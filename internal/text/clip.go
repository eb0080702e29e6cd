package text

import "unicode/utf8"

// Clip returns the longest prefix of s of at most n bytes that does not
// end inside a character. Invalid bytes count as characters of their
// own, so a cut never backs off more than utf8.UTFMax-1 bytes.
func Clip(s string, n int) string {
	if n >= len(s) {
		return s
	}
	if n <= 0 {
		return ""
	}
	start, _ := straddling(s, n)
	return s[:start]
}

// ClipTail returns the longest suffix of s of at most n bytes that does
// not start inside a character.
func ClipTail(s string, n int) string {
	if n >= len(s) {
		return s
	}
	if n <= 0 {
		return ""
	}
	_, end := straddling(s, len(s)-n)
	return s[end:]
}

// ClipRunes returns the first n characters of s (all of s when it has
// fewer).
func ClipRunes(s string, n int) string {
	if n <= 0 {
		return ""
	}
	for i := range s {
		if n == 0 {
			return s[:i]
		}
		n--
	}
	return s
}

// Shorten cuts s to at most n bytes (Clip) and appends mark when it cut;
// a string that fits in n+len(mark) bytes is returned whole, since the
// mark would take the room the cut saves. The result is never longer
// than n+len(mark) bytes.
func Shorten(s string, n int, mark string) string {
	if len(s) <= n+len(mark) {
		return s
	}
	return Clip(s, n) + mark
}

// ShortenRunes is Shorten counting characters: at most n characters of s,
// then mark; a string of at most n plus mark's characters is returned
// whole.
func ShortenRunes(s string, n int, mark string) string {
	if utf8.RuneCountInString(s) <= n+utf8.RuneCountInString(mark) {
		return s
	}
	return ClipRunes(s, n) + mark
}

// straddling returns the bounds of the valid multi-byte character of s
// that byte offset i falls inside (not at its start), or i, i when there
// is none. 0 < i < len(s).
func straddling(s string, i int) (start, end int) {
	for k := i; k > 0 && k > i-utf8.UTFMax && !utf8.RuneStart(s[k]); k-- {
		if !utf8.RuneStart(s[k-1]) {
			continue
		}
		if _, size := utf8.DecodeRuneInString(s[k-1:]); size > 1 && k-1+size > i {
			return k - 1, k - 1 + size
		}
		break
	}
	return i, i
}
