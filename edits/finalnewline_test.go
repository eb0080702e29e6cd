package edits

import (
	"fmt"
	"strings"
	"testing"
)

// TestFinalNewlineReadOnce: of a hunk whose ORIGINAL ends with blank lines
// the file does not have, only the last is read as the final newline (as
// gptme does); more are a miss, found in one pass, not one per blank line.
func TestFinalNewlineReadOnce(t *testing.T) {
	text := "a\nb\n"
	if got, err := ApplyHunks(text, []Hunk{{Original: []string{"b", ""}, Updated: []string{"c", ""}}}); err != nil || got != "a\nc\n" {
		t.Errorf("one blank line: %q, %v", got, err)
	}
	if _, err := ApplyHunks(text, []Hunk{{Original: []string{"b", "", ""}, Updated: []string{"c"}}}); err == nil {
		t.Error("two blank lines the file lacks were read as its final newline")
	}
}

// BenchmarkTrailingBlankMiss: a hunk of a missing line and k blank lines on
// a 100,000-line file. Reading every blank line as a final newline cost a
// pass over the file each (0.68 s at k=100, 2.1 s at k=400); it is one now.
func BenchmarkTrailingBlankMiss(b *testing.B) {
	var sb strings.Builder
	for i := range 100_000 {
		fmt.Fprintf(&sb, "line %d\n", i)
	}
	text := sb.String()
	for _, k := range []int{1, 100, 400} {
		orig := append([]string{"not in the file"}, make([]string, k)...)
		b.Run(fmt.Sprintf("blanks=%d", k), func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				if _, err := ApplyHunks(text, []Hunk{{Original: orig, Updated: []string{"x"}}}); err == nil {
					b.Fatal("a miss applied")
				}
			}
		})
	}
}
