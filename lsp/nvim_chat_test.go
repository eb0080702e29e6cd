package lsp_test

import (
	"path/filepath"
	"testing"

	"github.com/agentls/agentls/agent/modeltest"
)

// TestNeovimChat: a chat document in real Neovim with the plugin — the
// reply streams in once, whole, though Neovim keeps a final newline on a
// line the reply has not ended yet, and undoing the turn rewinds the chat
// (testdata/nvim/chat.lua).
// Not in parallel: it drives a real editor under deadlines.
func TestNeovimChat(t *testing.T) {
	nvim := requireNvim(t)
	binDir := filepath.Dir(buildAgentls(t))
	srv := modeltest.New(
		modeltest.Text("I will rename it now.\n```patch a.go\n<<<<<<< ORIGINAL\ntype Config struct{}\n=======\ntype Settings struct{}\n>>>>>>> UPDATED\n```\n", 5),
		modeltest.Text("Renamed Config to Settings.", 5),
	)
	defer srv.Close()
	root := writeFiles(t, map[string]string{
		".git/HEAD": "ref: refs/heads/main\n",
		"a.go":      "package p\n\n// Config holds settings.\ntype Config struct{}\n",
	})
	root, _ = filepath.EvalSymlinks(root)
	plugin, _ := filepath.Abs("../editors/nvim")
	script, _ := filepath.Abs("testdata/nvim/chat.lua")
	runNvimPlugin(t, nvim, binDir, root, plugin, "settings = { maxSteps = 5 }", script,
		"OPENAI_BASE_URL="+srv.URL, "AGENTLS_MODEL=test-model", "OPENAI_API_KEY=test-key", "AGENTLS_PROMPT=full")
}
