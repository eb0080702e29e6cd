package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/jsonrpc2"
)

// TestCommandsAreDocumented: every command of the table is in the README,
// and a VS Code palette command runs it (editors/vscode/src/commands.ts);
// no name is declared twice.
func TestCommandsAreDocumented(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	vscode, err := os.ReadFile(filepath.Join("..", "editors", "vscode", "src", "commands.ts"))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, c := range commandTable() {
		if seen[c.name] {
			t.Errorf("%s is declared twice", c.name)
		}
		seen[c.name] = true
		if !strings.Contains(string(readme), "`"+c.name+"`") {
			t.Errorf("the README does not document %s", c.name)
		}
		if !strings.Contains(string(vscode), "server: '"+c.name+"'") {
			t.Errorf("no VS Code palette command runs %s", c.name)
		}
		if c.args == "" || c.run == nil {
			t.Errorf("%s has no argument shape or handler", c.name)
		}
	}
}

// TestCommandArguments: an argument of the wrong shape is refused with the
// command's own description of it, before its handler runs; an unknown
// command names the known ones.
func TestCommandArguments(t *testing.T) {
	t.Parallel()
	s := newServer(Options{})
	for _, tc := range []struct {
		command, arg, want string
	}{
		{cmdAsk, `"fix it"`, "agentls.ask takes {prompt, uri?, range?}: json: cannot unmarshal string"},
		{cmdUndo, `{"turn": "last"}`, "agentls.turn.undo takes {turn?}: json: cannot unmarshal string"},
		{cmdJobsKill, `[1]`, "agentls.jobs.kill takes {job}: json: cannot unmarshal array"},
		{"agentls.nope", `{}`, "unknown command agentls.nope (known: agentls.ask, agentls.applyReply"},
	} {
		_, err := s.executeCommand(context.Background(), &executeCommandParams{Command: tc.command, Arguments: []json.RawMessage{json.RawMessage(tc.arg)}})
		var je *jsonrpc2.Error
		if !errors.As(err, &je) || je.Code != jsonrpc2.InvalidParams || !strings.Contains(je.Message, tc.want) {
			t.Errorf("%s %s: %v, want InvalidParams with %q", tc.command, tc.arg, err, tc.want)
		}
	}
}
