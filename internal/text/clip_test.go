package text

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestClip(t *testing.T) {
	tests := []struct {
		s    string
		n    int
		want string
	}{
		{"hello", 10, "hello"},
		{"hello", 5, "hello"},
		{"hello", 3, "hel"},
		{"hello", 0, ""},
		{"hello", -1, ""},
		{"", 3, ""},
		{"aé", 2, "a"},             // é is 2 bytes: not cut in half
		{"aé", 3, "aé"},            // fits
		{"a€b", 2, "a"},            // € is 3 bytes
		{"a€b", 3, "a"},            // still inside €
		{"a€b", 4, "a€"},           // after €
		{"a😀b", 4, "a"},            // 😀 is 4 bytes
		{"a😀b", 5, "a😀"},           // after 😀
		{"a\x80\x80b", 2, "a\x80"}, // invalid bytes are characters of their own
		{"\xe2\x82b", 1, "\xe2"},   // a truncated character is invalid: cut after its first byte
		{"a\xef\xbf\xbdb", 2, "a"}, // a real U+FFFD is a character like any other
	}
	for _, tt := range tests {
		if got := Clip(tt.s, tt.n); got != tt.want {
			t.Errorf("Clip(%q, %d) = %q, want %q", tt.s, tt.n, got, tt.want)
		}
	}
}

func TestClipTail(t *testing.T) {
	tests := []struct {
		s    string
		n    int
		want string
	}{
		{"hello", 10, "hello"},
		{"hello", 3, "llo"},
		{"hello", 0, ""},
		{"aéb", 2, "b"},  // the last 2 bytes start inside é
		{"aéb", 3, "éb"}, // é whole
		{"a😀b", 3, "b"},
		{"a😀b", 5, "😀b"},
		{"a\x80\x80b", 2, "\x80b"},
	}
	for _, tt := range tests {
		if got := ClipTail(tt.s, tt.n); got != tt.want {
			t.Errorf("ClipTail(%q, %d) = %q, want %q", tt.s, tt.n, got, tt.want)
		}
	}
}

func TestClipRunes(t *testing.T) {
	tests := []struct {
		s    string
		n    int
		want string
	}{
		{"héllo", 2, "hé"},
		{"héllo", 5, "héllo"},
		{"héllo", 9, "héllo"},
		{"😀😀😀", 1, "😀"},
		{"abc", 0, ""},
	}
	for _, tt := range tests {
		if got := ClipRunes(tt.s, tt.n); got != tt.want {
			t.Errorf("ClipRunes(%q, %d) = %q, want %q", tt.s, tt.n, got, tt.want)
		}
	}
}

func TestShorten(t *testing.T) {
	long := strings.Repeat("x", 76) + "éé"
	tests := []struct {
		s    string
		n    int
		mark string
		want string
	}{
		{"short", 77, "...", "short"},
		{strings.Repeat("x", 80), 77, "...", strings.Repeat("x", 80)}, // fits with the mark's room
		{strings.Repeat("x", 81), 77, "...", strings.Repeat("x", 77) + "..."},
		{long + "x", 77, "...", strings.Repeat("x", 76) + "..."}, // é at bytes 76-77 is not cut
		{"a€", 2, "…", "a€"},                                     // 4 bytes fit in 2 plus the mark
		{"a€€€", 2, "…", "a…"},
	}
	for _, tt := range tests {
		if got := Shorten(tt.s, tt.n, tt.mark); got != tt.want {
			t.Errorf("Shorten(%q, %d, %q) = %q, want %q", tt.s, tt.n, tt.mark, got, tt.want)
		}
	}
}

func TestShortenRunes(t *testing.T) {
	tests := []struct {
		s    string
		n    int
		mark string
		want string
	}{
		{"ééééé", 2, "...", "ééééé"},
		{"éééééé", 2, "...", "éé..."},
		{"abc", 5, "...", "abc"},
	}
	for _, tt := range tests {
		if got := ShortenRunes(tt.s, tt.n, tt.mark); got != tt.want {
			t.Errorf("ShortenRunes(%q, %d, %q) = %q, want %q", tt.s, tt.n, tt.mark, got, tt.want)
		}
	}
}

// FuzzShorten checks the clippers' promises: out of valid UTF-8 comes
// valid UTF-8, never longer than the bound (plus the mark), a prefix or
// suffix of the input.
func FuzzShorten(f *testing.F) {
	for _, s := range []string{"", "hello", "aé€😀b", "a\x80\x80b", "\xe2\x82", strings.Repeat("é", 50)} {
		f.Add(s, 3)
	}
	f.Fuzz(func(t *testing.T, s string, n int) {
		n %= 1 << 12
		valid := utf8.ValidString(s)
		head, tail := Clip(s, n), ClipTail(s, n)
		for _, c := range []struct{ name, got string }{{"Clip", head}, {"ClipTail", tail}} {
			if len(c.got) > max(n, 0) {
				t.Fatalf("%s(%q, %d) = %q: longer than %d bytes", c.name, s, n, c.got, n)
			}
			if valid && !utf8.ValidString(c.got) {
				t.Fatalf("%s(%q, %d) = %q: invalid UTF-8", c.name, s, n, c.got)
			}
		}
		if !strings.HasPrefix(s, head) || !strings.HasSuffix(s, tail) {
			t.Fatalf("Clip/ClipTail(%q, %d) = %q, %q: not the input's ends", s, n, head, tail)
		}
		if n > 0 && len(s) > n && len(head) < n-utf8.UTFMax+1 {
			t.Fatalf("Clip(%q, %d) = %q: backed off more than a character", s, n, head)
		}
		const mark = "…"
		if got := Shorten(s, n, mark); len(got) > max(n, 0)+len(mark) || valid && !utf8.ValidString(got) {
			t.Fatalf("Shorten(%q, %d) = %q: too long or invalid", s, n, got)
		}
		got := ShortenRunes(s, n, mark)
		if utf8.RuneCountInString(got) > max(n, 0)+1 || valid && !utf8.ValidString(got) {
			t.Fatalf("ShortenRunes(%q, %d) = %q: too long or invalid", s, n, got)
		}
	})
}
