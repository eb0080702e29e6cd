package anchored

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/zeebo/xxh3"
)

// goLike returns n lines of generated Go: functions of a few templated
// bodies, so that "}", blank lines, "return nil" and whole bodies repeat;
// function names repeat every names functions, so that with few names
// whole functions are alike across more than 17 lines (ordinals).
func goLike(n, names int) string {
	var b strings.Builder
	for i, lines := 0, 0; lines < n; i++ {
		body := []string{"\tif err != nil {", "\t\treturn err", "\t}", "\treturn nil"}
		switch i % 5 {
		case 0:
			body = append([]string{fmt.Sprintf("\tx := step(%d)", i%97)}, body...)
		case 1:
			body = append(body[:3:3], "", "\tfor range 3 {", "\t}", "\treturn nil")
		case 2:
			body = []string{"\treturn nil"}
		}
		fmt.Fprintf(&b, "func f%d() error {\n%s\n}\n\n", i%names, strings.Join(body, "\n"))
		lines += len(body) + 3
	}
	return b.String()
}

// referenceRadii widens the naive way: at each radius, the digests of the
// lines still shared counted in a map.
func referenceRadii(ix *Index, shared []int) map[int]int {
	radius := map[int]int{}
	for r := 2; r <= maxRadius && len(shared) > 0; r++ {
		count := map[uint64]int{}
		tops := map[int]uint64{}
		for _, l := range shared {
			d := ix.digestR(l, r)
			tops[l] = d[0]
			count[d[0]]++
			radius[l] = r
		}
		var next []int
		for _, l := range shared {
			if count[tops[l]] > 1 {
				next = append(next, l)
			}
		}
		shared = next
	}
	return radius
}

// TestWidenLinear checks widening by bitset and buckets against the naive
// way on repetitive Go large enough for many buckets, and that every line
// shown is named by its anchor alone.
func TestWidenLinear(t *testing.T) {
	for _, n := range []int{200, 40_000} {
		text := goLike(n, 3000)
		var ls lineSet
		ix := &Index{}
		ix.load(&ls, text, Options{})
		var tb Table
		ix.build(&tb, ls.content, true)
		// The lines shared at radius 1, as the first scan saw them.
		var r1 Table
		r1.width, r1.shift = tb.width, tb.shift
		r1.tops = make([]uint64, len(ix.hashes))
		ix.radiusOneDigests(&r1)
		r1.scan(false)
		var shared []int
		for g := range r1.groups() {
			r1.runs(r1.group(g), func(run []int32) {
				if len(run) > 1 {
					for _, l := range run {
						shared = append(shared, int(l))
					}
				}
			})
		}
		want := referenceRadii(ix, shared)
		if len(want) == 0 {
			t.Fatalf("%d lines: nothing to widen", n)
		}
		for l := range ix.hashes {
			if got := int(tb.radius(l)); got != max(1, want[l]) {
				t.Fatalf("%d lines: line %d (%q) widened to radius %d, want %d", n, l+1, ls.content(l), got, max(1, want[l]))
			}
		}
		view, err := View(text, 0, 0, Options{})
		if err != nil {
			t.Fatal(err)
		}
		seen := map[string]int{}
		for _, v := range view {
			if prev, ok := seen[v.Anchor]; ok {
				t.Fatalf("%d lines: lines %d and %d share the anchor %s", n, prev, v.Line, v.Anchor)
			}
			seen[v.Anchor] = v.Line
			if got := tb.lookup(v.Anchor); got != v.Line-1 {
				t.Fatalf("%d lines: anchor %s of line %d names line %d", n, v.Anchor, v.Line, got+1)
			}
		}
	}
}

// TestLookupAcrossPartitions checks, on texts large enough for the key
// index to be cut into partitions, and with anchors narrow enough that
// many keys are shared across them, that every line's token is its own
// and names it, and that a table built for a render (no index kept) shows
// the same tokens as one built for lookups.
func TestLookupAcrossPartitions(t *testing.T) {
	for _, n := range []int{3_000, 20_000} {
		text := goLike(n, n/7)
		for _, width := range []int{2, 3, 6, 13} {
			opts := Options{Width: width}
			var ls lineSet
			ix := &Index{}
			ix.load(&ls, text, opts)
			var kept, render Table
			ix.build(&kept, ls.content, true)
			ix.build(&render, ls.content, false)
			if len(kept.partStart) < 3 {
				t.Fatalf("%d lines: one partition", n)
			}
			seen := map[string]int{}
			for i := range ls.Len() {
				tok := kept.Token(i)
				if got := render.Token(i); got != tok {
					t.Fatalf("%d lines, width %d: line %d is %s in a render, %s for lookups", n, width, i+1, got, tok)
				}
				if kept.Ambiguous(i) {
					continue
				}
				if prev, ok := seen[tok]; ok {
					t.Fatalf("%d lines, width %d: lines %d and %d share %s", n, width, prev+1, i+1, tok)
				}
				seen[tok] = i
				if got := kept.lookup(tok); got != i {
					t.Fatalf("%d lines, width %d: %s of line %d names line %d", n, width, tok, i+1, got+1)
				}
				if got := render.lookup(tok); got != i {
					t.Fatalf("%d lines, width %d: in a render's table, %s of line %d names line %d", n, width, tok, i+1, got+1)
				}
			}
		}
	}
}

