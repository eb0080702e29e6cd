package lsp_test

import (
	"path/filepath"
	"testing"
)

// TestNeovimApplyEditAtEnd sends the Neovim plugin's workspace/applyEdit
// handler inserts at the end of a buffer, past its final newline (where a
// streamed chat reply grows): each buffer must hold exactly the text
// sent. Neovim 0.11 appends such an insert as whole lines, so one ending
// in "\n" gained an empty line, the server took the edit for skipped and
// sent it again, and the chat showed the reply twice
// (editors/nvim/test/apply_edit_end.lua; run it against a 0.11 with
// AGENTLS_NVIM).
// Not in parallel: it drives a real editor under deadlines.
func TestNeovimApplyEditAtEnd(t *testing.T) {
	nvim := requireNvim(t)
	binDir := filepath.Dir(buildAgentls(t))
	root := writeFiles(t, map[string]string{".git/HEAD": "ref: refs/heads/main\n", "a.go": "package p\n"})
	root, _ = filepath.EvalSymlinks(root)
	plugin, _ := filepath.Abs("../editors/nvim")
	runNvimPlugin(t, nvim, binDir, root, plugin, "", filepath.Join(plugin, "test", "apply_edit_end.lua"))
}
