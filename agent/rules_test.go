package agent

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/builtin"
)

func writeFiles(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// envSecret stands in for the policy's secret rule.
func envSecret(abs string) string {
	if strings.HasPrefix(filepath.Base(abs), ".env") {
		return "may hold secrets"
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil && strings.HasPrefix(filepath.Base(real), ".env") {
		return "may hold secrets"
	}
	return ""
}

// TestLoadRules: which rules files a turn gets, in which order, and what
// is left out and why.
func TestLoadRules(t *testing.T) {
	root := t.TempDir()
	user := filepath.Join(t.TempDir(), "AGENTS.md")
	writeFiles(t, root, map[string]string{
		"AGENTS.md":                       "Run go test ./... before you finish.",
		"CLAUDE.md":                       "Prefer table tests.",
		".github/copilot-instructions.md": "Use gofmt.",
		"pkg/sub/AGENTS.md":               "In sub, errors are wrapped.",
		"other/AGENTS.md":                 "not on the way down",
		"docs/STYLE.md":                   "Short sentences.",
		".env":                            "API_KEY=sk-live-123",
		"gptme.toml":                      "files = [\"README.md\",\n  'docs/STYLE.md']\n[agent]\nfiles = [\"nope.md\"]\n",
		"README.md":                       "The readme.",
		"empty/AGENTS.md":                 "  \n",
	})
	writeFiles(t, filepath.Dir(user), map[string]string{"AGENTS.md": "Answer in British English."})
	outside := filepath.Join(t.TempDir(), "secret.md")
	writeFiles(t, filepath.Dir(outside), map[string]string{"secret.md": "outside"})
	if err := os.Symlink(outside, filepath.Join(root, "pkg", "AGENTS.md")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(root, ".env"), filepath.Join(root, "NOTES.md")); err != nil {
		t.Fatal(err)
	}
	rules := LoadRules(RulesOptions{
		Root: root, From: filepath.Join(root, "pkg", "sub"), UserFile: user, Secret: envSecret,
		Extra: []string{".env", "NOTES.md", "../etc/passwd", "/etc/passwd", "missing.md"},
	})
	summary := rules.Summary()
	want := user + ", AGENTS.md, CLAUDE.md, .github/copilot-instructions.md, pkg/sub/AGENTS.md, README.md, docs/STYLE.md; left out: pkg/AGENTS.md (leads outside the workspace), .env (may hold secrets), NOTES.md (may hold secrets), ../etc/passwd (is not a path inside the workspace), /etc/passwd (is not a path inside the workspace)"
	if summary != want {
		t.Errorf("summary\n got %s\nwant %s", summary, want)
	}
	prompt := rules.Prompt()
	for _, s := range []string{"cannot grant permissions", "## AGENTS.md\n\nRun go test", "## pkg/sub/AGENTS.md\n\nIn sub, errors are wrapped.", "Answer in British English."} {
		if !strings.Contains(prompt, s) {
			t.Errorf("the prompt lacks %q:\n%s", s, prompt)
		}
	}
	for _, s := range []string{"sk-live-123", "outside", "not on the way down", "nope.md"} {
		if strings.Contains(prompt, s) {
			t.Errorf("the prompt holds %q:\n%s", s, prompt)
		}
	}
	if strings.Index(prompt, "## AGENTS.md") > strings.Index(prompt, "## pkg/sub/AGENTS.md") {
		t.Error("the nearest rules file does not come last")
	}
}

// TestRulesBounded: a long rules file is clipped on a character boundary
// and says so; all files together stay within the bound.
func TestRulesBounded(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, map[string]string{
		"AGENTS.md": strings.Repeat("é", maxRuleBytes), // two bytes a character
		"CLAUDE.md": strings.Repeat("b", maxRuleBytes),
		"x.md":      strings.Repeat("c", maxRuleBytes),
	})
	rules := LoadRules(RulesOptions{Root: root, Extra: []string{"x.md"}})
	total := 0
	for _, f := range rules {
		total += len(f.Text)
		if !strings.HasPrefix(f.Text, "c") && !strings.HasPrefix(f.Text, "b") && !strings.HasSuffix(f.Text, "é") {
			t.Errorf("%s cut inside a character", f.Path)
		}
	}
	if total > maxRulesBytes {
		t.Errorf("%d bytes of rules, bound %d", total, maxRulesBytes)
	}
	if !rules[0].Clipped || !strings.Contains(rules.Prompt(), "the rest of this file was left out") {
		t.Errorf("clipping not said: %s", rules.Summary())
	}
	if got := LoadRules(RulesOptions{Root: t.TempDir()}); got.Prompt() != "" || got.Summary() != "none" {
		t.Errorf("no rules: %q, %q", got.Prompt(), got.Summary())
	}
}

// TestRulesReachTheModel: the rules section ends the system prompt, and
// what mentions attached follows the prompt in the user's message.
func TestRulesReachTheModel(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, map[string]string{"AGENTS.md": "Always run go vet.", "a.go": "package a\n"})
	req := Request{Prompt: "fix @a.go", Root: root, Rules: LoadRules(RulesOptions{Root: root}).Prompt()}
	req.Attached, _ = ExpandMentions(context.Background(), MentionSource{Root: root}, req.Prompt)
	msgs := Messages(builtin.Registry(), tools.FormatMarkdown, req)
	if sys := msgs[0].Content; !strings.HasSuffix(strings.TrimSpace(sys), "Always run go vet.") {
		t.Errorf("the system prompt does not end with the rules:\n…%s", sys[max(0, len(sys)-300):])
	}
	if user := msgs[len(msgs)-1].Content; !strings.HasPrefix(user, "fix @a.go\n") || !strings.Contains(user, "1\tpackage a") {
		t.Errorf("the user's message: %q", user)
	}
}
