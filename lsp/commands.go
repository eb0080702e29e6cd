package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

// A serverCommand is one workspace/executeCommand command, declared once:
// executeCommandProvider.commands, dispatch and the argument errors all
// come from commandTable.
type serverCommand struct {
	name string
	// args is the argument's shape (DESIGN §6), told when it does not
	// decode.
	args string
	run  func(s *Server, ctx context.Context, arg json.RawMessage) (any, error)
}

// commandTable is every command the server offers, in documented order.
// Each answers at once: long work continues as a task (DESIGN §6, "never
// block").
func commandTable() []serverCommand {
	return []serverCommand{
		{cmdAsk, "{prompt, uri?, range?}", typed((*Server).askCommand)},
		{cmdApplyReply, "{text} or {uri, range?}", typed((*Server).applyReplyCommand)},
		{cmdCancel, "{turn?} or {token?}", typed((*Server).cancelCommand)},
		{cmdUndo, "{turn?}", typed(func(s *Server, ctx context.Context, a undoArgs) (any, error) { return s.undoRedo(ctx, cmdUndo, a) })},
		{cmdRedo, "{turn?}", typed(func(s *Server, ctx context.Context, a undoArgs) (any, error) { return s.undoRedo(ctx, cmdRedo, a) })},
		{cmdEditUndo, "{edit?}", typed(func(s *Server, ctx context.Context, a undoArgs) (any, error) { return s.undoRedo(ctx, cmdEditUndo, a) })},
		{cmdEditRedo, "{edit?}", typed(func(s *Server, ctx context.Context, a undoArgs) (any, error) { return s.undoRedo(ctx, cmdEditRedo, a) })},
		{cmdReviewAccept, "{hunk} or {uri} or {all}", typed(func(s *Server, _ context.Context, a reviewArgs) (any, error) { return s.pendingView.command(true, a) })},
		{cmdReviewReject, "{hunk} or {uri} or {all}", typed(func(s *Server, _ context.Context, a reviewArgs) (any, error) { return s.pendingView.command(false, a) })},
		{cmdReviewDiff, "{hunk?} or {uri?} or {all?}", typed(func(s *Server, ctx context.Context, a reviewArgs) (any, error) {
			return s.pendingView.diffCommand(ctx, a)
		})},
		{cmdApprove, "{request?, digest?, always?}", typed(func(s *Server, _ context.Context, a approvalArgs) (any, error) { return s.desk.approveCommand(true, a) })},
		{cmdDeny, "{request?, digest?, stop?}", typed(func(s *Server, _ context.Context, a approvalArgs) (any, error) {
			return s.desk.approveCommand(false, a)
		})},
		{cmdChatOpen, "{name?}", typed((*Server).chatOpenCommand)},
		{cmdChatSend, "{uri}", typed((*Server).chatSendCommand)},
		{cmdRun, "{command}", typed(func(s *Server, _ context.Context, a jobArgs) (any, error) { return s.jobCommand(cmdRun, a) })},
		{cmdJobsList, "no argument", typed(func(s *Server, _ context.Context, a jobArgs) (any, error) { return s.jobCommand(cmdJobsList, a) })},
		{cmdJobsOutput, "{job, show?}", typed(func(s *Server, _ context.Context, a jobArgs) (any, error) { return s.jobCommand(cmdJobsOutput, a) })},
		{cmdJobsKill, "{job}", typed(func(s *Server, _ context.Context, a jobArgs) (any, error) { return s.jobCommand(cmdJobsKill, a) })},
		{cmdTrust, "{sha256?}", typed(func(s *Server, ctx context.Context, a trustArgs) (any, error) { return s.config.trustCommand(ctx, a) })},
		{cmdStatus, "{quiet?}", typed(func(s *Server, ctx context.Context, a statusArgs) (any, error) { return s.status.command(ctx, a) })},
	}
}

// commandNames are the commands the server offers.
func commandNames() []string {
	var names []string
	for _, c := range commandTable() {
		names = append(names, c.name)
	}
	return names
}

// badArgs is an argument that does not decode into its command's type.
type badArgs struct{ err error }

func (e badArgs) Error() string { return e.err.Error() }

// typed decodes a command's argument (null or absent is the zero value)
// and runs fn with it.
func typed[A any](fn func(s *Server, ctx context.Context, a A) (any, error)) func(*Server, context.Context, json.RawMessage) (any, error) {
	return func(s *Server, ctx context.Context, raw json.RawMessage) (any, error) {
		var a A
		if len(raw) > 0 && string(raw) != "null" {
			if err := json.Unmarshal(raw, &a); err != nil {
				return nil, badArgs{err}
			}
		}
		return fn(s, ctx, a)
	}
}

func (s *Server) executeCommand(ctx context.Context, p *executeCommandParams) (any, error) {
	var arg json.RawMessage
	if len(p.Arguments) > 0 {
		arg = p.Arguments[0]
	}
	for _, c := range commandTable() {
		if c.name != p.Command {
			continue
		}
		res, err := c.run(s, ctx, arg)
		var bad badArgs
		if errors.As(err, &bad) {
			err = jsonrpc2.NewError(jsonrpc2.InvalidParams, fmt.Sprintf("%s takes %s: %v", c.name, c.args, bad.err))
		}
		if err != nil && s.session().quirks.logsCommandErrors {
			// Helix writes a command's error to its log only: the user
			// who picked it from :lsp-workspace-command saw nothing.
			msg := err.Error()
			var je *jsonrpc2.Error
			if errors.As(err, &je) {
				msg = je.Message
			}
			s.goBackground("report command error", func(ctx context.Context) {
				s.client.showMessage(ctx, protocol.MessageTypeError, "agentls: %s", msg)
			})
		}
		return res, err
	}
	return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, "unknown command "+p.Command+" (known: "+strings.Join(commandNames(), ", ")+")")
}