// TestRenderTextMatchesView: a whole-file render, written in two halves
// at once for a large text, is the view's lines one after the other —
// with "\r\n" endings (which the render drops, so the second half moves
// down), lengthened and ordinal anchors in either half, a byte-order mark
// and a last line without an ending.
func TestRenderTextMatchesView(t *testing.T) {
	for _, tc := range []struct {
		name string
		text string
		opts Options
	}{
		{"small", goLike(200, 50), Options{}},
		{"large", goLike(20_000, 3000), Options{}},
		{"crlf", strings.ReplaceAll(goLike(20_000, 3000), "}\n", "}\r\n"), Options{}},
		{"narrow", goLike(20_000, 3000), Options{Width: 2}},
		{"ordinals", "\ufeff" + strings.Repeat("x\n", 9_000) + goLike(9_000, 100) + "last", Options{}},
	} {
		got, err := RenderText(tc.text, 0, 0, tc.opts)
		if err != nil {
			t.Fatal(err)
		}
		view, err := View(tc.text, 0, 0, tc.opts)
		if err != nil {
			t.Fatal(err)
		}
		if want := Render(view); got != want {
			i := 0
			for i < len(got) && i < len(want) && got[i] == want[i] {
				i++
			}
			t.Errorf("%s: the render differs from the view at byte %d of %d: %q, want %q", tc.name, i, len(want), clip(got[i:], 80), clip(want[i:], 80))
		}
		var r Renderer
		r.Options = tc.opts
		if out, _ := r.Render(tc.text, 0, 0); string(out) != got {
			t.Errorf("%s: a Renderer's render differs from RenderText's", tc.name)
		}
	}
}

// TestBatchSizes: a batch of a few ops finds its anchors in one pass over
// the lines, a huge one in the key index; both resolve every anchor alike,
// shortened and lengthened ones included.
func TestBatchSizes(t *testing.T) {
	text := goLike(20_000, 3000)
	for _, width := range []int{0, 2} {
		opts := Options{Width: width}
		view, err := View(text, 0, 0, opts)
		if err != nil {
			t.Fatal(err)
		}
		lines, _ := SplitLines(text)
		for _, n := range []int{1, 8, 100, 400} {
			var ops []Op
			want := slices.Clone(lines)
			for k := range n {
				v := view[k*len(view)/n]
				if strings.HasSuffix(v.Anchor, "?") {
					continue
				}
				ops = append(ops, Op{Anchor: v.Anchor + "│", Op: "replace", Text: str(fmt.Sprintf("changed %d", k)), Expected: str(v.Text)})
				want[v.Line-1].Content = fmt.Sprintf("changed %d", k)
			}
			res, err := Apply(text, ops, opts)
			if err != nil {
				t.Fatalf("width %d, %d ops: %v", width, n, err)
			}
			if res.Text != JoinLines(want, "") {
				t.Errorf("width %d, %d ops: the batch changed other lines", width, n)
			}
		}
	}
}

// TestSplitHalves: a text large enough to be cut in two halves is split
// and hashed as a naive split does it, whatever its endings: "\r\n", a
// last line without one, a byte-order mark, a cut that falls on a blank
// line.
func TestSplitHalves(t *testing.T) {
	big := goLike(60_000, 3000)
	for name, text := range map[string]string{
		"lf":        big,
		"crlf":      strings.ReplaceAll(big, "\n", "\r\n"),
		"no ending": big + "last line",
		"bom":       "\ufeff" + big,
		"blank":     strings.Repeat("\n", 300_000),
		"late \r":   big + "x\r\n",
	} {
		if len(text) < parallelBytes {
			t.Fatalf("%s: %d bytes, not enough for two halves", name, len(text))
		}
		var ls lineSet
		var hashes []uint64
		ls.splitHashing(text, &hashes)
		lines, bom := SplitLines(text)
		body := strings.TrimPrefix(text, "\ufeff")
		want := strings.SplitAfter(body, "\n")
		if want[len(want)-1] == "" {
			want = want[:len(want)-1]
		}
		if ls.Len() != len(want) || len(hashes) != len(want) || ls.bom != bom {
			t.Fatalf("%s: %d lines and %d hashes, want %d", name, ls.Len(), len(hashes), len(want))
		}
		if ls.noCR == strings.Contains(text, "\r") {
			t.Fatalf("%s: noCR is %v", name, ls.noCR)
		}
		for i, w := range want {
			if got := ls.text[ls.start[i]:ls.start[i+1]]; got != w {
				t.Fatalf("%s: line %d is %q, want %q", name, i+1, got, w)
			}
			if hashes[i] != xxh3.HashString(lines[i].Content) {
				t.Fatalf("%s: line %d's hash is not xxh3 of %q", name, i+1, lines[i].Content)
			}
		}
	}
}
