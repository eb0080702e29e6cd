package edittool

import (
	"context"
	"strings"
	"testing"

	"github.com/agentls/agentls/anchored"
)

// hashSource is a memSource that keeps line hashes, and counts the asks.
type hashSource struct {
	memSource
	asked []string
}

func (h *hashSource) LineHashes(path string, version int32) *anchored.Index {
	h.asked = append(h.asked, path)
	return anchored.NewTextIndex(h.memSource[path], anchored.Options{})
}

// TestAnchoredToolsUseKeptHashes: view_anchored and patch_anchored ask the
// source for the line hashes it keeps of a buffer, but not for a file the
// batch already changed (its text is no longer the source's).
func TestAnchoredToolsUseKeptHashes(t *testing.T) {
	ctx := context.Background()
	text := "package p\n\nfunc f() {\n}\n"
	src := &hashSource{memSource: memSource{"a.go": text}}
	b := &Batch{Root: "/ws", Source: src}
	view, err := b.ViewAnchored(ctx, "a.go", 0, 0)
	if err != nil || len(src.asked) != 1 {
		t.Fatalf("view: %v, asked %v", err, src.asked)
	}
	v, _ := anchored.View(text, 0, 0, anchored.Options{})
	if !strings.Contains(view, v[2].Anchor+"│ func f() {") {
		t.Errorf("view:\n%s", view)
	}
	ops := `[{"anchor": "` + v[3].Anchor + `", "op": "insert_before", "text": "\treturn"}]`
	if _, err := b.PatchAnchored(ctx, "a.go", ops); err != nil || len(src.asked) != 2 {
		t.Fatalf("patch: %v, asked %v", err, src.asked)
	}
	if _, err := b.ViewAnchored(ctx, "a.go", 0, 0); err != nil || len(src.asked) != 2 {
		t.Errorf("the hashes of a.go were asked for after the batch changed it: %v %v", err, src.asked)
	}
}
