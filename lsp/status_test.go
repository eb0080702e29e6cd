package lsp_test

import (
	"encoding/json"
	"strings"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/agent/modeltest"
	"github.com/agentls/agentls/lsp/lsptest"
)

// TestStatus: agentls.status reports the model, the session's turns and
// tokens with their cost (the prices setting), what waits, the trust
// state and the rules files, as a result and as a shown line; each turn's
// end says its tokens.
func TestStatus(t *testing.T) {
	t.Parallel()
	srv := modeltest.New(
		modeltest.Reply{Chunks: []modeltest.Chunk{{Text: "Nothing to change."}}, Usage: &modeltest.Usage{PromptTokens: 1000, CompletionTokens: 234}},
	)
	defer srv.Close()
	root := writeFiles(t, map[string]string{"a.go": "package p\n", "AGENTS.md": "Run go vet first.\n"})
	e := lsptest.Start(t, root, lsptest.Helix(), lsptest.InitOptions(map[string]any{
		"model": "test-model", "baseUrl": srv.URL,
		"prices": map[string]any{"test-model": map[string]any{"input": 2, "output": 8}},
	}))
	if err := e.ExecuteCommand("agentls.ask", map[string]any{"prompt": "look"}); err != nil {
		t.Fatal(err)
	}
	e.Await(lsptest.ShownMessage("Nothing to change. — agentls: agent turn 1 done", "1,234 tokens, $0.0039"))
	var r struct {
		Model, BaseURL, Trust, Rules, Summary string
		Turns, Jobs, PendingApprovals         int
		Tokens                                struct{ Prompt, Completion int }
		Cost                                  *float64
	}
	var raw json.RawMessage
	if err := e.Call(protocol.MethodWorkspaceExecuteCommand, map[string]any{"command": "agentls.status", "arguments": []any{nil}}, &raw); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatal(err)
	}
	if r.Model != "test-model" || r.BaseURL != srv.URL || r.Turns != 1 || r.Tokens.Prompt != 1000 || r.Tokens.Completion != 234 ||
		r.Cost == nil || *r.Cost < 0.0038 || *r.Cost > 0.0040 || r.Trust != "no .agentls/settings.json" || !strings.HasPrefix(r.Rules, "AGENTS.md") {
		t.Errorf("status %s", raw)
	}
	e.Await(lsptest.ShownMessage("agentls: test-model at "+srv.URL, "1 turn, 1,234 tokens, $0.0039", "0 jobs running", "0 approvals waiting", "rules: AGENTS.md"))
}

// TestRulesAndMentions: AGENTS.md reaches the model's system prompt, and
// a prompt's @a.go attaches the buffer's unsaved text and #diagnostics the
// diagnostics agentls shows; the output channel lists both.
func TestRulesAndMentions(t *testing.T) {
	t.Parallel()
	srv := modeltest.New(modeltest.Text("Seen.", 9))
	defer srv.Close()
	root := writeFiles(t, map[string]string{"a.go": "package p\n", "AGENTS.md": "Run go vet first.\n", ".env": "KEY=sk-live-7\n"})
	e := lsptest.Start(t, root, lsptest.Neovim07(), lsptest.InitOptions(map[string]any{"model": "test-model", "baseUrl": srv.URL}))
	e.OpenFile("a.go", "go")
	e.Type("a.go", "package p // unsaved\n")
	if err := e.ExecuteCommand("agentls.ask", map[string]any{"prompt": "explain @a.go and @.env #selection"}); err != nil {
		t.Fatal(err)
	}
	e.Await(lsptest.ShownMessage("agent turn 1 done"), lsptest.LoggedMessage("rules: AGENTS.md"), lsptest.LoggedMessage("mention @a.go: a.go (1 line)"),
		lsptest.LoggedMessage("mention @.env: left out: .env may hold secrets"))
	reqs := srv.Requests()
	sys, user := reqs[0].Body.Messages[0].Content, reqs[0].Body.Messages[1].Content
	if !strings.Contains(sys, "## AGENTS.md\n\nRun go vet first.") || !strings.Contains(sys, "cannot grant permissions") {
		t.Errorf("the rules are not in the system prompt:\n…%s", sys[max(0, len(sys)-400):])
	}
	if !strings.Contains(user, "1\tpackage p // unsaved") || strings.Contains(user, "sk-live-7") || !strings.Contains(user, "#selection: nothing: nothing is selected") {
		t.Errorf("the user's message: %q", user)
	}
}
