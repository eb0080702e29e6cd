package anchored

import (
	"fmt"
	"slices"
	"testing"
)

// BenchmarkApplyRadiusOneFloor measures, for the proposal in issue #28's
// note, what resolving a small batch could cost through radius-1 digests
// alone, beside Apply on the same text and ops: every line found and
// hashed (as DESIGN §5 requires), each line's radius-1 digest top mixed
// and its key compared with the batch's 8 keys, and the new text written
// with the 8 lines replaced. It skips the key index and the widening of
// repeated lines, which a full anchor table needs and a batch whose
// anchors are all radius-1 and unique may not; it is a floor for such a
// path, not an implementation of it (it does not prove uniqueness).
func BenchmarkApplyRadiusOneFloor(b *testing.B) {
	for _, text := range goLikeTexts() {
		v, _ := View(text, 0, 0, Options{})
		var ops []Op
		var lines []int
		for k := range 8 {
			i := (k * len(v)) / 8
			lines = append(lines, i)
			l := v[i]
			ops = append(ops, Op{Anchor: l.Anchor, Op: "replace", Text: str(l.Text + " // x"), Expected: str(l.Text)})
		}
		shift := uint(64 - 5*6)
		var ls lineSet
		var hs []uint64
		keys := make([]uint64, 8)
		{
			ls.splitHashing(text, &hs)
			ix := &Index{hashes: hs}
			for k, i := range lines {
				keys[k] = ix.digestR(i, 1)[0] >> shift
			}
		}
		b.Run(fmt.Sprintf("apply/%dKB", len(text)>>10), func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				if _, err := Apply(text, ops, Options{}); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("radius1/%dKB", len(text)>>10), func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			found := make([]int, 8)
			for b.Loop() {
				ls.splitHashing(text, &hs)
				n := len(hs)
				prev, cur := uint64(edgeHash), hs[0]
				hits := 0
				for k := range found {
					found[k] = -1
				}
				for i := 0; i < n; i++ {
					next := uint64(edgeHash)
					if i+1 < n {
						next = hs[i+1]
					}
					key := mixTop(prev, cur, next) >> shift
					for k, want := range keys {
						if key == want && found[k] < 0 {
							found[k] = i
							hits++
						}
					}
					prev, cur = cur, next
				}
				if hits < 8 {
					b.Fatalf("%d of 8 anchors found", hits)
				}
				slices.Sort(found)
				out := make([]byte, 0, len(text)+8*len(" // x"))
				at := 0
				for _, i := range found {
					end := ls.start[i+1] - 1
					out = append(out, text[at:end]...)
					out = append(out, " // x"...)
					at = end
				}
				out = append(out, text[at:]...)
				_ = out
			}
		})
	}
}
