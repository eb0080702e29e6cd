package lsptest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/lsp"
)

// TestServerEnv: a server reads its own folders over the process's
// environment, Env's variables over both ("" hides one), and a Getenv a
// test gave in ServerOptions as it is, under Env.
func TestServerEnv(t *testing.T) {
	// t.Setenv, not Env: what is tested is reading the process's own.
	t.Setenv("AGENTLS_TEST_FROM_PROCESS", "process")
	t.Setenv("XDG_STATE_HOME", "/the/user/state")
	dir := t.TempDir()
	given := func(key string) string { return "given " + key }
	tests := []struct {
		name string
		opts []Option
		want map[string]string
	}{
		{"own folders", nil, map[string]string{
			"XDG_STATE_HOME":            filepath.Join(dir, "state"),
			"XDG_CONFIG_HOME":           filepath.Join(dir, "config"),
			"XDG_CACHE_HOME":            filepath.Join(dir, "cache"),
			"AGENTLS_TEST_FROM_PROCESS": "process",
		}},
		{"Env over them", []Option{Env(map[string]string{"XDG_STATE_HOME": "/shared", "OPENAI_API_KEY": "k"}), Env(map[string]string{"AGENTLS_TEST_FROM_PROCESS": ""})}, map[string]string{
			"XDG_STATE_HOME":            "/shared",
			"XDG_CONFIG_HOME":           filepath.Join(dir, "config"),
			"OPENAI_API_KEY":            "k",
			"AGENTLS_TEST_FROM_PROCESS": "",
		}},
		{"a given Getenv", []Option{ServerOptions(lsp.Options{Getenv: given}), Env(map[string]string{"OPENAI_API_KEY": "k"})}, map[string]string{
			"XDG_STATE_HOME": "given XDG_STATE_HOME",
			"OPENAI_API_KEY": "k",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var cfg config
			for _, o := range tt.opts {
				o(&cfg)
			}
			getenv := cfg.serverEnv(dir)
			for key, want := range tt.want {
				if got := getenv(key); got != want {
					t.Errorf("%s = %q, want %q", key, got, want)
				}
			}
		})
	}
}

// TestServersDoNotShareState is the attack on tests run in parallel: one
// test's server applies a reply, and another's, on the same workspace,
// offers to undo it — the undo journal is kept in the state folder per
// workspace, so servers reading the process's XDG_STATE_HOME share it
// (and, with no TestMain, write into the user's own). Each server reads
// its own folders; two that should share one (a restart) say so with Env.
func TestServersDoNotShareState(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "a.go"), []byte("package p\n\ntype Config struct{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	const reply = "```patch a.go\n<<<<<<< ORIGINAL\ntype Config struct{}\n=======\ntype Settings struct{}\n>>>>>>> UPDATED\n```\n"
	first := Start(t, root, VSCode())
	if err := first.ExecuteCommand("agentls.applyReply", map[string]any{"text": reply}); err != nil {
		t.Fatal(err)
	}
	first.Await(ShownMessage("applied", "a.go"))
	first.Shutdown()

	undoTitles := func(e *Editor, path string) []string {
		var titles []string
		for _, a := range e.CodeActions(path, protocol.Range{}) {
			if strings.HasPrefix(a.Title, "Undo agent") {
				titles = append(titles, a.Title)
			}
		}
		return titles
	}
	other := Start(t, root, VSCode())
	other.OpenFile("a.go", "go")
	if titles := undoTitles(other, "a.go"); len(titles) > 0 {
		t.Errorf("another test's server offers %q: it read the first one's undo journal", titles)
	}

	// A restart that keeps its state: the same folder for both servers.
	shared := Env(map[string]string{"XDG_STATE_HOME": t.TempDir()})
	before := Start(t, root, VSCode(), shared)
	if err := before.ExecuteCommand("agentls.applyReply", map[string]any{"text": "```save b.go\npackage p\n```\n"}); err != nil {
		t.Fatal(err)
	}
	before.Await(ShownMessage("applied", "b.go"))
	before.Shutdown()
	after := Start(t, root, VSCode(), shared)
	after.OpenFile("b.go", "go")
	if titles := undoTitles(after, "b.go"); len(titles) == 0 {
		t.Error("a server given the same state folder does not offer the undo of the last session's turn")
	}
}
