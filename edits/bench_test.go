package edits

import (
	"fmt"
	"strings"
	"testing"
)

// benchFile returns Go-like source of about size bytes whose functions are
// all different, so hunks taken from it are unique.
func benchFile(size int) string {
	var b strings.Builder
	for i := 0; b.Len() < size; i++ {
		fmt.Fprintf(&b, "// handle%d serves one kind of request.\nfunc handle%d(ctx context.Context, r *Request) error {\n\tif err := r.Validate(); err != nil {\n\t\treturn fmt.Errorf(\"handle%d: %%w\", err)\n\t}\n\treturn nil\n}\n\n", i, i, i)
	}
	return b.String()
}

// middleHunk returns a hunk changing the function in the middle of f.
func middleHunk(f string, k int) Hunk {
	lines := strings.Split(f, "\n")
	i := len(lines) / 2
	i -= i % 8 // the start of a function's block
	if k >= 0 {
		i = k * 8 % (len(lines) - 8)
		i -= i % 8
	}
	// A copy: a slice of lines would keep the whole file's lines alive,
	// and the garbage collector would scan them during the benchmark.
	orig := append([]string{}, lines[i+1:i+5]...)
	upd := append([]string{}, orig...)
	upd[2] = strings.Replace(upd[2], "return", "return wrap(", 1) + ")"
	return Hunk{Original: orig, Updated: upd}
}

var editSizes = []int{1 << 10, 10 << 10, 100 << 10, 1 << 20, 10 << 20}

func sizeLabel(n int) string {
	if n >= 1<<20 {
		return fmt.Sprintf("%dMB", n>>20)
	}
	return fmt.Sprintf("%dKB", n>>10)
}

// BenchmarkApplyExact measures one exact hunk against files of 1 KB to
// 10 MB: bytes per second should hold as files grow.
func BenchmarkApplyExact(b *testing.B) {
	for _, size := range editSizes {
		b.Run(sizeLabel(size), func(b *testing.B) {
			f := benchFile(size)
			h := middleHunk(f, -1)
			b.SetBytes(int64(len(f)))
			for b.Loop() {
				if _, err := ApplyHunks(f, []Hunk{h}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkApplyHunks measures 1 to 256 hunks on a 1 MB file: the cost
// should grow with the hunks' size, not with hunks × file.
func BenchmarkApplyHunks(b *testing.B) {
	f := benchFile(1 << 20)
	for _, k := range []int{1, 16, 256} {
		b.Run(fmt.Sprintf("%dhunks", k), func(b *testing.B) {
			var hs []Hunk
			for i := range k {
				hs = append(hs, middleHunk(f, i*97+1))
			}
			b.SetBytes(int64(len(f)))
			for b.Loop() {
				if _, err := ApplyHunks(f, hs); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkApplyTiers measures the fallback tiers and the miss path on a
// 1 MB file.
func BenchmarkApplyTiers(b *testing.B) {
	f := benchFile(1 << 20)
	h := middleHunk(f, -1)
	spaces := Hunk{}
	for _, l := range h.Original {
		spaces.Original = append(spaces.Original, strings.ReplaceAll(l, "\t", "    "))
	}
	for _, l := range h.Updated {
		spaces.Updated = append(spaces.Updated, strings.ReplaceAll(l, "\t", "    "))
	}
	trailing := Hunk{Original: append([]string{}, h.Original...), Updated: h.Updated}
	trailing.Original[0] += "  "
	missing := Hunk{Original: []string{"func nowhere() {", "\treturn nil", "}"}, Updated: []string{"x"}}
	for _, tc := range []struct {
		name string
		h    Hunk
		fail bool
	}{
		{"exact", h, false},
		{"trailing", trailing, false},
		{"indent", spaces, false},
		{"miss", missing, true},
	} {
		b.Run(tc.name, func(b *testing.B) {
			b.SetBytes(int64(len(f)))
			for b.Loop() {
				_, err := ApplyHunks(f, []Hunk{tc.h})
				if (err != nil) != tc.fail {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkResolveHunks measures one exact hunk resolved to byte-range
// TextEdits without building the new text: finding the hunk and the size
// of the change, the engine's share of a patch and its lower bound. It is
// not what the language server does for a patch, which also builds the
// new text (the journal, review and the disk need it) and places the
// edits as LSP positions: lsp's BenchmarkPatchOpenBuffer measures that
// whole path on an open buffer.
func BenchmarkResolveHunks(b *testing.B) {
	for _, size := range editSizes {
		b.Run(sizeLabel(size), func(b *testing.B) {
			f := benchFile(size)
			hs := []Hunk{middleHunk(f, -1)}
			b.SetBytes(int64(len(f)))
			for b.Loop() {
				if _, err := ResolveHunks(f, hs); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// benchLines returns the first n lines of benchFile's kind of source, and
// the file as lines.
func benchLines(n int) (string, []string) {
	lines := strings.Split(benchFile(n*48), "\n")
	for len(lines) < n+1 {
		lines = strings.Split(benchFile(len(lines)*96), "\n")
	}
	lines = lines[:n]
	return strings.Join(lines, "\n") + "\n", lines
}

// missCases are the hunks the miss path sees in a file of lines: a few
// lines that are not there; the whole file with one line changed (a
// near-miss: the model copied it all and got one line wrong); the whole
// file with every line changed (no line is there as it is, so the most
// similar line is searched for); and a repetitive file whose every line
// starts a candidate window that matches for half the file.
func missCases(n int) []struct {
	name string
	text string
	h    Hunk
} {
	text, lines := benchLines(n)
	near := append([]string{}, lines...)
	near[n/2] += " // changed"
	every := make([]string, n)
	for i, l := range lines {
		every[i] = l + "X"
	}
	same := strings.Repeat("\treturn nil\n", n)
	half := append(strings.Split(strings.Repeat("\treturn nil\n", n/2), "\n")[:n/2], "\treturn err")
	return []struct {
		name string
		text string
		h    Hunk
	}{
		{"miss", text, Hunk{Original: []string{"func nowhere() {", "\treturn nil", "}"}, Updated: []string{"x"}}},
		{"nearmiss", text, Hunk{Original: near, Updated: []string{"x"}}},
		{"allchanged", text, Hunk{Original: every, Updated: []string{"x"}}},
		{"repetitive", same, Hunk{Original: half, Updated: []string{"x"}}},
	}
}

var missSizes = []int{1_000, 10_000, 50_000, 200_000}

// BenchmarkMiss measures hunks that are not in the file, on files of 1k
// to 200k lines: ns/line and B/op per line should hold as files grow (the
// error is the product, so finding the nearest region counts). Before the
// miss path was made linear, nearmiss took 4.2 ms at 1k lines, 0.11 s at
// 10k, 1.55 s at 50k and 20.8 s at 200k; repetitive 49 ms and 4.3 s at 1k
// and 10k.
func BenchmarkMiss(b *testing.B) {
	for _, n := range missSizes {
		for _, tc := range missCases(n) {
			b.Run(fmt.Sprintf("%s/%dlines", tc.name, n), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if _, err := ApplyHunks(tc.text, []Hunk{tc.h}); err == nil {
						b.Fatal("applied")
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/line")
			})
		}
	}
}
