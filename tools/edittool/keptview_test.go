package edittool

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/agentls/agentls/anchored"
	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/approval"
)

// keptViews keeps views as the server does (tools.Hashes), no line
// hashes, and counts the asks for hashes: patch_anchored asks only when
// it anchors a text afresh.
type keptViews struct {
	views anchored.Views
	mu    sync.Mutex
	asked int
}

func (k *keptViews) LineHashes(string, int32) *anchored.Index {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.asked++
	return nil
}

func (k *keptViews) Views() *anchored.Views { return &k.views }

func (k *keptViews) asks() int {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.asked
}

// keptViewText is a file with repeated lines (wider anchors) and, at its
// end, repeated functions (ordinals).
func keptViewText() string {
	var b strings.Builder
	b.WriteString("package p\n\n")
	for i := range 60 {
		fmt.Fprintf(&b, "func f%d() error {\n\tif err != nil {\n\t\treturn err\n\t}\n\treturn nil\n}\n\n", i)
	}
	for range 5 {
		b.WriteString("func g() error {\n\tif err != nil {\n\t\treturn err\n\t}\n\treturn nil\n}\n\n")
	}
	return b.String()
}

// anchorsOf returns the anchors a view_anchored output shows, by line.
func anchorsOf(t *testing.T, out string) []string {
	t.Helper()
	var anchors []string
	for _, l := range strings.Split(out, "\n") {
		if a, _, ok := strings.Cut(l, "│ "); ok {
			anchors = append(anchors, a)
		}
	}
	if len(anchors) == 0 {
		t.Fatalf("no anchors in %q", out)
	}
	return anchors
}

// TestPatchAnchoredThroughKeptView: bound in a turn whose Env keeps views,
// patch_anchored after view_anchored of the same text resolves through the
// kept table (it asks for no line hashes) and says and writes what the
// fresh path does (an Env without them) on the same file, for batches that
// apply and batches that are refused; after a change to the buffer between
// the view and the patch, the op on the changed line is refused exactly
// as the fresh path refuses it, and the text is anchored afresh.
func TestPatchAnchoredThroughKeptView(t *testing.T) {
	ctx := context.Background()
	text := keptViewText()
	const changedLine = 40 // 1-based: "\t\treturn err" of a repeated body
	lines := strings.SplitAfter(text, "\n")
	edited := strings.Join(lines[:changedLine-1], "") + "\t\treturn fmt.Errorf(\"f: %w\", err)\n" + strings.Join(lines[changedLine:], "")
	for _, tc := range []struct {
		name     string
		ops      func(anchors []string) string
		edit     string // the buffer after the view; "" for unchanged
		wantErr  string // "" when the batch applies
		wantKept bool
	}{
		{name: "applies", ops: func(a []string) string {
			return `[{"anchor": "` + a[changedLine-1] + `", "op": "replace", "text": "\t\treturn nil", "expected": "\t\treturn err"}, {"anchor": "` + a[2] + `", "op": "insert_before", "text": "// f"}]`
		}, wantKept: true},
		{name: "refused: a wrong guard", ops: func(a []string) string {
			return `[{"anchor": "` + a[changedLine-1] + `", "op": "delete", "expected": "\treturn err"}]`
		}, wantErr: "not the expected", wantKept: true},
		{name: "the buffer changed: the op on the changed line", ops: func(a []string) string {
			return `[{"anchor": "` + a[changedLine-1] + `", "op": "replace", "text": "\t\treturn nil"}]`
		}, edit: edited, wantErr: "no line has this anchor"},
		{name: "the buffer changed: an op far from it", ops: func(a []string) string {
			return `[{"anchor": "` + a[200] + `", "op": "delete"}, {"anchor": "` + a[len(a)-10] + `", "op": "delete"}]`
		}, edit: edited}, // the second op names a line by its ordinal
	} {
		t.Run(tc.name, func(t *testing.T) {
			outcome := func(keeper *keptViews) (string, string, string) {
				ws := &memWorkspace{files: map[string]string{"a.go": text}, answer: approval.Run}
				env := tools.Env{Workspace: ws}
				if keeper != nil {
					env.Hashes = keeper
				}
				view, err := ViewAnchoredTool().Bind(env)(ctx, tools.ToolUse{Tool: tools.NameViewAnchored, Args: []string{"a.go"}})
				if err != nil {
					t.Fatal(err)
				}
				if tc.edit != "" {
					ws.mu.Lock()
					ws.files["a.go"] = tc.edit
					ws.mu.Unlock()
				}
				out, err := PatchAnchoredTool().Bind(env)(ctx, tools.ToolUse{Tool: tools.NamePatchAnchored, Args: []string{"a.go"}, Content: tc.ops(anchorsOf(t, view))})
				ws.mu.Lock()
				defer ws.mu.Unlock()
				return out, fmt.Sprint(err), ws.files["a.go"]
			}
			keeper := &keptViews{}
			out, errText, file := outcome(keeper)
			freshOut, freshErr, freshFile := outcome(nil)
			if out != freshOut || errText != freshErr || file != freshFile {
				t.Errorf("through the kept views: %q, %s, %d bytes\nfresh: %q, %s, %d bytes", out, errText, len(file), freshOut, freshErr, len(freshFile))
			}
			if tc.wantErr == "" && errText != "<nil>" || !strings.Contains(errText, tc.wantErr) {
				t.Errorf("error %s, want %q", errText, tc.wantErr)
			}
			// The view asks for hashes once; a patch anchored afresh once more.
			if kept := keeper.asks() == 1; kept != tc.wantKept {
				t.Errorf("resolved through the kept table: %v, want %v (%d asks for hashes)", kept, tc.wantKept, keeper.asks())
			}
		})
	}
}

