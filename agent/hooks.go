package agent

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/agentls/agentls/internal/text"
	"github.com/agentls/agentls/tools"
)

// A Hook runs around every tool call of a turn, as gptme's
// TOOL_EXECUTE_PRE and TOOL_EXECUTE_POST do: Before may refuse a call
// (the model reads why; nothing ran), After sees how it went. Approvals
// are not hooks: what a command or an edit is asked about is known only
// once the tool has parsed the command or computed the diff, so they stay
// in the tools (procs/policy, edittool.ConfirmProtected), through the
// Workspace's Confirm.
type Hook struct {
	Name   string
	Before func(ctx context.Context, use tools.ToolUse) error
	After  func(ctx context.Context, call ToolCall)
}

// A ToolCall is one tool call as it ended.
type ToolCall struct {
	Use      tools.ToolUse
	Output   string
	Err      error
	Duration time.Duration
	// Outcome is how it ended beyond ok or failed, as the tool reported
	// it (tools.ReportOutcome): "exit 1", "timed out"; "" for none.
	Outcome string
}

// Summary is the call's timing line: "[shell] go test ./... 4.2 s, exit 1".
func (c ToolCall) Summary() string {
	what := DescribeUse(c.Use)
	if c.Use.Tool == tools.NameShell {
		if line, _, _ := strings.Cut(strings.TrimSpace(c.Use.Content), "\n"); line != "" {
			what = "shell " + clipWords(line, 60)
		}
	}
	parts := []string{formatDuration(c.Duration)}
	switch {
	case c.Err != nil:
		parts = append(parts, "failed: "+clipWords(firstLine(c.Err.Error()), 80))
	case c.Outcome != "":
		parts = append(parts, c.Outcome)
	}
	tool, rest, _ := strings.Cut(what, " ")
	if rest != "" {
		rest = " " + rest
	}
	return fmt.Sprintf("[%s]%s %s", tool, rest, strings.Join(parts, ", "))
}

// runHooked runs one call through the turn's hooks, timing it and
// collecting its outcome.
func (t *Turn) runHooked(ctx context.Context, use tools.ToolUse) ToolCall {
	call := ToolCall{Use: use}
	for _, h := range t.Hooks {
		if h.Before == nil {
			continue
		}
		if err := h.Before(ctx, use); err != nil {
			call.Err = tools.Unchanged(fmt.Errorf("refused before it ran (%s): %w", h.Name, err))
			t.after(ctx, call)
			return call
		}
	}
	start := time.Now()
	call.Output, call.Err = t.Runner.RunTool(tools.WithOutcome(ctx, func(o string) { call.Outcome = o }), use)
	call.Duration = time.Since(start)
	t.after(ctx, call)
	return call
}

func (t *Turn) after(ctx context.Context, call ToolCall) {
	for _, h := range t.Hooks {
		if h.After != nil {
			h.After(ctx, call)
		}
	}
}

// formatDuration is a duration as people read one: "3 ms", "4.2 s".
func formatDuration(d time.Duration) string {
	switch {
	case d < time.Millisecond:
		return "<1 ms"
	case d < time.Second:
		return fmt.Sprintf("%d ms", d.Milliseconds())
	case d < time.Minute:
		return fmt.Sprintf("%.1f s", d.Seconds())
	}
	return d.Round(time.Second).String()
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// clipWords shortens s to at most n bytes and a mark, at a character
// boundary.
func clipWords(s string, n int) string { return text.Shorten(s, n, "…") }
