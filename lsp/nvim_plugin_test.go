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

// TestNeovimPlugin runs the Neovim plugin (editors/nvim) in headless
// Neovim (Debian's 0.7.2 in CI), set up by an init.lua the way a user
// would, with the built server on PATH and the fake model behind
// OPENAI_BASE_URL: :AgentApply on a reply buffer and :undo, :AgentAsk and
// :AgentUndo, a selection's range, agentls/saveDocuments (the handler
// called directly, then sent by the server before an agent's command),
// progress, the output buffer and :help agentls
// (testdata/nvim/plugin_commands.lua).
// Not in parallel: it drives a real editor, whose script waits under
// deadlines that other tests' servers on the same cores must not eat into.
func TestNeovimPlugin(t *testing.T) {
	nvim := requireNvim(t)
	binDir := filepath.Dir(buildAgentls(t))
	// A copy of the plugin: the test builds its help tags, which the
	// repository does not keep.
	plugin := t.TempDir()
	if err := os.CopyFS(plugin, os.DirFS("../editors/nvim")); err != nil {
		t.Fatal(err)
	}
	srv := modeltest.New(
		modeltest.Text("Renaming.\n```patch b.go\n<<<<<<< ORIGINAL\nvar c Config\n=======\nvar c Settings\n>>>>>>> UPDATED\n```\n\n", 16),
		modeltest.Text("And the type.\n```patch a.go\n<<<<<<< ORIGINAL\ntype Config struct{}\n=======\ntype Settings struct{}\n>>>>>>> UPDATED\n```\n\n", 16),
		modeltest.Text("Renamed Config to Settings.", 16),
		modeltest.Text("Looked at the selection.", 16),
		modeltest.Text("```shell\ncat d.go\n```\n\n", 16),
		modeltest.Text("Saw the typed line.", 16),
	)
	defer srv.Close()
	root := writeFiles(t, map[string]string{
		".git/HEAD": "ref: refs/heads/main\n",
		"a.go":      "package p\n\n// Config holds settings — 😀 ok.\ntype Config struct{}\n",
		"b.go":      "package p\n\nvar c Config\n",
		"c.go":      "package p\n",
		"d.go":      "package p\n",
		"AGENTS.md": "Keep names short.\n",
	})
	root, _ = filepath.EvalSymlinks(root)
	reply := "Renaming Config.\n\n```patch_many\n=== PATH: a.go ===\n<<<<<<< ORIGINAL\ntype Config struct{}\n=======\ntype Settings struct{}\n>>>>>>> UPDATED\n\n=== PATH: b.go ===\n<<<<<<< ORIGINAL\nvar c Config\n=======\nvar c Settings\n>>>>>>> UPDATED\n```\n"
	script, _ := filepath.Abs("testdata/nvim/plugin_commands.lua")
	runNvimPlugin(t, nvim, binDir, root, plugin, "settings = { maxSteps = 5, commandAllowlist = { 'cat' } }", script,
		"AGENTLS_PLUGIN="+plugin, "AGENTLS_REPLY="+reply,
		"OPENAI_BASE_URL="+srv.URL, "AGENTLS_MODEL=test-model", "OPENAI_API_KEY=test-key", "AGENTLS_PROMPT=full")
	// The asks went to the fake model: the prompt as given; then the
	// characterwise selection, exactly.
	reqs := srv.Requests()
	if len(reqs) != 6 {
		t.Fatalf("%d model calls, want 6", len(reqs))
	}
	asked := func(i int) string { return reqs[i].Body.Messages[len(reqs[i].Body.Messages)-1].Content }
	if !strings.Contains(asked(0), "rename Config to Settings") {
		t.Errorf("the model was asked %q", asked(0))
	}
	if want := "explain this\n\nSelected in a.go, lines 3-3:\n```go\n😀 ok\n```"; !strings.Contains(asked(3), want) {
		t.Errorf("the model was asked %q, want %q in it", asked(3), want)
	}
	// The agent's command saw the buffer the plugin saved for it.
	if !strings.Contains(asked(5), "// typed before the command") {
		t.Errorf("the command's result was %q", asked(5))
	}
	// b.go was edited in its buffer only.
	if got := readFile(t, root, "b.go"); got != "package p\n\nvar c Config\n" {
		t.Errorf("b.go on disk = %q", got)
	}
}

// TestNeovimPluginWithoutAgentls sets the plugin up as a user would, with
// agentls on no PATH folder: opening a file (once) and :AgentAsk say that
// agentls was not found on PATH, where `go install ./cmd/agentls` puts
// it and how to fix it, naming the folder when agentls is there
// (testdata/nvim/missing_agentls.lua).
// Not in parallel: it drives a real editor, whose script waits under
// deadlines that other tests' servers on the same cores must not eat into.
func TestNeovimPluginWithoutAgentls(t *testing.T) {
	nvim := requireNvim(t)
	bin := buildAgentls(t)
	tests := []struct {
		name      string
		installed bool // agentls is in $GOPATH/bin, as go install leaves it
		want      string
	}{
		{"not installed", false, "run `go install ./cmd/agentls` in the agentls clone, which puts it in $(go env GOPATH)/bin"},
		{"installed off PATH", true, "(where `go install ./cmd/agentls` puts it), which is not on PATH. Add GOPATH/bin to PATH"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			gopath := t.TempDir()
			if tt.installed {
				if err := os.MkdirAll(filepath.Join(gopath, "bin"), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.Link(bin, filepath.Join(gopath, "bin", "agentls")); err != nil {
					t.Fatal(err)
				}
			}
			root := writeFiles(t, map[string]string{".git/HEAD": "ref: refs/heads/main\n", "reply.md": "# A reply\n", "notes.md": "# Notes\n"})
			initLua := filepath.Join(t.TempDir(), "init.lua")
			plugin, _ := filepath.Abs("../editors/nvim")
			setup := fmt.Sprintf("vim.opt.runtimepath:prepend(%q)\nrequire('agentls').setup({ settings = { model = 'gpt-4.1' } })\n", plugin)
			if err := os.WriteFile(initLua, []byte(setup), 0o644); err != nil {
				t.Fatal(err)
			}
			script, _ := filepath.Abs("testdata/nvim/missing_agentls.lua")
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, nvim, "--headless", "-u", initLua, "-i", "NONE", "-c", "luafile "+script)
			cmd.Dir = root
			want := strings.ReplaceAll(tt.want, "GOPATH/bin", filepath.Join(gopath, "bin"))
			cmd.Env = append(os.Environ(), pathWithout(t, "agentls"), "GOPATH="+gopath, "HOME="+t.TempDir(),
				"AGENTLS_ROOT="+root, "AGENTLS_WANT="+want,
				"XDG_STATE_HOME="+t.TempDir(), "XDG_CACHE_HOME="+t.TempDir(), "XDG_CONFIG_HOME="+t.TempDir(), "XDG_DATA_HOME="+t.TempDir())
			out, err := cmd.CombinedOutput()
			if err != nil || !strings.Contains(string(out), "OK") {
				t.Fatalf("neovim: %v\n%s", err, out)
			}
		})
	}
}
