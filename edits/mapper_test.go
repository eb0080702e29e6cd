package edits

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestMapper(t *testing.T) {
	// "a😀b" has the emoji at bytes 1-4: 1 UTF-32 unit, 2 UTF-16 units.
	text := "a😀b\r\nxé\rlast\n"
	m := NewMapper(text)
	if m.Lines() != 4 {
		t.Fatalf("lines = %d, want 4", m.Lines())
	}
	for _, tc := range []struct {
		offset     int
		enc        Encoding
		line, char int
	}{
		{0, UTF16, 0, 0},
		{1, UTF16, 0, 1},
		{5, UTF16, 0, 3}, // after the emoji
		{5, UTF32, 0, 2},
		{5, UTF8, 0, 5},
		{6, UTF16, 0, 4}, // at "\r"
		{7, UTF16, 0, 4}, // inside "\r\n": the line's end
		{8, UTF16, 1, 0},
		{11, UTF16, 1, 2}, // after "é" (2 bytes)
		{11, UTF8, 1, 3},
		{12, UTF16, 2, 0}, // after the lone "\r"
		{16, UTF16, 2, 4},
		{17, UTF16, 3, 0}, // the empty last line
	} {
		line, char, err := m.Position(tc.offset, tc.enc)
		if err != nil || line != tc.line || char != tc.char {
			t.Errorf("Position(%d, %v) = %d:%d, %v; want %d:%d", tc.offset, tc.enc, line, char, err, tc.line, tc.char)
		}
	}
	for _, tc := range []struct {
		line, char int
		enc        Encoding
		want       int
	}{
		{0, 3, UTF16, 5},
		{0, 2, UTF16, 1}, // inside the surrogate pair: the emoji's start
		{0, 2, UTF32, 5},
		{0, 3, UTF8, 1}, // inside the emoji's bytes: its start
		{0, 99, UTF16, 6},
		{1, 2, UTF16, 11},
		{2, 4, UTF32, 16},
		{3, 0, UTF16, 17},
	} {
		got, err := m.Offset(tc.line, tc.char, tc.enc)
		if err != nil || got != tc.want {
			t.Errorf("Offset(%d:%d, %v) = %d, %v; want %d", tc.line, tc.char, tc.enc, got, err, tc.want)
		}
	}
	if _, err := m.Offset(4, 0, UTF16); err == nil {
		t.Error("a line past the end was accepted")
	}
	if _, _, err := m.Position(len(text)+1, UTF16); err == nil {
		t.Error("an offset past the end was accepted")
	}
}

// FuzzMapper checks that Offset inverts Position at every character
// boundary, in every encoding.
func FuzzMapper(f *testing.F) {
	f.Add("a😀b\r\nxé\rlast\n")
	f.Add("\xff\xfe\r\r\n\n")
	f.Fuzz(func(t *testing.T, text string) {
		if len(text) > 4096 {
			return // every offset is checked: keep it quick
		}
		m := NewMapper(text)
		for _, enc := range []Encoding{UTF8, UTF16, UTF32} {
			for off := 0; off <= len(text); off++ {
				line, char, err := m.Position(off, enc)
				if err != nil {
					t.Fatal(err)
				}
				back, err := m.Offset(line, char, enc)
				if err != nil {
					t.Fatalf("Offset(Position(%d)) failed: %v", off, err)
				}
				if back > off {
					t.Fatalf("%v: offset %d → %d:%d → %d, past it", enc, off, line, char, back)
				}
				boundary := off == len(text) || isCharStart(text, off)
				if boundary && back != off && !insideLineBreak(text, off) {
					t.Fatalf("%v: offset %d → %d:%d → %d in %q", enc, off, line, char, back, text)
				}
			}
		}
	})
}

func isCharStart(s string, i int) bool {
	for j := 0; j < len(s); {
		if j >= i {
			return j == i
		}
		_, size := utf8.DecodeRuneInString(s[j:])
		j += size
	}
	return false
}

func insideLineBreak(s string, i int) bool {
	return i > 0 && i < len(s) && (s[i-1] == '\r' && s[i] == '\n' || s[i] == '\r' || s[i] == '\n')
}

func BenchmarkMapper(b *testing.B) {
	for _, lines := range []int{1_000, 100_000} {
		text := strings.Repeat("\tfmt.Println(\"héllo wörld 😀\", x, y, z)\n", lines)
		b.Run(fmt.Sprintf("NewMapper/%dlines", lines), func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				NewMapper(text)
			}
		})
		m := NewMapper(text)
		b.Run(fmt.Sprintf("Position/%dlines", lines), func(b *testing.B) {
			for i := 0; b.Loop(); i++ {
				m.Position((i*7919)%len(text), UTF16)
			}
		})
		b.Run(fmt.Sprintf("Offset/%dlines", lines), func(b *testing.B) {
			for i := 0; b.Loop(); i++ {
				m.Offset((i*7919)%lines, 20, UTF16)
			}
		})
	}
}

// FuzzMapperReplace checks that updating a Mapper in place gives the
// index a fresh Mapper of the new text has.
func FuzzMapperReplace(f *testing.F) {
	f.Add("a\nb\r\nc\rd\n", 2, 5, "x\r")
	f.Add("a\r\nb", 1, 1, "\n\r")
	f.Add("", 0, 0, "z\n")
	f.Fuzz(func(t *testing.T, text string, a, b int, s string) {
		if len(text) > 2000 {
			return
		}
		a = int(uint(a) % uint(len(text)+1))
		b = int(uint(b) % uint(len(text)+1))
		if a > b {
			a, b = b, a
		}
		orig := NewMapper(text)
		m, err := orig.Replace(a, b, s)
		if err != nil {
			t.Fatal(err)
		}
		if orig.Text() != text {
			t.Fatal("Replace changed the original Mapper")
		}
		want := NewMapper(text[:a] + s + text[b:])
		if m.Text() != want.Text() || fmt.Sprint(m.lineStarts) != fmt.Sprint(want.lineStarts) {
			t.Fatalf("replace [%d,%d) of %q with %q: starts %v, want %v", a, b, text, s, m.lineStarts, want.lineStarts)
		}
	})
}
