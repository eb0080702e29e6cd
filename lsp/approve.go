package lsp

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/agentls/agentls/tools/approval"
	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

// Approvals: an agent's command that needs the user's yes. Every client
// can answer with the agentls.approve / agentls.deny commands and with
// code actions on a pending-approval diagnostic (Helix has nothing else);
// clients that support window/showMessageRequest also get buttons. The
// first answer wins; no answer within approvalTimeout is a denial.

const (
	cmdApprove   = "agentls.approve"
	cmdDeny      = "agentls.deny"
	approvalCode = "pending-approval"
)

// approvalArgs pick a pending approval (0: the oldest) and how to answer.
type approvalArgs struct {
	Request int  `json:"request"`
	Always  bool `json:"always,omitempty"` // approve, and allow the pattern from now on
	Stop    bool `json:"stop,omitempty"`   // deny, and stop the turn
}

// A waitingQuestion is one question waiting for the user.
type waitingQuestion struct {
	id     int
	q      approval.Question
	who    string // "agent turn 3"
	path   string // the file whose diagnostics show it ("" for none)
	line   int
	answer chan approval.Answer // buffered: the first answer wins
}

// approvals are the questions waiting, oldest first.
type approvals struct {
	mu      sync.Mutex
	next    int
	pending []*waitingQuestion
}

func (a *approvals) add(ap *waitingQuestion) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.next++
	ap.id = a.next
	ap.answer = make(chan approval.Answer, 1)
	a.pending = append(a.pending, ap)
}

// get returns the approval with id, or the oldest for 0.
func (a *approvals) get(id int) (*waitingQuestion, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, ap := range a.pending {
		if id == 0 || ap.id == id {
			return ap, true
		}
	}
	return nil, false
}

func (a *approvals) remove(ap *waitingQuestion) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.pending = slices.DeleteFunc(a.pending, func(p *waitingQuestion) bool { return p == ap })
}

func (a *approvals) inFile(path string) []*waitingQuestion {
	a.mu.Lock()
	defer a.mu.Unlock()
	var out []*waitingQuestion
	for _, ap := range a.pending {
		if ap.path == path {
			out = append(out, ap)
		}
	}
	return out
}

// deliver gives the approval its answer unless it has one already.
func (ap *waitingQuestion) deliver(ans approval.Answer) bool {
	select {
	case ap.answer <- ans:
		return true
	default:
		return false
	}
}

// confirm asks the user q on behalf of who, showing the question on
// path:line where a client has no buttons. It returns when the user
// answers, the approval times out (Skip), or ctx ends.
func (s *Server) confirm(ctx context.Context, who, path string, line int, q approval.Question) (approval.Answer, error) {
	set := s.currentSettings()
	switch set.ApprovalPolicy {
	case "allow":
		return approval.Run, nil
	case "deny":
		return approval.Skip, nil
	}
	ap := &waitingQuestion{q: q, who: who, path: path, line: line}
	s.approvals.add(ap)
	defer func() {
		s.approvals.remove(ap)
		if ap.path != "" {
			s.publishDiagnostics(context.WithoutCancel(ctx), ap.path)
		}
	}()
	if ap.path != "" {
		s.publishDiagnostics(ctx, ap.path)
	}
	buttons := s.session().caps.Window.ShowMessage != nil
	askCtx, stopAsking := context.WithCancel(ctx)
	defer stopAsking()
	if buttons {
		go s.askWithButtons(askCtx, ap)
	} else {
		where := ""
		if ap.path != "" {
			where = fmt.Sprintf(" with the code actions on %s:%d, or", ap.path, ap.line+1)
		}
		s.showMessage(ctx, protocol.MessageTypeWarning, "agentls: %s asks to %s (%s): approve or deny it%s with the commands %s / %s {\"request\": %d}%s",
			who, ap.q.What(), ap.q.Reason, where, cmdApprove, cmdDeny, ap.id, detail(ap.q))
	}
	timeout := time.Duration(set.ApprovalTimeout) * time.Second
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case ans := <-ap.answer:
		return ans, nil
	case <-timer.C:
		s.showMessage(ctx, protocol.MessageTypeWarning, "agentls: nobody answered within %s whether to %s: it was not done", timeout, ap.q.What())
		return approval.Skip, nil
	case <-ctx.Done():
		return approval.Skip, ctx.Err()
	}
}

// The buttons of an approval request.
const (
	buttonRun  = "Run"
	buttonSkip = "Skip"
	buttonStop = "Stop turn"
)

func alwaysButton(pattern string) string { return fmt.Sprintf("Always run `%s`", pattern) }

