package mcp

import (
	"context"
	"testing"

	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/approval"
	"github.com/agentls/agentls/tools/toolstest"
)

// TestTurnOf: an MCP call reaches what the turn's Env says it has — the
// workspace's user and output, the Env's Progress — and nothing where the
// Env has nothing, where a type assertion on the workspace once decided
// whether progress was shown.
func TestTurnOf(t *testing.T) {
	var shown []string
	env := toolstest.Env(t.TempDir(), nil)
	env.Progress = func(msg string) { shown = append(shown, msg) }
	turn := TurnOf(env)
	if turn.Confirm == nil || turn.Output == nil || turn.Progress == nil {
		t.Fatalf("TurnOf(env) = %+v, want every part", turn)
	}
	turn.Progress("halfway")
	if len(shown) != 1 {
		t.Errorf("progress shown %q", shown)
	}
	if _, err := turn.Confirm.Confirm(context.Background(), approval.Question{}); err != approval.ErrNobodyToAsk {
		t.Errorf("Confirm: %v, want the workspace's", err)
	}
	if none := TurnOf(tools.Env{}); none.Confirm != nil || none.Output != nil || none.Progress != nil {
		t.Errorf("TurnOf(no Env) = %+v, want nothing", none)
	}
}
