package agent

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/modeltest"
	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/builtin"
)

// TestTurnRag: the model calls rag; its next request carries the file
// found and its passage, and the index is kept in the workspace's state
// folder.
func TestTurnRag(t *testing.T) {
	root, state := t.TempDir(), t.TempDir()
	for name, content := range map[string]string{
		"auth/token.go": "package auth\n\n// refreshToken renews an expired OAuth token.\nfunc refreshToken() {}\n",
		"main.go":       "package main\n\nfunc main() {}\n",
	} {
		if err := os.MkdirAll(filepath.Join(root, filepath.Dir(name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	getenv := func(k string) string {
		if k == "XDG_STATE_HOME" {
			return state
		}
		return ""
	}
	srv := modeltest.New(modeltest.Text("```rag\nwhere is the oauth token refreshed\n```\n", 100), modeltest.Text("done", 100))
	defer srv.Close()
	ws := dirWorkspace{memWorkspace: &memWorkspace{files: map[string]string{}}, root: root, opts: ToolOptions{Getenv: getenv}}
	bound := BindTools(builtin.Registry(), tools.Env{Workspace: ws}, noHost, testToolOptions(ws))
	turn := &Turn{Model: testModel(t, srv.URL, ModelConfig{Retries: 1}), Registry: bound, Format: tools.FormatMarkdown, Runner: Runner{Registry: bound}}
	if _, err := turn.Run(context.Background(), Request{Prompt: "find the token refresh"}); err != nil {
		t.Fatal(err)
	}
	got := srv.Requests()[1].Body.Messages[3].Content
	for _, want := range []string{"auth/token.go lines 1-4", "    3  // refreshToken renews an expired OAuth token."} {
		if !strings.Contains(got, want) {
			t.Errorf("the model was told %q, want it to hold %q", got, want)
		}
	}
	if strings.Contains(got, "main.go") {
		t.Errorf("the model was told of main.go, which does not match: %q", got)
	}
	saved, _ := filepath.Glob(filepath.Join(state, "agentls", "rag", "*", "index.gob"))
	if len(saved) != 1 {
		t.Errorf("index files in the state folder: %v, want one", saved)
	}
}

// TestSetupEnvReachesTools: what a front-end has beyond its Workspace
// (Setup's Buffers: an editor's unsaved text) reaches the tools through
// the Env BindTools binds them in, and nothing of it without.
func TestSetupEnvReachesTools(t *testing.T) {
	root, state := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "a.go"), []byte("package a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	getenv := func(k string) string {
		if k == "XDG_STATE_HOME" {
			return state
		}
		return ""
	}
	ws := dirWorkspace{memWorkspace: &memWorkspace{files: map[string]string{}}, root: root, opts: ToolOptions{Getenv: getenv}}
	use := tools.ToolUse{Tool: tools.NameRag, Content: "unsavedWord"}
	for _, tc := range []struct {
		name  string
		setup Setup
		found bool
	}{
		{"with the editor's buffers", Setup{Workspace: ws, Buffers: func() map[string]string { return map[string]string{"a.go": "package a\n// unsavedWord\n"} }}, true},
		{"without", Setup{Workspace: ws}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bound := BindTools(builtin.Registry(), tc.setup.Env(), noHost, testToolOptions(ws))
			got, err := Runner{Registry: bound}.RunTool(context.Background(), use)
			if err != nil || strings.Contains(got, "a.go") != tc.found {
				t.Errorf("rag: %q, %v; want a.go found %v", got, err, tc.found)
			}
		})
	}
}
