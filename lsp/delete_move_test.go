package lsp_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/agentls/agentls/agent/modeltest"
	"github.com/agentls/agentls/lsp/lsptest"
)

// TestDeleteAndMoveInATurn: the delete and move tools reach the editor as
// one WorkspaceEdit (a DeleteFile, a RenameFile) under every profile, and
// undoing the turn brings both files back as they were.
func TestDeleteAndMoveInATurn(t *testing.T) {
	t.Parallel()
	files := map[string]string{"old.go": "package p\n\nfunc old() {}\n", "util.go": "package p\n\nfunc U() {}\n"}
	for _, p := range lsptest.Profiles() {
		t.Run(p.Name, func(t *testing.T) {
			t.Parallel()
			srv := modeltest.New(
				modeltest.Text("```delete old.go\n```\n", 9),
				modeltest.Text("```move util.go text/util.go\n```\n", 9),
				modeltest.Text("Removed old.go and moved util.go.", 9),
			)
			defer srv.Close()
			root := writeFiles(t, files)
			e := lsptest.Start(t, root, p, lsptest.InitOptions(map[string]any{"model": "m", "baseUrl": srv.URL}))
			if err := e.ExecuteCommand("agentls.ask", map[string]any{"prompt": "remove old.go, move util.go to text/"}); err != nil {
				t.Fatal(err)
			}
			e.Await(lsptest.ShownMessage("agent turn 1 done"))
			for _, gone := range []string{"old.go", "util.go"} {
				if _, err := os.Stat(filepath.Join(root, gone)); err == nil {
					t.Errorf("%s is still on disk", gone)
				}
			}
			if got := readFile(t, root, "text/util.go"); got != files["util.go"] {
				t.Errorf("text/util.go = %q", got)
			}
			if err := e.ExecuteCommand("agentls.turn.undo", map[string]any{"turn": 1}); err != nil {
				t.Fatal(err)
			}
			e.Await(lsptest.ShownMessage("undone"))
			for name, want := range files {
				if got := readFile(t, root, name); got != want {
					t.Errorf("after undo %s = %q, want %q", name, got, want)
				}
			}
			if _, err := os.Stat(filepath.Join(root, "text", "util.go")); err == nil {
				t.Error("after undo text/util.go is still there")
			}
		})
	}
}
