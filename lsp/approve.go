package lsp

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/internal/statedir"
	"github.com/agentls/agentls/internal/text"
	"github.com/agentls/agentls/lsp/internal/documents"
	"github.com/agentls/agentls/tools/approval"
)

// Approvals: an agent's command that needs the user's yes. Every client
// can answer with the agentls.approve / agentls.deny commands and with
// code actions on a pending-approval diagnostic (Helix has nothing else);
// clients that support window/showMessageRequest also get buttons. The
// first answer wins; no answer within approvalTimeout is a denial.
//
// What is approved is what runs: every place that asks shows the whole
// command, cell or diff (the question's listing, below its one-line
// summary): the buttons' message, the diagnostic the code actions sit
// on, the message that names the commands; a client that can show
// documents also gets it as a file in the state folder, opened before
// the buttons. Where the choice is made from a place that shows only the
// summary (a code action's title, a key bound to agentls.approve), the
// approval must carry the digest of what the listing showed, which is
// printed only after the listing: without it, or with another, nothing
// runs.

const (
	cmdApprove   = "agentls.approve"
	cmdDeny      = "agentls.deny"
	approvalCode = "pending-approval"
)

// approvalArgs pick a pending approval (0: the oldest) and how to answer.
type approvalArgs struct {
	Request int `json:"request"`
	// Digest is the digest of what the user was shown (printed after
	// the listing): approving a question with a listing needs it; with
	// no Request it also picks the question.
	Digest string `json:"digest,omitempty"`
	Always bool   `json:"always,omitempty"` // approve, and allow the pattern from now on
	Stop   bool   `json:"stop,omitempty"`   // deny, and stop the turn
}

// A waitingQuestion is one question waiting for the user.
type waitingQuestion struct {
	id     int
	q      approval.Question
	who    string // "agent turn 3"
	path   string // the file whose diagnostics show it ("" for none)
	line   int
	answer chan approval.Answer // buffered: the first answer wins

	// listing is everything the question shows below its summary (every
	// line of the command, the diff), "" when the summary is all of it;
	// digest names the question as shown (approval.Question.Digest).
	listing string
	digest  string
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
	ap.listing = listing(ap.q)
	ap.digest = ap.q.Digest()
	a.pending = append(a.pending, ap)
}

