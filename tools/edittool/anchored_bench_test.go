package edittool

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/agentls/agentls/anchored"
)

// benchGoText returns about size bytes of Go whose bodies repeat (wider
// anchors) and whose every tenth function is the same (ordinals).
func benchGoText(size int) string {
	var b strings.Builder
	b.WriteString("package p\n\n")
	for i := 0; b.Len() < size; i++ {
		name := fmt.Sprint("f", i)
		if i%10 == 9 {
			name = "g"
		}
		fmt.Fprintf(&b, "func %s(ctx context.Context) error {\n\tif err := step(ctx); err != nil {\n\t\treturn err\n\t}\n\treturn nil\n}\n\n", name)
	}
	return b.String()
}

// BenchmarkPatchAnchored is patch_anchored's call (read the file, parse 8
// guarded replace ops, resolve them, record the new text) after
// view_anchored showed the file: "fresh" anchors the text again, as the
// CLI does; "kept" resolves through the table the view kept (the server's
// tools.Hashes Views), on a copy of the text viewed, so that telling it is
// the same text compares it in full.
func BenchmarkPatchAnchored(b *testing.B) {
	ctx := context.Background()
	for _, size := range []int{10 << 10, 1 << 20, 10 << 20} {
		text := benchGoText(size)
		view, err := anchored.View(text, 0, 0, anchored.Options{})
		if err != nil {
			b.Fatal(err)
		}
		var ops strings.Builder
		ops.WriteString("[")
		for k := range 8 {
			l := view[k*len(view)/8+1]
			if k > 0 {
				ops.WriteString(",")
			}
			fmt.Fprintf(&ops, `{"anchor": %q, "op": "replace", "text": %q, "expected": %q}`, l.Anchor, l.Text+" // x", l.Text)
		}
		ops.WriteString("]")
		for _, kept := range []bool{false, true} {
			name := "fresh"
			keeper := &keptViews{}
			if kept {
				name = "kept"
				viewer := &Batch{Root: "/ws", Source: memSource{"f.go": strings.Clone(text)}, Hashes: keeper}
				if _, err := viewer.ViewAnchored(ctx, "f.go", 0, 0); err != nil {
					b.Fatal(err)
				}
			}
			b.Run(fmt.Sprintf("%s/%dKB", name, len(text)>>10), func(b *testing.B) {
				b.ReportAllocs()
				b.SetBytes(int64(len(text)))
				for b.Loop() {
					batch := &Batch{Root: "/ws", Source: memSource{"f.go": text}}
					if kept {
						batch.Hashes = keeper
					}
					if _, err := batch.PatchAnchored(ctx, "f.go", ops.String()); err != nil {
						b.Fatal(err)
					}
				}
				if kept && keeper.asks() != 1 {
					b.Fatalf("the patch anchored the text afresh (%d asks for hashes)", keeper.asks())
				}
			})
		}
	}
}
