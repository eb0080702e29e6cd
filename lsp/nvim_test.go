package lsp_test

import (
	"context"
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
func TestNeovimHeadless(t *testing.T) {
	nvim, err := exec.LookPath("nvim")
	if err != nil {
		if os.Getenv("AGENTLS_REQUIRE_NVIM") != "" {
			t.Fatal("nvim is not installed but AGENTLS_REQUIRE_NVIM is set")
		}
		t.Skip("nvim is not installed")
	}
	bin := filepath.Join(t.TempDir(), "agentls")
	if out, err := exec.Command("go", "build", "-o", bin, "../cmd/agentls").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
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
