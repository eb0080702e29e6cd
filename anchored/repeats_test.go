package anchored

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// buildAsBefore builds t the way build did before the repeat filter
// (markRepeatedTops, scanRepeated): the lines widened are found in the
// groups of a full scan of the radius-1 keys, and the groups settled are
// those of a second full scan. It is the reference the filtered path must
// match, anchor for anchor.
func buildAsBefore(ix *Index, t *Table, content func(int) string) {
	n := len(ix.hashes)
	t.width = ix.opts.width()
	t.shift = uint(64 - 5*min(t.width, 12))
	t.tops = resize(t.tops, n)
	t.lows = nil
	if t.width > 12 {
		t.lows = make([]uint64, n)
	}
	t.radii, t.lengthened, t.ordinals, t.ambiguous, t.special = nil, nil, nil, nil, nil
	ix.radiusOneDigests(t)
	t.scan(false)
	t.shared = resize(t.shared, (n+63)/64)
	clear(t.shared)
	t.sharedCount = 0
	for g := range t.groups() {
		t.runs(t.group(g), func(run []int32) {
			if len(run) > 1 {
				t.sharedCount += len(run)
				for _, l := range run {
					t.shared[l/64] |= 1 << (l % 64)
				}
			}
		})
	}
	t.filter.reset(n) // widen adds to it, for scanRepeated; unused here
	if t.widen(ix) {
		t.scan(false)
	}
	t.settle(ix, content)
}

// repetitiveText returns n random lines drawn from few distinct ones, in
// runs, so that lines repeat at every radius (ordinals included), with a
// few unique lines between, mixed line endings and sometimes no final one.
func repetitiveText(r *rand.Rand, n int) string {
	kinds := 1 + r.IntN(12)
	var b strings.Builder
	for i := 0; i < n; {
		run := 1 + r.IntN(30)
		k := r.IntN(kinds)
		for j := 0; j < run && i < n; j, i = j+1, i+1 {
			switch {
			case r.IntN(50) == 0:
				fmt.Fprintf(&b, "unique %d", r.Int64())
			case r.IntN(3) == 0:
				fmt.Fprintf(&b, "line %d", (k+j)%kinds)
			default:
				fmt.Fprintf(&b, "line %d", k)
			}
			if r.IntN(20) == 0 {
				b.WriteString("\r\n")
			} else if i < n-1 || r.IntN(2) == 0 {
				b.WriteString("\n")
			}
		}
	}
	return b.String()
}

// TestFilteredBuildMatchesFullScans compares every line's anchor (and its
// ambiguity and radius) from build against the full-scan reference, on
// random repetitive texts from empty to past the sizes that filter the
// lines, partition the key index and split the work on two cores, at
// widths that force shared keys, and with a weak hash that forces
// collisions.
func TestFilteredBuildMatchesFullScans(t *testing.T) {
	r := rand.New(rand.NewPCG(28, 1))
	weak := func(s string) uint64 { return uint64(len(s) % 5) }
	sizes := []int{0, 1, 2, 3, 17, 100, filterLines - 1, filterLines, 1_000, filterFrom, 5_000, 12_000, 30_000}
	for _, n := range sizes {
		for _, opts := range []Options{{}, {Width: 2}, {Width: 3}, {Width: 13}, {hashLine: weak}, {Width: 2, hashLine: weak}} {
			for round := range 2 {
				text := repetitiveText(r, n)
				if round == 1 {
					text = goLike(n, 1+n/40)
				}
				var ls lineSet
				ix := &Index{}
				ix.load(&ls, text, opts)
				var got, want Table
				ix.build(&got, ls.content, false)
				buildAsBefore(ix, &want, ls.content)
				for i := range ix.hashes {
					g, w := got.Token(i), want.Token(i)
					if g != w || got.Ambiguous(i) != want.Ambiguous(i) || got.radius(i) != want.radius(i) {
						t.Fatalf("%d lines, %+v, round %d: line %d (%q) is %s (ambiguous %v, radius %d), want %s (%v, %d)",
							n, opts, round, i+1, ls.content(i), g, got.Ambiguous(i), got.radius(i), w, want.Ambiguous(i), want.radius(i))
					}
				}
			}
		}
	}
}

