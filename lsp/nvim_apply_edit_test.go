package lsp_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
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
	initLua := filepath.Join(t.TempDir(), "init.lua")
	setup := fmt.Sprintf("vim.opt.runtimepath:prepend(%q)\nrequire('agentls').setup({})\n", plugin)
	if err := os.WriteFile(initLua, []byte(setup), 0o644); err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(plugin, "test", "apply_edit_end.lua")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, nvim, "--headless", "-u", initLua, "-i", "NONE", "-c", "luafile "+script)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), pathWith(binDir), "AGENTLS_ROOT="+root,
		"XDG_STATE_HOME="+t.TempDir(), "XDG_CACHE_HOME="+t.TempDir(), "XDG_CONFIG_HOME="+t.TempDir(), "XDG_DATA_HOME="+t.TempDir())
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "OK") {
		t.Fatalf("neovim: %v\n%s", err, out)
	}
}
