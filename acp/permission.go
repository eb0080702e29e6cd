package acp

import (
	"context"
	"errors"
	"fmt"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agentls/agentls/tools/approval"
)

// The options of every question, as ACP names them; "always" is offered
// only for a question with a pattern to remember. Each option's id is its
// kind: avante.nvim's inline buttons pick an option by comparing its id
// with a kind name, and a hyphenated id made its Allow button answer
// reject (seen on the wire).
const (
	optAllowOnce    = "allow_once"
	optAllowAlways  = "allow_always"
	optRejectOnce   = "reject_once"
	optRejectAlways = "reject_always"
)

// asker puts a turn's questions to the client as
// session/request_permission, on the call that asks. Its answers map
// onto the approval gate's: allow once is Run, allow always is Always
// (the gate keeps the pattern where the tool keeps it: the shell host's
// policy and its always-file), reject once is Skip, and reject always is
// Skip, remembered by the session so the same pattern is refused
// unasked from then on. A client that cancels the question (the user
// cancelled the turn) stops the turn.
type asker struct {
	s     *session
	calls *tracker
}

func (a *asker) Confirm(ctx context.Context, q approval.Question) (approval.Answer, error) {
	key := q.Pattern
	if key == "" {
		key = q.Action
	}
	a.s.mu.Lock()
	rejected := a.s.rejected[key]
	a.s.mu.Unlock()
	if rejected {
		return approval.Skip, nil
	}
	if secs := a.s.set.ApprovalTimeout; secs > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, time.Duration(secs)*time.Second, approval.ErrTimedOut)
		defer cancel()
	}
	c, own := a.calls.running(q.What())
	ans, err := a.ask(ctx, q, key, c)
	if own {
		// A question outside any call is a call of its own: it ends
		// with the answer.
		status := sdk.ToolCallStatusCompleted
		if err != nil || (ans != approval.Run && ans != approval.Always) {
			status = sdk.ToolCallStatusFailed
		}
		a.calls.send(sdk.UpdateToolCall(c.id, sdk.WithUpdateStatus(status)))
	}
	return ans, err
}

// ask puts q to the client on call c and maps its answer.
func (a *asker) ask(ctx context.Context, q approval.Question, key string, c *call) (approval.Answer, error) {
	options := []sdk.PermissionOption{{Kind: sdk.PermissionOptionKindAllowOnce, Name: "Allow once", OptionId: optAllowOnce}}
	if q.Pattern != "" {
		options = append(options, sdk.PermissionOption{Kind: sdk.PermissionOptionKindAllowAlways, Name: fmt.Sprintf("Always allow `%s`", q.Pattern), OptionId: optAllowAlways})
	}
	options = append(options,
		sdk.PermissionOption{Kind: sdk.PermissionOptionKindRejectOnce, Name: "Reject", OptionId: optRejectOnce},
		sdk.PermissionOption{Kind: sdk.PermissionOptionKindRejectAlways, Name: fmt.Sprintf("Always reject `%s`", key), OptionId: optRejectAlways})
	// The question is shown whole: what runs, why it is asked, and its
	// detail (the diff, every line of the command).
	shown := fmt.Sprintf("%s? (%s)", q.What(), q.Reason)
	if q.Detail != "" {
		shown += "\n\n" + q.Detail
	}
	resp, err := a.s.a.conn.RequestPermission(ctx, sdk.RequestPermissionRequest{
		SessionId: a.s.id,
		ToolCall: sdk.ToolCallUpdate{
			ToolCallId: c.id,
			Title:      sdk.Ptr(c.title),
			Kind:       sdk.Ptr(c.kind),
			Status:     sdk.Ptr(sdk.ToolCallStatusPending),
			Content:    []sdk.ToolCallContent{sdk.ToolContent(sdk.TextBlock(shown))},
		},
		Options: options,
	})
	switch {
	case errors.Is(context.Cause(ctx), approval.ErrTimedOut):
		return approval.Skip, approval.ErrTimedOut
	case ctx.Err() != nil:
		return approval.Skip, context.Cause(ctx)
	case err != nil:
		return approval.Skip, fmt.Errorf("session/request_permission: %v: %w", err, approval.ErrNobodyToAsk)
	case resp.Outcome.Cancelled != nil || resp.Outcome.Selected == nil:
		return approval.StopTurn, nil
	}
	switch resp.Outcome.Selected.OptionId {
	case optAllowOnce:
		return approval.Run, nil
	case optAllowAlways:
		if q.Pattern != "" {
			return approval.Always, nil
		}
		return approval.Run, nil
	case optRejectAlways:
		a.s.mu.Lock()
		a.s.rejected[key] = true
		a.s.mu.Unlock()
	}
	return approval.Skip, nil
}
