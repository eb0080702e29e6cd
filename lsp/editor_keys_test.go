package lsp_test

import (
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/modeltest"
	"github.com/agentls/agentls/lsp/lsptest"
)

// TestMessagesSpeakTheEditor: how a turn ended is said with the answer
// first (a status line shows only its first columns) and with this
// editor's way to undo it, not every editor's at once.
func TestMessagesSpeakTheEditor(t *testing.T) {
	t.Parallel()
	vscode := lsptest.VSCode()
	vscode.ClientInfo = map[string]string{"name": "Visual Studio Code", "version": "1.100.3"}
	emacs := lsptest.VSCode() // eglot 1.9 sends no clientInfo; agentls.el sets saveDocuments
	emacs.Name, emacs.ClientInfo = "eglot", nil
	for _, tc := range []struct {
		profile lsptest.Profile
		plugin  bool
		undo    string
	}{
		{lsptest.Neovim07(), true, "undo: :AgentUndo (agent turn 1)"},
		{lsptest.Neovim07(), false, `undo: the code action "Undo agent turn" (agent turn 1)`},
		{vscode, true, `undo: "Agent: Undo" (Command Palette) (agent turn 1)`},
		{lsptest.Helix(), false, "undo: space A u (agent turn 1)"},
		{emacs, true, "undo: M-x agentls-undo (agent turn 1)"},
	} {
		name := tc.profile.Name
		if !tc.plugin {
			name += "-no-plugin"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := modeltest.New(
				modeltest.Text("```patch a.go\n<<<<<<< ORIGINAL\ntype Config struct{}\n=======\ntype Settings struct{}\n>>>>>>> UPDATED\n```\n", 9),
				modeltest.Text("Renamed Config to Settings.", 9),
			)
			defer srv.Close()
			root := writeFiles(t, files)
			opts := map[string]any{"model": "test-model", "baseUrl": srv.URL}
			if tc.plugin {
				opts["saveDocuments"] = true
			}
			e := lsptest.Start(t, root, tc.profile, lsptest.InitOptions(opts))
			e.OpenFile("a.go", "go")
			if err := e.ExecuteCommand("agentls.ask", map[string]any{"prompt": "rename Config to Settings"}); err != nil {
				t.Fatal(err)
			}
			e.Await(lsptest.ShownMessage("agent turn 1 done"))
			var done string
			for _, m := range e.Messages() {
				if strings.Contains(m.Message, "agent turn 1 done") {
					done = m.Message
				}
			}
			if !strings.HasPrefix(done, "Renamed Config to Settings. — agentls: agent turn 1 done") || !strings.Contains(done, tc.undo) {
				t.Errorf("the turn's end reads %q; want the answer first and %q", done, tc.undo)
			}
			for _, other := range []string{":AgentUndo", "Agent: Undo", "space A u", "C-c a u", "agentls-undo", "agentls.turn.undo"} {
				if !strings.Contains(tc.undo, other) && strings.Contains(done, other) {
					t.Errorf("the turn's end names another editor's %q: %q", other, done)
				}
			}
		})
	}
}
