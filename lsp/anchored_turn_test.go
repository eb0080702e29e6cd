package lsp_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/modeltest"
	"github.com/agentls/agentls/anchored"
	"github.com/agentls/agentls/lsp/lsptest"
)

// TestAnchoredToolsOnAChangingBuffer runs view_anchored and
// patch_anchored in agent turns against an open buffer that the user
// edits between the turns (an incremental change, which the kept line
// hashes follow): the model sees the anchors of the buffer as it is, and
// its patch lands there.
func TestAnchoredToolsOnAChangingBuffer(t *testing.T) {
	t.Parallel()
	typed := "package p\n\nfunc f() int {\n\treturn 1\n}\n\nfunc g() {\n}\n"
	edited := "package p\n\nfunc f() int {\n\tx := 1\n\treturn 1\n}\n\nfunc g() {\n}\n"
	v, err := anchored.View(edited, 0, 0, anchored.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ops := fmt.Sprintf(`[{"anchor": %q, "op": "replace", "text": "\treturn x", "expected": "\treturn 1"}]`, v[4].Anchor)
	srv := modeltest.New(
		modeltest.Text("```view_anchored a.go\n```\n\n", 5),
		modeltest.Text("Seen.", 50),
		modeltest.Text("```view_anchored a.go\n```\n\n", 5),
		modeltest.Text("```patch_anchored a.go\n"+ops+"\n```\n\n", 5),
		modeltest.Text("Done.", 50),
	)
	defer srv.Close()
	root := writeFiles(t, files)
	e := lsptest.Start(t, root, lsptest.Neovim07(), lsptest.InitOptions(map[string]any{"model": "m", "baseUrl": srv.URL, "tools": []string{"view_anchored", "patch_anchored"}}))
	e.OpenFile("a.go", "go")
	e.Type("a.go", typed)
	e.ExecuteCommand("agentls.ask", map[string]any{"prompt": "look at a.go"})
	e.Await(lsptest.ShownMessage("agent turn 1 done"))
	e.TypeAt("a.go", 3, 0, "\tx := 1\n")
	e.ExecuteCommand("agentls.ask", map[string]any{"prompt": "return x"})
	e.Await(lsptest.ShownMessage("agent turn 2 done"), lsptest.BufferContent("a.go", strings.Replace(edited, "\treturn 1", "\treturn x", 1)))
	reqs := srv.Requests()
	for _, k := range []struct {
		req  int
		text string
	}{{1, typed}, {3, edited}} {
		view, _ := anchored.RenderText(k.text, 0, 0, anchored.Options{})
		msgs := reqs[k.req].Body.Messages
		if got := msgs[len(msgs)-1].Content; !strings.Contains(got, view) {
			t.Errorf("request %d: the model saw\n%s\nnot\n%s", k.req, got, view)
		}
	}
}
