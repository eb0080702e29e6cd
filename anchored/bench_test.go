package anchored

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func benchText(lines int) string {
	var b strings.Builder
	for i := range lines {
		fmt.Fprintf(&b, "\tif err := step%d(ctx); err != nil {\n", i)
	}
	return b.String()
}

var benchLines = []int{25, 250, 2_500, 25_000, 250_000} // about 1 KB to 10 MB

// bySize runs a sub-benchmark per text, named by its size (prefixed by
// prefix), counting its bytes: setup prepares the work on one text, and
// the work runs b.N times.
func bySize(b *testing.B, prefix string, texts []string, setup func(text string) func() error) {
	for _, text := range texts {
		work := setup(text)
		b.Run(fmt.Sprintf("%s%dKB", prefix, len(text)>>10), func(b *testing.B) {
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

// benchTexts are benchText of each of benchLines.
func benchTexts() []string {
	var texts []string
	for _, n := range benchLines {
		texts = append(texts, benchText(n))
	}
	return texts
}

// BenchmarkRender measures a whole-file view: hashing, anchors, text.
func BenchmarkRender(b *testing.B) {
	bySize(b, "", benchTexts(), func(text string) func() error {
		return func() error {
			_, err := RenderText(text, 0, 0, Options{})
			return err
		}
	})
}

// rendering renders text with a Renderer kept between views, as a server
// can keep one per document: no allocation once it has grown.
func rendering(text string) func() error {
	var r Renderer
	return func() error {
		_, err := r.Render(text, 0, 0)
		return err
	}
}

// BenchmarkRenderReused renders with a Renderer kept between views.
func BenchmarkRenderReused(b *testing.B) {
	bySize(b, "", benchTexts(), rendering)
}

// BenchmarkResolve measures applying a batch of 8 guarded ops, every
// anchor resolved against the whole text and the new text written, with
// the lines hashed afresh (the CLI) or their hashes kept (the server's
// patch_anchored on an open buffer).
func BenchmarkResolve(b *testing.B) {
	for _, kept := range []bool{false, true} {
		prefix := ""
		if kept {
			prefix = "kept/"
		}
		bySize(b, prefix, benchTexts(), func(text string) func() error {
			v, _ := View(text, 0, 0, Options{})
			var ops []Op
			for k := range 8 {
				l := v[(k*len(v))/8]
				ops = append(ops, Op{Anchor: l.Anchor, Op: "replace", Text: str(l.Text + " // x"), Expected: str(l.Text)})
			}
			var opts Options
			if kept {
				opts.Hashes = NewTextIndex(text, Options{})
			}
			return func() error {
				_, err := Apply(text, ops, opts)
				return err
			}
		})
	}
}

// BenchmarkIncrementalUpdate measures keeping the index of a 100,000-line
// file current after a one-line change, and after a line is inserted.
func BenchmarkIncrementalUpdate(b *testing.B) {
	ix := NewTextIndex(benchText(100_000), Options{})
	b.Run("change1line", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			ix.Update(50_000, 1, []string{fmt.Sprint("\tchanged", i)})
		}
	})
	b.Run("insert1line", func(b *testing.B) {
		for b.Loop() {
			ix.Update(50_000, 0, []string{"\tinserted"})
			ix.Update(50_000, 1, nil)
		}
	})
}

// goSource concatenates files of the Go distribution up to size bytes:
// real code, with its repeated lines ("}", blank lines, "return err").
func goSource(b *testing.B, size int) string {
	var s strings.Builder
	root := filepath.Join(runtime.GOROOT(), "src")
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || s.Len() >= size || d.IsDir() || !strings.HasSuffix(p, ".go") {
			return nil
		}
		data, err := os.ReadFile(p)
		if err == nil {
			s.Write(data)
		}
		return nil
	})
	if s.Len() < size {
		b.Skip("not enough Go source")
	}
	return s.String()
}

// BenchmarkRenderGoSource renders real Go code, whose repeated lines take
// the wider-context path, with a reused Renderer.
func BenchmarkRenderGoSource(b *testing.B) {
	var texts []string
	for _, size := range []int{100 << 10, 1 << 20, 10 << 20} {
		texts = append(texts, goSource(b, size))
	}
	bySize(b, "", texts, rendering)
}

// BenchmarkRenderKeptHashes renders as the server's view_anchored does:
// one-shot, with the line hashes it keeps per open buffer, so the lines
// are found but not hashed again.
func BenchmarkRenderKeptHashes(b *testing.B) {
	bySize(b, "", benchTexts(), func(text string) func() error {
		opts := Options{Hashes: NewTextIndex(text, Options{})}
		return func() error {
			_, err := RenderText(text, 0, 0, opts)
			return err
		}
	})
}