// get returns the approval with id; for id 0, the oldest whose digest is
// digest, or the oldest of all when digest is "".
func (a *approvals) get(id int, digest string) (*waitingQuestion, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, ap := range a.pending {
		if ap.id == id || (id == 0 && (digest == "" || ap.digest == digest)) {
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

// approvalDesk asks the editor's user about what the agent wants to do
// and takes the answers: buttons where the client has them, else a
// diagnostic with code actions, or a message naming the commands. What it
// needs of the server is named here.
type approvalDesk struct {
	waiting  *approvals
	session  func() *session
	settings func() serverSettings
	client   *editorClient
	call     func(ctx context.Context, method string, params, result any) (jsonrpc2.ID, error)
	publish  func(ctx context.Context, path string)
	getenv   func(string) string
	log      *slog.Logger
	relPath  func(d documents.Document) (string, error)
}

// confirm asks the user q on behalf of who, showing the question on
// path:line where a client has no buttons. It returns when the user
// answers, the approval times out (approval.ErrTimedOut), or ctx ends;
// with approvalPolicy "deny" it asks nobody (approval.ErrPolicyDenies).
func (desk *approvalDesk) confirm(ctx context.Context, who, path string, line int, q approval.Question) (approval.Answer, error) {
	set := desk.settings()
	if decided := agent.ConfirmerOf(set, nil); decided != nil {
		// approvalPolicy allow or deny, the core's rule for every
		// front-end: nobody is asked (deny tells the model the policy
		// denies it, not that the user declined).
		return decided.Confirm(ctx, q)
	}
	ap := &waitingQuestion{q: q, who: who, path: path, line: line}
	desk.waiting.add(ap)
	defer func() {
		desk.waiting.remove(ap)
		if ap.path != "" {
			desk.publish(context.WithoutCancel(ctx), ap.path)
		}
	}()
	if ap.path != "" {
		desk.publish(ctx, ap.path)
	}
	buttons := desk.session().caps.Window.ShowMessage != nil
	askCtx, stopAsking := context.WithCancel(ctx)
	defer stopAsking()
	if buttons {
		go desk.askWithButtons(askCtx, ap)
	} else {
		where := ""
		if ap.path != "" {
			where = fmt.Sprintf(" with the code actions on %s:%d, or", ap.path, ap.line+1)
		}
		args := fmt.Sprintf(`{"request": %d}`, ap.id)
		if ap.listing != "" {
			args = fmt.Sprintf(`{"request": %d, "digest": %q}`, ap.id, ap.digest)
		}
		desk.client.showMessage(ctx, protocol.MessageTypeWarning, "agentls: %s", ap.text(fmt.Sprintf("approve or deny it%s with the commands %s / %s %s", where, cmdApprove, cmdDeny, args)))
	}
	timeout := time.Duration(set.ApprovalTimeout) * time.Second
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case ans := <-ap.answer:
		return ans, nil
	case <-timer.C:
		desk.client.showMessage(ctx, protocol.MessageTypeWarning, "agentls: nobody answered within %s whether to %s (request %d): it was not done", timeout, ap.q.What(), ap.id)
		return approval.Skip, approval.ErrTimedOut
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
func (desk *approvalDesk) askWithButtons(ctx context.Context, ap *waitingQuestion) {
	actions := []protocol.MessageActionItem{{Title: buttonRun}}
	if ap.q.Pattern != "" {
		actions = append(actions, protocol.MessageActionItem{Title: alwaysButton(ap.q.Pattern)})
	}
	actions = append(actions, protocol.MessageActionItem{Title: buttonSkip}, protocol.MessageActionItem{Title: buttonStop})
	how := ""
	if ap.listing != "" {
		// A message box may clip or join lines (VS Code's does): where
		// the client shows documents, the listing is opened first.
		if doc := desk.showListing(ctx, ap); doc != "" {
			how = "(all of it is also in " + doc + ", opened in the editor)"
		}
	}
	if ctx.Err() != nil {
		return
	}
	params := &protocol.ShowMessageRequestParams{
		Type:    protocol.MessageTypeWarning,
		Message: "agentls: " + ap.text(how),
		Actions: actions,
	}
	var picked *protocol.MessageActionItem
	if _, err := desk.call(ctx, protocol.MethodWindowShowMessageRequest, params, &picked); err != nil {
		if ctx.Err() == nil {
			desk.log.Warn("window/showMessageRequest failed; the approval waits for agentls.approve or a code action", "err", err)
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
// agentls.deny {request?, digest?, always?, stop?}.
func (desk *approvalDesk) approveCommand(approve bool, a approvalArgs) (any, error) {
	ap, ok := desk.waiting.get(a.Request, a.Digest)
	if !ok {
		switch {
		case a.Request != 0:
			return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, fmt.Sprintf("no command waits for approval as request %d (it was answered or timed out)", a.Request))
		case a.Digest != "":
			return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, fmt.Sprintf("no command waiting for approval has the digest %s (it was answered or timed out): nothing was done", a.Digest))
		}
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, "no command is waiting for approval")
	}
	if a.Digest != "" && a.Digest != ap.digest {
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, fmt.Sprintf("request %d is not what the digest %s names (it asks to %s): nothing was done", ap.id, a.Digest, ap.q.What()))
	}
	if approve && ap.listing != "" && a.Digest == "" {
		// Whoever sent this may have seen only the summary (a status
		// line, a key pressed blind): the listing is not optional.
		where := "its buttons"
		if ap.path != "" {
			where = fmt.Sprintf("its code action on %s:%d (the diagnostic lists it)", ap.path, ap.line+1)
		}
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, fmt.Sprintf(
			"request %d asks to %s, %d lines that a one-line answer does not show: approve it where all of it is shown (%s), or send agentls.approve with the digest printed after its listing; nothing was run",
			ap.id, ap.q.What(), approval.Lines(ap.listing), where))
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
func (desk *approvalDesk) approvalDiagnostics(path string) []protocol.Diagnostic {
	var out []protocol.Diagnostic
	for _, ap := range desk.waiting.inFile(path) {
		out = append(out, protocol.Diagnostic{
			Range:    protocol.Range{Start: protocol.Position{Line: uint32(ap.line)}, End: protocol.Position{Line: uint32(ap.line + 1)}},
			Severity: protocol.DiagnosticSeverityWarning, Source: "agentls", Code: approvalCode,
			Message: ap.text(fmt.Sprintf("approve or deny it with a code action (request %d)", ap.id)),
		})
	}
	return out
}

// approvalActions are Approve / Always / Deny / Stop code actions for the
// approvals shown on lines of r.
func (desk *approvalDesk) approvalActions(d documents.Document, r protocol.Range) []protocol.CodeAction {
	rel, err := desk.relPath(d)
	if err != nil {
		return nil
	}
	var actions []protocol.CodeAction
	for _, ap := range desk.waiting.inFile(rel) {
		if uint32(ap.line) < r.Start.Line || uint32(ap.line) > r.End.Line {
			continue
		}
		add := func(title, command string, a approvalArgs) {
			actions = append(actions, protocol.CodeAction{Title: title, Kind: protocol.QuickFix,
				Command: &protocol.Command{Title: title, Command: command, Arguments: []any{a}}})
		}
		// The title shows the summary only where it is all of it; the
		// actions carry the digest of what the diagnostic lists.
		title := "Approve: " + ap.q.What()
		if ap.listing != "" {
			title = fmt.Sprintf("Approve: %s, all %d lines the diagnostic lists", text.Shorten(ap.q.What(), 50, "…"), approval.Lines(ap.listing))
		}
		add(title, cmdApprove, approvalArgs{Request: ap.id, Digest: ap.digest})
		if ap.q.Pattern != "" {
			add(fmt.Sprintf("Approve, and always run `%s`", ap.q.Pattern), cmdApprove, approvalArgs{Request: ap.id, Digest: ap.digest, Always: true})
		}
		add("Deny: do not "+text.Shorten(ap.q.What(), 70, "…"), cmdDeny, approvalArgs{Request: ap.id, Digest: ap.digest})
		add("Deny, and stop the agent's turn", cmdDeny, approvalArgs{Request: ap.id, Digest: ap.digest, Stop: true})
	}
	return actions
}

// titleBytes bounds a summary shown alone: a question whose summary
// is longer (or has a listing) is answered with its digest.
const titleBytes = 120

// listing is what an approval shows of q below its one-line summary: its
// Detail, or its Action listed when that is too long to be shown alone
// (a title, a status line); "" when the summary is all of it. Hidden
// characters are escaped, so what is shown is what runs.
func listing(q approval.Question) string {
	if q.Detail != "" {
		return approval.Escape(q.Detail)
	}
	if what := q.What(); len(what) <= titleBytes && approval.Escape(what) == what && !strings.Contains(what, "\n") {
		return ""
	}
	return approval.Listing(q.Action)
}

// text is an approval as a message or diagnostic shows it: who asks for
// what and why, every line of its listing, then how to answer (with the
// digest after the listing: it is read after all of it).
func (ap *waitingQuestion) text(how string) string {
	head := fmt.Sprintf("%s asks to %s (%s)", ap.who, approval.Escape(ap.q.What()), approval.Escape(ap.q.Reason))
	if ap.listing == "" {
		if how == "" {
			return head
		}
		return head + ": " + how
	}
	if !strings.Contains(how, ap.digest) {
		how = strings.TrimSpace(how + " (digest " + ap.digest + ")")
	}
	return head + ":\n" + ap.listing + "\n" + how
}

// showListing writes an approval's listing to a read-only file in the
// state folder and opens it in the editor, for clients that show
// documents; it returns the file, or "" where it was not shown. The file
// is removed when the question is answered.
func (desk *approvalDesk) showListing(ctx context.Context, ap *waitingQuestion) string {
	if !desk.session().caps.Window.ShowDocument.Support {
		return ""
	}
	dir, err := statedir.Dir(desk.getenv, "listings", desk.session().root)
	if err != nil {
		desk.log.Warn("an approval's listing is shown in its message only", "err", err)
		return ""
	}
	ext := ".txt"
	if ap.q.Edit {
		ext = ".diff"
	}
	file := filepath.Join(dir, fmt.Sprintf("request-%d-%d-%s%s", os.Getpid(), ap.id, ap.digest, ext))
	body := fmt.Sprintf("agentls: %s asks to %s (%s). It is exactly this:\n\n%s\n\n(digest %s)\n", ap.who, approval.Escape(ap.q.What()), approval.Escape(ap.q.Reason), ap.listing, ap.digest)
	f, err := os.OpenFile(file, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o400)
	if err != nil {
		desk.log.Warn("an approval's listing is shown in its message only", "err", err)
		return ""
	}
	_, err = f.WriteString(body)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		desk.log.Warn("an approval's listing is shown in its message only", "err", err)
		os.Remove(file)
		return ""
	}
	context.AfterFunc(ctx, func() { os.Remove(file) })
	if !desk.client.showDocument(ctx, file) {
		return ""
	}
	return file
}

// A confirmer asks the editor's user on behalf of a turn.
type confirmer struct {
	s    *Server
	who  string
	path string
	line int
}

func (c confirmer) Confirm(ctx context.Context, q approval.Question) (approval.Answer, error) {
	return c.s.desk.confirm(ctx, c.who, c.path, c.line, q)
}
