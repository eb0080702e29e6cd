package agent

import (
	"context"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/modeltest"
	"github.com/agentls/agentls/settings"
	"github.com/agentls/agentls/tools"
)

// TestTurnUsage: a turn adds up its model calls' tokens: the server's
// count where it sent one, an estimate where it did not (a reply cut after
// its first tool call never gets the count), and says which.
func TestTurnUsage(t *testing.T) {
	srv := modeltest.New(
		modeltest.Text("```save a.txt\nhello\n```\n", 7),
		modeltest.Reply{Chunks: []modeltest.Chunk{{Text: "Saved."}}, Usage: &modeltest.Usage{PromptTokens: 900, CompletionTokens: 3}},
	)
	defer srv.Close()
	turn := newTurn(t, srv, tools.FormatMarkdown, &recordingRunner{})
	var during []Usage
	turn.Observe = func(e Event) {
		if e.Kind == EventReply {
			during = append(during, turn.Usage())
		}
	}
	if _, err := turn.Run(context.Background(), Request{Prompt: "save hello to a.txt"}); err != nil {
		t.Fatal(err)
	}
	got := turn.Usage()
	if len(during) != 2 || during[0].Total() == 0 || !during[0].Estimated {
		t.Fatalf("usage seen at each reply: %+v; want an estimate after the first", during)
	}
	first := during[0]
	if want := first.Add(Usage{Prompt: 900, Completion: 3}); got != want {
		t.Errorf("turn usage %+v, want %+v (the estimate, then the server's count)", got, want)
	}
	if line := CostLine(got, &settings.Price{Input: 2, Output: 8}); !strings.HasPrefix(line, "~") || !strings.Contains(line, " tokens, ~$") {
		t.Errorf("cost line %q", line)
	}
	if line := CostLine(Usage{Prompt: 1_000_000, Completion: 500_000}, &settings.Price{Input: 2, Output: 8}); line != "1,500,000 tokens, $6.0000" {
		t.Errorf("cost line %q, want 1,500,000 tokens, $6.0000", line)
	}
}
