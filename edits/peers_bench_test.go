package edits

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// BenchmarkApplyTrailingBlank measures an exact hunk whose ORIGINAL ends
// with a blank line (models often end on one): it stays on the exact fast
// path, whose only exception is a blank line matched past the file's
// final newline.
func BenchmarkApplyTrailingBlank(b *testing.B) {
	for _, size := range editSizes {
		b.Run(sizeLabel(size), func(b *testing.B) {
			f := benchFile(size)
			h := middleHunk(f, -1)
			h.Original = append(h.Original, "\treturn nil", "}", "")
			h.Updated = append(h.Updated, "\treturn nil", "}", "")
			b.SetBytes(int64(len(f)))
			for b.Loop() {
				if _, err := ApplyHunks(f, []Hunk{h}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// pairedRatio times a and b alternately, b.N times each, and reports the
// median time of b over the median time of a as metric unit: a ratio
// taken round by round, as editbench peers takes its targets, so that
// the load of a shared machine falls on both alike.
func pairedRatio(b *testing.B, unit string, a, bb func()) {
	var ta, tb []time.Duration
	for b.Loop() {
		t := time.Now()
		a()
		ta = append(ta, time.Since(t))
		t = time.Now()
		bb()
		tb = append(tb, time.Since(t))
	}
	median := func(ts []time.Duration) float64 {
		slices.Sort(ts)
		return float64(ts[len(ts)/2])
	}
	b.ReportMetric(median(tb)/median(ta), unit)
	b.ReportMetric(median(ta), "ns/"+strings.SplitN(unit, "/", 2)[1])
}

// patchOf returns a function that applies patch (conflict markers) to f
// as the patch tool does (ParseConflict, then ApplyHunks building the new
// text), failing b if it does not apply.
func patchOf(b *testing.B, f, patch string) func() {
	return func() {
		hunks, err := ParseConflict(patch)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := ApplyHunks(f, hunks); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPatchRatios stands for the two same-run targets of editbench
// peers on the patch tool's path: a patch whose ORIGINAL differs from the
// file only in whitespace (a blank line written as spaces, a blank line
// before the divider: the local path's whitespace tiers and gptme's
// final-newline reading) within 2× of the exact patch of the same lines
// (the exact fast path), at every size; and 16 exact hunks spread over a
// 10 MB file (the sampled search, sampled.go) within 1.5× of one. Inputs
// are realisticGo's; the metric is the ratio of medians of alternating
// calls (relaxed/exact, 16hunks/1hunk); ns/exact and ns/1hunk are the
// reference's median call.
func BenchmarkPatchRatios(b *testing.B) {
	for _, size := range realisticSizes {
		f := realisticGo(size)
		exact, relaxed, _, sixteen := realisticPatches(f)
		b.Run("relaxed/"+sizeLabel(size), func(b *testing.B) {
			b.ReportAllocs()
			pairedRatio(b, "relaxed/exact", patchOf(b, f, exact), patchOf(b, f, relaxed))
		})
		if size >= 1<<20 {
			b.Run("16hunks/"+sizeLabel(size), func(b *testing.B) {
				b.ReportAllocs()
				pairedRatio(b, "16hunks/1hunk", patchOf(b, f, exact), patchOf(b, f, sixteen))
			})
		}
	}
}
