package anchored

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// goLikeTexts are goLike's generated Go of about 10 KB, 100 KB, 1 MB and
// 10 MB, every function named apart: the repeated lines of real code
// ("}", blank lines, "return nil", whole bodies), which widen, where
// benchText's lines are all different.
func goLikeTexts() []string {
	var texts []string
	for _, n := range []int{1_000, 10_000, 100_000, 1_000_000} {
		texts = append(texts, goLike(n, n))
	}
	return texts
}

// BenchmarkRenderGoLike is view_anchored's one-shot render of a whole
// file (RenderText, as the CLI and a first view do) on code with repeated
// lines: bytes per second should hold from 10 KB to 10 MB (the widening of
// repeated lines is what grew with the file).
func BenchmarkRenderGoLike(b *testing.B) {
	bySizeAllocs(b, goLikeTexts(), func(text string) func() error {
		return func() error {
			_, err := RenderText(text, 0, 0, Options{})
			return err
		}
	})
}

// BenchmarkApplyGoLike is patch_anchored's apply of 8 guarded line edits
// spread over the file (Apply with the line hashes computed afresh, the
// CLI's path) on code with repeated lines.
func BenchmarkApplyGoLike(b *testing.B) {
	bySizeAllocs(b, goLikeTexts(), func(text string) func() error {
		v, _ := View(text, 0, 0, Options{})
		var ops []Op
		for k := range 8 {
			l := v[(k*len(v))/8]
			ops = append(ops, Op{Anchor: l.Anchor, Op: "replace", Text: str(l.Text + " // x"), Expected: str(l.Text)})
		}
		return func() error {
			_, err := Apply(text, ops, Options{})
			return err
		}
	})
}

// bySizeAllocs is bySize reporting allocations.
func bySizeAllocs(b *testing.B, texts []string, setup func(text string) func() error) {
	for _, text := range texts {
		work := setup(text)
		b.Run(fmt.Sprintf("%dKB", len(text)>>10), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				if err := work(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkApplyKeptTable is BenchmarkApplyGoLike through a Renderer that
// rendered the text before (the view the model read): the anchors are
// resolved through the table that render kept, after comparing the text
// with the one rendered byte for byte (a copy of it, so the comparison is
// made in full). A proposal for issue #28, beside BenchmarkApplyGoLike.
func BenchmarkApplyKeptTable(b *testing.B) {
	bySizeAllocs(b, goLikeTexts(), func(text string) func() error {
		v, _ := View(text, 0, 0, Options{})
		var ops []Op
		for k := range 8 {
			l := v[(k*len(v))/8]
			ops = append(ops, Op{Anchor: l.Anchor, Op: "replace", Text: str(l.Text + " // x"), Expected: str(l.Text)})
		}
		var r Renderer
		if _, err := r.Render(text, 0, 0); err != nil {
			b.Fatal(err)
		}
		again := strings.Clone(text)
		return func() error {
			_, err := r.Apply(again, ops)
			return err
		}
	})
}

// randomGo returns about n lines of generated Go whose functions draw
// their statements at random from a few templates with random names and
// numbers: the repeats of real code ("}", "return err", whole guard
// blocks) without goLike's fixed period of five functions, which a branch
// predictor learns within one text.
func randomGo(r *rand.Rand, n int) string {
	names := []string{"ctx", "buf", "req", "resp", "node", "path", "conn", "state", "text", "cfg"}
	pick := func() string { return names[r.IntN(len(names))] }
	var b strings.Builder
	for i, lines := 0, 0; lines < n; i++ {
		fmt.Fprintf(&b, "func step%d(%s string) error {\n", i, pick())
		lines++
		for range 1 + r.IntN(8) {
			switch r.IntN(6) {
			case 0:
				b.WriteString("\tif err != nil {\n\t\treturn err\n\t}\n")
				lines += 3
			case 1:
				fmt.Fprintf(&b, "\tif %s == nil {\n\t\treturn fmt.Errorf(\"missing %s\")\n\t}\n", pick(), pick())
				lines += 3
			case 2:
				fmt.Fprintf(&b, "\t%s = append(%s, %s)\n", pick(), pick(), pick())
				lines++
			case 3:
				fmt.Fprintf(&b, "\t%s, err := %s.Read(ctx, %d)\n", pick(), pick(), r.IntN(100))
				lines++
			case 4:
				b.WriteString("\treturn nil\n")
				lines++
			default:
				fmt.Fprintf(&b, "\t%s := open(%s, %d)\n", pick(), pick(), r.IntN(100))
				lines++
			}
		}
		b.WriteString("\treturn nil\n}\n\n")
		lines += 3
	}
	return b.String()
}

// BenchmarkRenderNewText is RenderText of a whole file going round 16
// different files of each size, as a tool reads a new file at each call
// (editbench's peers table goes round 16 inputs too): one file rendered
// over and over lets the branch predictor learn where its lines repeat.
func BenchmarkRenderNewText(b *testing.B) {
	r := rand.New(rand.NewPCG(28, 2))
	for _, n := range []int{100, 500, 4_000, 40_000} {
		var texts []string
		size := 0
		for range 16 {
			texts = append(texts, randomGo(r, n))
			size += len(texts[len(texts)-1])
		}
		b.Run(fmt.Sprintf("%dlines", n), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(size / len(texts)))
			i := 0
			for b.Loop() {
				if _, err := RenderText(texts[i%len(texts)], 0, 0, Options{}); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
	}
}
