package lsp

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/agentls/agentls/agent"
)

// subagents are the child turns agent turn id may start (the subagent
// tool): the turn's own model, format and bound tools, so a child's edits
// go through the same workspace and are the turn's in the undo journal;
// its limits bound theirs and its hooks run around their calls; each child's conversation is logged beside the
// turn's, and its tool calls show on the turn's task, nested ("subagent
// 1: step 2: read a.go").
func (s *Server) subagents(ctx context.Context, t *task, id int, turn *agent.Turn, root string) *agent.Subagents {
	return &agent.Subagents{
		Model: turn.Model, Format: turn.Format, Registry: turn.Registry, Limits: turn.Limits, Hooks: turn.Hooks, Root: root,
		Slots: &s.subagentSlots, // bounded across the server's turns
		OpenLog: func(n int) (io.WriteCloser, error) {
			return agent.OpenSubagentLog(s.getenv, root, id, n, time.Now())
		},
		Observe: func(n int, e agent.Event) {
			if e.Kind == agent.EventToolStart {
				t.report(ctx, fmt.Sprintf("subagent %d: step %d: %s", n, e.Step, agent.DescribeUse(*e.Use)))
			}
		},
	}
}
