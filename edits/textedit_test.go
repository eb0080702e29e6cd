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

// TestMinimalEditsManyHunks checks that a big change of many scattered
// lines gives one edit per changed line: the line diff coarsens on large
// inputs, and the unchanged lines it merges in must not be rewritten.
func TestMinimalEditsManyHunks(t *testing.T) {
	for _, lines := range []int{1_000, 10_000, 50_000} {
		var before, after strings.Builder
		for i := range lines {
			fmt.Fprintf(&before, "\tx%d := compute(%d)\n", i, i)
			if i%10 == 5 {
				fmt.Fprintf(&after, "\tx%d := compute(%d) + 1\n", i, i)
			} else {
				fmt.Fprintf(&after, "\tx%d := compute(%d)\n", i, i)
			}
		}
		es := MinimalEdits(before.String(), after.String())
		if len(es) != lines/10 {
			t.Errorf("%d lines: got %d edits, want %d", lines, len(es), lines/10)
		}
		for _, e := range es {
			if e.Start != e.End || e.New != " + 1" {
				t.Fatalf("%d lines: edit %v is not the one insertion", lines, e)
			}
		}
		if ApplyEdits(before.String(), es) != after.String() {
			t.Errorf("%d lines: edits do not reproduce after", lines)
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

// FuzzKeptLines checks the patience split with a tiny exact-LCS limit,
// so that small inputs take the path big files take: kept pairs must be
// increasing on both sides and pair equal lines.
func FuzzKeptLines(f *testing.F) {
	f.Add("a\nb\nc\nd\ne\n", "a\nc\nb\nd\nx\ne\n")
	f.Add("x\nx\ny\n", "y\nx\nx\n")
	f.Fuzz(func(t *testing.T, before, after string) {
		o, n := strings.SplitAfter(before, "\n"), strings.SplitAfter(after, "\n")
		lo, ln := -1, -1
		for _, k := range keptLines(o, n, 4, 0) {
			if k[0] <= lo || k[1] <= ln || k[0] >= len(o) || k[1] >= len(n) {
				t.Fatalf("pair %v out of order or range (after %d,%d)", k, lo, ln)
			}
			if o[k[0]] != n[k[1]] {
				t.Fatalf("pair %v keeps %q as %q", k, o[k[0]], n[k[1]])
			}
			lo, ln = k[0], k[1]
		}
	})
}

// BenchmarkMinimalEdits measures one changed line and, the worst case for
// refinement, one changed line in ten.
func BenchmarkMinimalEdits(b *testing.B) {
	for _, lines := range []int{1_000, 10_000, 50_000} {
		before := strings.Repeat("\tx := compute(a, b)\n", lines)
		after := strings.Replace(before, "\tx := compute(a, b)\n", "\tx := compute(a, c)\n", 1)
		b.Run(fmt.Sprintf("one/%dlines", lines), func(b *testing.B) {
			b.SetBytes(int64(len(before)))
			for b.Loop() {
				MinimalEdits(before, after)
			}
		})
		var sb, sa strings.Builder
		for i := range lines {
			fmt.Fprintf(&sb, "\tx%d := compute(%d)\n", i, i)
			if i%10 == 5 {
				fmt.Fprintf(&sa, "\tx%d := compute(%d) + 1\n", i, i)
			} else {
				fmt.Fprintf(&sa, "\tx%d := compute(%d)\n", i, i)
			}
		}
		b.Run(fmt.Sprintf("tenth/%dlines", lines), func(b *testing.B) {
			b.SetBytes(int64(sb.Len()))
			for b.Loop() {
				MinimalEdits(sb.String(), sa.String())
			}
		})
	}
}