// TestKeptViewsConcurrentTurns: turns sharing the server's views view and
// patch their own files at once, through the kept tables, each getting
// what the fresh path gives. (Run with -race.)
func TestKeptViewsConcurrentTurns(t *testing.T) {
	ctx := context.Background()
	keeper := &keptViews{}
	text := keptViewText()
	var wg sync.WaitGroup
	for g := range 6 {
		wg.Go(func() {
			path := fmt.Sprintf("f%d.go", g%3) // two turns per file, each on its own workspace
			ws := &memWorkspace{files: map[string]string{path: text}, answer: approval.Run}
			env := tools.Env{Workspace: ws, Hashes: keeper}
			for i := range 5 {
				view, err := ViewAnchoredTool().Bind(env)(ctx, tools.ToolUse{Tool: tools.NameViewAnchored, Args: []string{path}})
				if err != nil {
					t.Error(err)
					return
				}
				anchors := anchorsOf(t, view)
				ws.mu.Lock()
				before := ws.files[path]
				ws.mu.Unlock()
				ops := `[{"anchor": "` + anchors[(g+7*i)%len(anchors)] + `", "op": "insert_after", "text": "// ` + fmt.Sprint(g, i) + `"}]`
				want, wantErr := freshApply(before, ops)
				if _, err := PatchAnchoredTool().Bind(env)(ctx, tools.ToolUse{Tool: tools.NamePatchAnchored, Args: []string{path}, Content: ops}); fmt.Sprint(err) != fmt.Sprint(wantErr) {
					t.Errorf("turn %d, call %d: %v, want %v", g, i, err, wantErr)
					return
				}
				ws.mu.Lock()
				got := ws.files[path]
				ws.mu.Unlock()
				if wantErr == nil && got != want {
					t.Errorf("turn %d, call %d: the file differs from the fresh apply's", g, i)
					return
				}
			}
		})
	}
	wg.Wait()
}

// freshApply is the fresh path on a text: parse the ops, anchor the text anew.
func freshApply(text, ops string) (string, error) {
	parsed, err := anchored.ParseOps(ops)
	if err != nil {
		return "", err
	}
	res, err := anchored.Apply(text, parsed, anchored.Options{})
	return res.Text, err
}