// TestResolveUniqueMatchesLookup: whenever resolveUnique answers before
// the keys are settled, it answers as lookupAll does once they are, for
// batches of live, stale, repeated, ordinal and mistyped anchors.
func TestResolveUniqueMatchesLookup(t *testing.T) {
	r := rand.New(rand.NewPCG(28, 2))
	answered := 0
	for _, n := range []int{1, 40, 2_000, 20_000} {
		for _, opts := range []Options{{}, {Width: 2}, {Width: 13}, {hashLine: func(s string) uint64 { return uint64(len(s) % 5) }}} {
			text := repetitiveText(r, n)
			var ls lineSet
			ix := &Index{}
			ix.load(&ls, text, opts)
			var full, early Table
			ix.build(&full, ls.content, false)
			ix.digests(&early)
			for range 50 {
				var toks []string
				for range 1 + r.IntN(8) {
					tok := full.Token(r.IntN(ls.Len()))
					switch r.IntN(6) {
					case 0:
						tok = tok[:len(tok)-1] + "0" // stale or another line's
					case 1:
						tok += ".2"
					}
					toks = append(toks, tok)
				}
				got := early.resolveUnique(toks)
				if got == nil {
					continue
				}
				answered++
				want := full.lookupAll(toks)
				for _, tok := range toks {
					if got[tok] != want[tok] {
						t.Fatalf("%d lines, %+v: %s resolved to line %d before settling, %d after", n, opts, tok, got[tok]+1, want[tok]+1)
					}
				}
			}
		}
	}
	if answered == 0 {
		t.Fatal("resolveUnique never answered")
	}
}

// TestRendererApplyKeptTable: a Renderer applies a batch to the text it
// rendered through the table it kept, as Apply does afresh, rejections
// included; and a changed text is anchored afresh, never resolved against
// the kept table.
func TestRendererApplyKeptTable(t *testing.T) {
	text := goLike(5_000, 5_000) // every function named apart: a changed line's anchor names no other
	lines := strings.Split(text, "\n")
	changed := strings.Join(slices.Concat(lines[:2500], []string{"\tchanged"}, lines[2501:]), "\n")
	for _, width := range []int{0, 2} {
		opts := Options{Width: width}
		view, err := View(text, 0, 0, opts)
		if err != nil {
			t.Fatal(err)
		}
		var ops, del []Op
		for k := range 8 {
			v := view[k*len(view)/8+1]
			ops = append(ops, Op{Anchor: v.Anchor, Op: "replace", Text: str(v.Text + " // x"), Expected: str(v.Text)})
		}
		v := view[2500] // the line changed in changed
		del = append(del, Op{Anchor: v.Anchor, Op: "delete"})
		var r Renderer
		r.Options = opts
		if _, err := r.Render(text, 0, 0); err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct {
			name string
			text string
			ops  []Op
		}{
			{"same string", text, ops},
			{"same bytes", strings.Clone(text), ops},
			{"delete", text, del},
			{"changed text, its anchor stale", changed, del},
			{"changed text, other ops", changed, ops},
			{"after a fresh apply", text, ops},
		} {
			got, gotErr := r.Apply(tc.text, tc.ops)
			want, wantErr := Apply(tc.text, tc.ops, opts)
			if got.Text != want.Text || fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
				t.Errorf("width %d, %s: the Renderer's apply gave %d bytes, error %v; Apply %d bytes, error %v",
					width, tc.name, len(got.Text), gotErr, len(want.Text), wantErr)
			}
			if tc.text == changed && slices.Equal(tc.ops, del) && gotErr == nil {
				t.Errorf("width %d: the anchor of a changed line resolved against the kept table", width)
			}
		}
	}
}
