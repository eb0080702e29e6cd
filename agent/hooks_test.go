package agent

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentls/agentls/agent/modeltest"
	"github.com/agentls/agentls/tools"
)

func TestToolCallSummary(t *testing.T) {
	for _, tc := range []struct {
		call ToolCall
		want string
	}{
		{ToolCall{Use: tools.ToolUse{Tool: "read", Args: []string{"a.go"}}, Duration: 3 * time.Millisecond}, "[read] a.go 3 ms"},
		{ToolCall{Use: tools.ToolUse{Tool: "shell", Content: "go test ./...\necho done\n"}, Duration: 4200 * time.Millisecond, Outcome: "exit 1"}, "[shell] go test ./... 4.2 s, exit 1"},
		{ToolCall{Use: tools.ToolUse{Tool: "patch", Args: []string{"a.go"}}, Duration: 12 * time.Millisecond, Err: errors.New("patch a.go: no match\nmore")}, "[patch] a.go 12 ms, failed: patch a.go: no match"},
		{ToolCall{Use: tools.ToolUse{Tool: "save", Args: []string{"b.go"}}, Duration: 200 * time.Microsecond}, "[save] b.go <1 ms"},
		{ToolCall{Use: tools.ToolUse{Tool: "shell", Content: "sleep 100"}, Duration: 125 * time.Second, Outcome: "timed out"}, "[shell] sleep 100 2m5s, timed out"},
	} {
		if got := tc.call.Summary(); got != tc.want {
			t.Errorf("Summary() = %q, want %q", got, tc.want)
		}
	}
}

// TestHooks: a Before hook refuses a call (the tool does not run, the
// model reads why and the turn goes on); After sees every call as it
// ended, with its duration and the outcome the tool reported.
func TestHooks(t *testing.T) {
	srv := modeltest.New(
		modeltest.Text("```shell\nrm -rf build\n```\n", 7),
		modeltest.Text("```shell\nmake\n```\n", 7),
		modeltest.Text("Built.", 4),
	)
	defer srv.Close()
	runner := &recordingRunner{answer: func(tools.ToolUse) (string, error) { return "ok", nil }}
	reporting := runnerFunc(func(ctx context.Context, use tools.ToolUse) (string, error) {
		time.Sleep(2 * time.Millisecond)
		tools.ReportOutcome(ctx, "exit 0")
		return runner.RunTool(ctx, use)
	})
	turn := newTurn(t, srv, tools.FormatMarkdown, reporting)
	var mu sync.Mutex
	var seen []ToolCall
	turn.Hooks = []Hook{{
		Name: "no rm",
		Before: func(_ context.Context, use tools.ToolUse) error {
			if strings.Contains(use.Content, "rm ") {
				return errors.New("this workspace keeps its build folder")
			}
			return nil
		},
		After: func(_ context.Context, c ToolCall) {
			mu.Lock()
			defer mu.Unlock()
			seen = append(seen, c)
		},
	}}
	if _, err := turn.Run(context.Background(), Request{Prompt: "build"}); err != nil {
		t.Fatal(err)
	}
	if len(runner.uses) != 1 || strings.TrimSpace(runner.uses[0].Content) != "make" {
		t.Errorf("ran %+v, want make only", runner.uses)
	}
	if len(seen) != 2 {
		t.Fatalf("After saw %d calls, want 2", len(seen))
	}
	if seen[0].Err == nil || !strings.Contains(seen[0].Err.Error(), "refused before it ran (no rm): this workspace keeps its build folder") {
		t.Errorf("the refused call: %+v", seen[0])
	}
	if seen[1].Err != nil || seen[1].Outcome != "exit 0" || seen[1].Duration < 2*time.Millisecond {
		t.Errorf("the call that ran: %+v", seen[1])
	}
	// The model read the refusal.
	msgs := srv.Requests()[1].Body.Messages
	if last := msgs[len(msgs)-1].Content; !strings.Contains(last, "this workspace keeps its build folder") {
		t.Errorf("the model read %q", last)
	}
}
