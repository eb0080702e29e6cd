package lsp_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/modeltest"
	"github.com/agentls/agentls/anchored"
	"github.com/agentls/agentls/lsp/lsptest"
)

// TestPatchAnchoredAfterTheViewedLineChanged: the server keeps the anchor
// table of turn 1's view_anchored; the user then changes a viewed line,
// and turn 2's patch_anchored on that line's old anchor is refused (the
// buffer's new text is anchored afresh, never resolved through the kept
// table of the old one), while the next patch, on a line the change did
// not touch, lands.
func TestPatchAnchoredAfterTheViewedLineChanged(t *testing.T) {
	t.Parallel()
	typed := "package p\n\nfunc f() int {\n\treturn 1\n}\n\nfunc g() {\n}\n"
	v, err := anchored.View(typed, 0, 0, anchored.Options{})
	if err != nil {
		t.Fatal(err)
	}
	stale := fmt.Sprintf(`[{"anchor": %q, "op": "replace", "text": "\treturn 2"}]`, v[3].Anchor)
	far := fmt.Sprintf(`[{"anchor": %q, "op": "replace", "text": "func g() error {", "expected": "func g() {"}]`, v[6].Anchor)
	srv := modeltest.New(
		modeltest.Text("```view_anchored a.go\n```\n\n", 5),
		modeltest.Text("Seen.", 50),
		modeltest.Text("```patch_anchored a.go\n"+stale+"\n```\n\n", 5),
		modeltest.Text("```patch_anchored a.go\n"+far+"\n```\n\n", 5),
		modeltest.Text("Done.", 50),
	)
	defer srv.Close()
	root := writeFiles(t, files)
	e := lsptest.Start(t, root, lsptest.Neovim07(), lsptest.InitOptions(map[string]any{"model": "m", "baseUrl": srv.URL, "tools": []string{"view_anchored", "patch_anchored"}}))
	e.OpenFile("a.go", "go")
	e.Type("a.go", typed)
	e.ExecuteCommand("agentls.ask", map[string]any{"prompt": "look at a.go"})
	e.Await(lsptest.ShownMessage("agent turn 1 done"))
	e.TypeAt("a.go", 3, 9, "2") // "\treturn 12"
	e.ExecuteCommand("agentls.ask", map[string]any{"prompt": "return 2"})
	changed := strings.Replace(typed, "\treturn 1", "\treturn 12", 1)
	e.Await(lsptest.ShownMessage("agent turn 2 done"), lsptest.BufferContent("a.go", strings.Replace(changed, "func g() {", "func g() error {", 1)))
	msgs := srv.Requests()[3].Body.Messages
	if got := msgs[len(msgs)-1].Content; !strings.Contains(got, "no line has this anchor") {
		t.Errorf("the patch on the changed line's old anchor was not refused as stale; the model read:\n%s", got)
	}
}