// askWithButtons asks with window/showMessageRequest and delivers the
// answer; a dismissed request (null) is Skip. It gives up quietly when ctx
// ends (the question was answered another way).
func (s *Server) askWithButtons(ctx context.Context, ap *waitingQuestion) {
	actions := []protocol.MessageActionItem{{Title: buttonRun}}
	if ap.q.Pattern != "" {
		actions = append(actions, protocol.MessageActionItem{Title: alwaysButton(ap.q.Pattern)})
	}
	actions = append(actions, protocol.MessageActionItem{Title: buttonSkip}, protocol.MessageActionItem{Title: buttonStop})
	params := &protocol.ShowMessageRequestParams{
		Type:    protocol.MessageTypeWarning,
		Message: fmt.Sprintf("agentls: %s asks to %s (%s)%s", ap.who, ap.q.What(), ap.q.Reason, detail(ap.q)),
		Actions: actions,
	}
	var picked *protocol.MessageActionItem
	if _, err := s.conn.Call(ctx, protocol.MethodWindowShowMessageRequest, params, &picked); err != nil {
		if ctx.Err() == nil {
			s.log.Warn("window/showMessageRequest failed; the approval waits for agentls.approve or a code action", "err", err)
		}
		return
	}
	ans := approval.Skip
	if picked != nil {
		switch picked.Title {
		case buttonRun:
			ans = approval.Run
		case buttonStop:
			ans = approval.StopTurn
		case alwaysButton(ap.q.Pattern):
			ans = approval.Always
		}
	}
	ap.deliver(ans)
}

// approveCommand answers a pending approval: agentls.approve or
// agentls.deny {request?, always?, stop?}.
func (s *Server) approveCommand(approve bool, a approvalArgs) (any, error) {
	ap, ok := s.approvals.get(a.Request)
	if !ok {
		if a.Request == 0 {
			return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, "no command is waiting for approval")
		}
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, fmt.Sprintf("no command waits for approval as request %d (it was answered or timed out)", a.Request))
	}
	ans := approval.Skip
	switch {
	case approve && a.Always && ap.q.Pattern != "":
		ans = approval.Always
	case approve:
		ans = approval.Run
	case a.Stop:
		ans = approval.StopTurn
	}
	if !ap.deliver(ans) {
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, fmt.Sprintf("request %d was answered already", ap.id))
	}
	return map[string]any{"request": ap.id, "answer": ans.String()}, nil
}

// approvalDiagnostics show a file's waiting approvals.
func (s *Server) approvalDiagnostics(path string) []protocol.Diagnostic {
	var out []protocol.Diagnostic
	for _, ap := range s.approvals.inFile(path) {
		out = append(out, protocol.Diagnostic{
			Range:    protocol.Range{Start: protocol.Position{Line: uint32(ap.line)}, End: protocol.Position{Line: uint32(ap.line + 1)}},
			Severity: protocol.DiagnosticSeverityWarning, Source: "agentls", Code: approvalCode,
			Message: fmt.Sprintf("%s asks to %s (%s): approve or deny it with a code action (request %d)%s", ap.who, ap.q.What(), ap.q.Reason, ap.id, detail(ap.q)),
		})
	}
	return out
}

// approvalActions are Approve / Always / Deny / Stop code actions for the
// approvals shown on lines of r.
func (s *Server) approvalActions(d document, r protocol.Range) []protocol.CodeAction {
	rel, err := s.relPath(d)
	if err != nil {
		return nil
	}
	var actions []protocol.CodeAction
	for _, ap := range s.approvals.inFile(rel) {
		if uint32(ap.line) < r.Start.Line || uint32(ap.line) > r.End.Line {
			continue
		}
		add := func(title, command string, a approvalArgs) {
			actions = append(actions, protocol.CodeAction{Title: title, Kind: protocol.QuickFix,
				Command: &protocol.Command{Title: title, Command: command, Arguments: []any{a}}})
		}
		add("Approve: "+clip(ap.q.What(), 70, "…"), cmdApprove, approvalArgs{Request: ap.id})
		if ap.q.Pattern != "" {
			add(fmt.Sprintf("Approve, and always run `%s`", ap.q.Pattern), cmdApprove, approvalArgs{Request: ap.id, Always: true})
		}
		add("Deny: do not "+clip(ap.q.What(), 70, "…"), cmdDeny, approvalArgs{Request: ap.id})
		add("Deny, and stop the agent's turn", cmdDeny, approvalArgs{Request: ap.id, Stop: true})
	}
	return actions
}

// detail shows a question's detail (an edit's diff) under it, cut to a
// size a message can hold.
func detail(q approval.Question) string {
	if q.Detail == "" {
		return ""
	}
	return "\n" + clip(q.Detail, 4000, "\n… (the rest of the edit is cut here)")
}
