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

// TestNeovimHeadless drives a real Neovim (Debian's 0.7.2 in CI) against
// the built server. It is skipped where nvim is missing, unless
// AGENTLS_REQUIRE_NVIM is set (CI sets it, so it cannot be skipped there).
// Not in parallel: it drives a real editor, whose script waits under
// deadlines that other tests' servers on the same cores must not eat into.
func TestNeovimHeadless(t *testing.T) {
	nvim := requireNvim(t)
	bin := buildAgentls(t)
	root := writeFiles(t, map[string]string{
		"a.go":     "package p\n\n// Config holds settings.\ntype Config struct{}\n",
		"b.go":     "package p\n\nvar c Config\n",
		"reply.md": "Renaming Config.\n\n```patch_many\n=== PATH: a.go ===\n<<<<<<< ORIGINAL\ntype Config struct{}\n=======\ntype Settings struct{}\n>>>>>>> UPDATED\n\n=== PATH: b.go ===\n<<<<<<< ORIGINAL\nvar c Config\n=======\nvar c Settings\n>>>>>>> UPDATED\n```\n\n```save c.go\npackage p\n\nfunc New() {}\n```\n",
	})
	script, _ := filepath.Abs("testdata/nvim/apply.lua")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, nvim, "--headless", "-u", "NONE", "-i", "NONE", "-c", "luafile "+script)
	cmd.Env = append(os.Environ(), "AGENTLS_BIN="+bin, "AGENTLS_ROOT="+root, "XDG_STATE_HOME="+t.TempDir(), "XDG_CACHE_HOME="+t.TempDir())
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "OK") {
		t.Fatalf("neovim: %v\n%s", err, out)
	}
	// The files on disk are untouched: the edit went to the buffers.
	if data, _ := os.ReadFile(filepath.Join(root, "a.go")); !strings.Contains(string(data), "type Config struct{}") {
		t.Errorf("a.go on disk = %q", data)
	}
}

// TestNeovimReadmeSetup runs each of the README's Neovim set-ups (the
// plugin's, with the clone's path for ~/src/agentls, and the plain-LSP
// one) as init.lua with the built binary on PATH: one server per project,
// attached to every buffer of it (testdata/nvim/readme.lua).
// Not in parallel: it drives a real editor, whose script waits under
// deadlines that other tests' servers on the same cores must not eat into.
func TestNeovimReadmeSetup(t *testing.T) {
	nvim := requireNvim(t)
	blocks := readmeBlocks(t, "**Neovim**", "**Helix**", "lua")
	if len(blocks) != 2 {
		t.Fatalf("want the plugin's and the plain Lua blocks in the README's Neovim section, found %d", len(blocks))
	}
	clone, _ := filepath.Abs("..")
	blocks[0] = strings.ReplaceAll(blocks[0], "~/src/agentls", clone)
	binDir := filepath.Dir(buildAgentls(t))
	for i, block := range blocks {
		t.Run([]string{"plugin", "plain"}[i], func(t *testing.T) {
			root := writeFiles(t, map[string]string{".git/HEAD": "ref: refs/heads/main\n", "a.go": "package p\n", "b.go": "package p\n"})
			root, _ = filepath.EvalSymlinks(root)
			initLua := filepath.Join(t.TempDir(), "init.lua")
			if err := os.WriteFile(initLua, []byte(block), 0o644); err != nil {
				t.Fatal(err)
			}
			script, _ := filepath.Abs("testdata/nvim/readme.lua")
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, nvim, "--headless", "-u", initLua, "-i", "NONE", "-c", "luafile "+script)
			cmd.Dir = t.TempDir() // not the project: the root must come from .git
			cmd.Env = append(os.Environ(), pathWith(binDir), "AGENTLS_ROOT="+root, "XDG_STATE_HOME="+t.TempDir(), "XDG_CACHE_HOME="+t.TempDir())
			out, err := cmd.CombinedOutput()
			if err != nil || !strings.Contains(string(out), "OK") {
				t.Fatalf("neovim: %v\n%s", err, out)
			}
		})
	}
}

// requireNvim returns nvim's path: AGENTLS_NVIM when set (a developer's
// own Neovim, say a 0.11 next to Debian's 0.7.2), else nvim from PATH.
// Where nvim is missing the test is skipped, unless AGENTLS_REQUIRE_NVIM
// is set (CI sets it, so it cannot be skipped there).
func requireNvim(t *testing.T) string {
	t.Helper()
	name := "nvim"
	if given := os.Getenv("AGENTLS_NVIM"); given != "" {
		name = given
	}
	nvim, err := exec.LookPath(name)
	if err != nil && name != "nvim" {
		t.Fatalf("AGENTLS_NVIM=%s cannot be run (%v): give the path of an nvim executable, or unset it to use nvim from PATH", name, err)
	}
	if err != nil {
		if os.Getenv("AGENTLS_REQUIRE_NVIM") != "" {
			t.Fatal("nvim is not installed but AGENTLS_REQUIRE_NVIM is set")
		}
		t.Skip("nvim is not installed")
	}
	return nvim
}

// runNvimPlugin runs a Lua script in headless Neovim set up with the
// plugin at plugin (setup({settings})), in root, with the built
// agentls's folder first on PATH and XDG folders of the test's own; env
// adds to the environment. The script prints OK, or FAIL and exits
// non-zero; the test fails with Neovim's output unless OK came. It
// returns that output.
func runNvimPlugin(t *testing.T, nvim, binDir, root, plugin, settings, script string, env ...string) string {
	t.Helper()
	initLua := filepath.Join(t.TempDir(), "init.lua")
	setup := fmt.Sprintf("vim.opt.runtimepath:prepend(%q)\nrequire('agentls').setup({%s})\n", plugin, settings)
	if err := os.WriteFile(initLua, []byte(setup), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, nvim, "--headless", "-u", initLua, "-i", "NONE", "-c", "luafile "+script)
	cmd.Dir = root
	cmd.Env = append(append(os.Environ(), pathWith(binDir), "AGENTLS_ROOT="+root,
		"XDG_STATE_HOME="+t.TempDir(), "XDG_CACHE_HOME="+t.TempDir(), "XDG_CONFIG_HOME="+t.TempDir(), "XDG_DATA_HOME="+t.TempDir()), env...)
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "OK") {
		t.Fatalf("neovim: %v\n%s", err, out)
	}
	return string(out)
}
