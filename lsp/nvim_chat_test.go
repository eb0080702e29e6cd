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
	initLua := filepath.Join(t.TempDir(), "init.lua")
	setup := fmt.Sprintf("vim.opt.runtimepath:prepend(%q)\nrequire('agentls').setup({ settings = { maxSteps = 5 } })\n", plugin)
	if err := os.WriteFile(initLua, []byte(setup), 0o644); err != nil {
		t.Fatal(err)
	}
	script, _ := filepath.Abs("testdata/nvim/chat.lua")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, nvim, "--headless", "-u", initLua, "-i", "NONE", "-c", "luafile "+script)
	cmd.Dir = root
	cmd.Env = append(os.Environ(),
		pathWith(binDir),
		"AGENTLS_ROOT="+root,
		"OPENAI_BASE_URL="+srv.URL, "AGENTLS_MODEL=test-model", "OPENAI_API_KEY=test-key",
		"XDG_STATE_HOME="+t.TempDir(), "XDG_CACHE_HOME="+t.TempDir(), "XDG_CONFIG_HOME="+t.TempDir(), "XDG_DATA_HOME="+t.TempDir())
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "OK") {
		t.Fatalf("neovim: %v\n%s", err, out)
	}
}
