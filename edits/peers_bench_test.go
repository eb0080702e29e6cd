package edits

import "testing"

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
