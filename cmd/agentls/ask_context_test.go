package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/modeltest"
)

// TestAskRulesMentionsUsage: agentls ask sends AGENTS.md in the system
// prompt, attaches what @a.go and #git-diff name, and ends with the
// tokens and cost the turn took.
func TestAskRulesMentionsUsage(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.go"), []byte("package p\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "AGENTS.md"), []byte("Use tabs.\n"), 0o644)
	git := func(args ...string) {
		cmd := exec.Command("git", append([]string{"-c", "user.email=t@t", "-c", "user.name=t"}, args...)...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q")
	git("add", ".")
	git("commit", "-qm", "init")
	os.WriteFile(filepath.Join(dir, "a.go"), []byte("package p\n\nvar changed = 1\n"), 0o644)
	os.MkdirAll(filepath.Join(dir, ".agentls"), 0o755)
	os.WriteFile(filepath.Join(dir, ".agentls", "settings.json"), []byte(`{"prices": {"m": {"input": 1, "output": 1}}}`), 0o644)
	srv := modeltest.New(modeltest.Reply{Chunks: []modeltest.Chunk{{Text: "Looks fine."}}, Usage: &modeltest.Usage{PromptTokens: 2000, CompletionTokens: 500}})
	defer srv.Close()
	_, stderr, code := runCLI(t, "", "ask", "-C", dir, "--model", "m", "--base-url", srv.URL, "review @a.go against #git-diff")
	if code != exitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	for _, want := range []string{"[agentls] rules: AGENTS.md", "[agentls] mention @a.go: a.go (3 lines)", "[agentls] mention #git-diff: ", "done: 1 steps, 0 tool calls, 2,500 tokens, $0.0025"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	msgs := srv.Requests()[0].Body.Messages
	if sys := msgs[0].Content; !strings.Contains(sys, "## AGENTS.md\n\nUse tabs.") {
		t.Errorf("no rules in the system prompt")
	}
	if user := msgs[1].Content; !strings.Contains(user, "3\tvar changed = 1") || !strings.Contains(user, "+var changed = 1") {
		t.Errorf("the user's message lacks the file or the diff: %q", user)
	}
}
