package edittool

import (
	"context"
	"strings"
	"testing"

	"github.com/agentls/agentls/anchored"
	"github.com/agentls/agentls/tools"
)

// hashSource is a memSource that keeps line hashes, and counts the asks;
// it keeps no views.
type hashSource struct {
	memSource
	asked []string
}

func (h *hashSource) LineHashes(path string, version int32) *anchored.Index {
	h.asked = append(h.asked, path)
	return anchored.NewTextIndex(h.memSource[path], anchored.Options{})
}

func (h *hashSource) Views() *anchored.Views { return nil }

// TestAnchoredToolsUseKeptHashes: view_anchored and patch_anchored ask the
// source for the line hashes it keeps of a buffer, but not for a file the
// batch already changed (its text is no longer the source's).
func TestAnchoredToolsUseKeptHashes(t *testing.T) {
	ctx := context.Background()
	text := "package p\n\nfunc f() {\n}\n"
	src := &hashSource{memSource: memSource{"a.go": text}}
	b := &Batch{Root: "/ws", Source: src, Hashes: src}
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

// TestBoundAnchoredToolsTakeEnvHashes: bound in a turn, view_anchored and
// patch_anchored take the line hashes from the Env (the editor's), where
// a type assertion on the workspace once found them; without them they
// hash what they read.
func TestBoundAnchoredToolsTakeEnvHashes(t *testing.T) {
	ctx := context.Background()
	text := "package p\n\nfunc f() {\n}\n"
	ws := &memWorkspace{files: map[string]string{"a.go": text}}
	hashes := &hashSource{memSource: memSource{"a.go": text}}
	env := tools.Env{Workspace: ws, Hashes: hashes}
	if _, err := ViewAnchoredTool().Bind(env)(ctx, tools.ToolUse{Tool: tools.NameViewAnchored, Args: []string{"a.go"}}); err != nil || len(hashes.asked) != 1 {
		t.Fatalf("view: %v, asked %v", err, hashes.asked)
	}
	v, _ := anchored.View(text, 0, 0, anchored.Options{})
	ops := `[{"anchor": "` + v[3].Anchor + `", "op": "insert_before", "text": "\treturn"}]`
	if _, err := PatchAnchoredTool().Bind(env)(ctx, tools.ToolUse{Tool: tools.NamePatchAnchored, Args: []string{"a.go"}, Content: ops}); err != nil || len(hashes.asked) != 2 {
		t.Fatalf("patch: %v, asked %v", err, hashes.asked)
	}
	if _, err := ViewAnchoredTool().Bind(tools.Env{Workspace: ws})(ctx, tools.ToolUse{Tool: tools.NameViewAnchored, Args: []string{"a.go"}}); err != nil || len(hashes.asked) != 2 {
		t.Errorf("without the Env's hashes: %v, asked %v", err, hashes.asked)
	}
}
