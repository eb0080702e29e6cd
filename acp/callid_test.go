package acp

import (
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agentls/agentls/agent/modeltest"
)

// TestToolCallIDsUniqueInSession: a tool call's id names it for the whole
// session (ACP: "unique within the session"), so a second turn's calls
// must not reuse the first turn's ids. agent-shell keeps every call of a
// session by its id and merges a reused id into the old call (its diffs,
// its group), which showed a later command with an earlier edit's state.
func TestToolCallIDsUniqueInSession(t *testing.T) {
	srv := modeltest.New(
		modeltest.Text("```save a.txt\none\n```\n", 7), modeltest.Text("Saved.", 5),
		modeltest.Text("```save b.txt\ntwo\n```\n", 7), modeltest.Text("Saved again.", 5))
	defer srv.Close()
	client := &fakeClient{}
	conn, id, _ := connect(t, srv.URL, client, true)
	seen := map[sdk.ToolCallId]int{}
	for turn, text := range []string{"write a", "write b"} {
		if stop := prompt(t, conn, id, sdk.TextBlock(text)); stop != sdk.StopReasonEndTurn {
			t.Fatalf("turn %d: stop reason %q", turn+1, stop)
		}
		starts := 0
		for _, u := range client.takeUpdates() {
			if u.ToolCall == nil {
				continue
			}
			starts++
			if earlier, ok := seen[u.ToolCall.ToolCallId]; ok {
				t.Errorf("turn %d's tool call reuses id %q of turn %d", turn+1, u.ToolCall.ToolCallId, earlier)
			}
			seen[u.ToolCall.ToolCallId] = turn + 1
		}
		if starts != 1 {
			t.Errorf("turn %d: %d tool calls, want 1", turn+1, starts)
		}
	}
}
