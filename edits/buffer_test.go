package edits

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// checkBuffer compares a Buffer with a Mapper of the same text: text,
// lines, every line's start and end offsets in every encoding, and the
// chunk invariant.
func checkBuffer(t *testing.T, b *Buffer, want string) {
	t.Helper()
	if got := b.Text(); got != want {
		t.Fatalf("text = %q, want %q", got, want)
	}
	if b.Len() != len(want) {
		t.Fatalf("Len = %d, want %d", b.Len(), len(want))
	}
	for i, c := range b.chunks[:len(b.chunks)-1] {
		if !strings.HasSuffix(c.text, "\n") {
			t.Fatalf("chunk %d of %d does not end a line: %q", i, len(b.chunks), c.text)
		}
	}
	m := NewMapper(want)
	if b.Lines() != m.Lines() {
		t.Fatalf("Lines = %d, want %d", b.Lines(), m.Lines())
	}
	for _, enc := range []Encoding{UTF8, UTF16} {
		for line := 0; line <= m.Lines(); line++ {
			for _, char := range []int{0, 1, 3, 1 << 20} {
				got, gerr := b.Offset(line, char, enc)
				w, werr := m.Offset(line, char, enc)
				if got != w || (gerr == nil) != (werr == nil) {
					t.Fatalf("Offset(%d, %d, %v) = %d, %v; Mapper says %d, %v", line, char, enc, got, gerr, w, werr)
				}
			}
		}
	}
}

func TestBuffer(t *testing.T) {
	big := strings.Repeat("line one\r\nline two é😀\n", 2000)
	for _, tc := range []struct {
		name       string
		text       string
		start, end int
		s          string
	}{
		{"empty", "", 0, 0, ""},
		{"insert into empty", "", 0, 0, "a\nb"},
		{"delete all", big, 0, len(big), ""},
		{"join across chunks", big, chunkTarget - 5, chunkTarget + 5, ""},
		{"split a CRLF at a chunk edge", big, 8, 9, "\r"},
		{"insert at the end", big, len(big), len(big), "tail"},
		{"remove the last newline", big, len(big) - 1, len(big), ""},
		{"one long line", strings.Repeat("x", 3*chunkTarget), 10, 20, "\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := NewBuffer(tc.text)
			checkBuffer(t, b, tc.text)
			nb, err := b.Replace(tc.start, tc.end, tc.s)
			if err != nil {
				t.Fatal(err)
			}
			checkBuffer(t, nb, tc.text[:tc.start]+tc.s+tc.text[tc.end:])
			checkBuffer(t, b, tc.text) // the old one is unchanged
		})
	}
	if _, err := NewBuffer("abc").Replace(2, 4, ""); err == nil {
		t.Error("a replace past the end was accepted")
	}
	if s, err := NewBuffer(big).Slice(chunkTarget-3, chunkTarget+3); err != nil || s != big[chunkTarget-3:chunkTarget+3] {
		t.Errorf("Slice = %q, %v", s, err)
	}
}

// FuzzBuffer applies a seeded run of random replacements, as typing and
// pasting do, and checks the Buffer against a plain string every step.
func FuzzBuffer(f *testing.F) {
	f.Add(uint64(1), "a\r\nb\nc\rd\n")
	f.Add(uint64(2), "😀\n\n\r\r\n")
	f.Fuzz(func(t *testing.T, seed uint64, alphabet string) {
		if alphabet == "" {
			return
		}
		r := rand.New(rand.NewPCG(seed, 0))
		piece := func(n int) string {
			var sb strings.Builder
			for range n {
				sb.WriteByte(alphabet[r.IntN(len(alphabet))])
			}
			return sb.String()
		}
		text := piece(r.IntN(3 * chunkTarget))
		b := NewBuffer(text)
		for range 20 {
			start := r.IntN(len(text) + 1)
			end := start + r.IntN(min(len(text)-start, 2*chunkTarget)+1)
			s := piece(r.IntN(64))
			if r.IntN(8) == 0 {
				s = piece(r.IntN(2 * chunkTarget))
			}
			var err error
			if b, err = b.Replace(start, end, s); err != nil {
				t.Fatal(err)
			}
			text = text[:start] + s + text[end:]
		}
		checkBuffer(t, b, text)
	})
}

// BenchmarkBufferReplace measures one typed character in the middle of
// documents of growing size: the cost should not grow with the size
// beyond a step per chunk.
func BenchmarkBufferReplace(b *testing.B) {
	for _, lines := range []int{1_000, 10_000, 100_000} {
		text := strings.Repeat("func f() int { return 42 }\n", lines)
		b.Run(fmt.Sprintf("%dlines", lines), func(b *testing.B) {
			buf := NewBuffer(text)
			mid := len(text) / 2
			for b.Loop() {
				nb, _ := buf.Replace(mid, mid, "x")
				off, _ := nb.Offset(lines/2, 3, UTF16)
				_ = off
			}
		})
	}
}
