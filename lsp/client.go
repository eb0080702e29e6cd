package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// Calls and notifications to the client: our own proxy (the library's
// Client.ApplyEdit decodes the result object into a bool).

func (s *Server) showMessage(ctx context.Context, typ protocol.MessageType, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if s.session().quirks.showsTabsAsCaret {
		msg = strings.ReplaceAll(msg, "\t", "    ")
	}
	s.log.Info("showMessage", "type", typ, "message", msg)
	if err := s.conn.Notify(ctx, protocol.MethodWindowShowMessage, &protocol.ShowMessageParams{Type: typ, Message: msg}); err != nil {
		s.log.Warn("showMessage failed", "err", err)
	}
	s.logMessage(ctx, typ, msg)
}

// logMessage writes to the client's output channel.
func (s *Server) logMessage(ctx context.Context, typ protocol.MessageType, msg string) {
	if err := s.conn.Notify(ctx, protocol.MethodWindowLogMessage, &protocol.LogMessageParams{Type: typ, Message: msg}); err != nil {
		s.log.Warn("logMessage failed", "err", err)
	}
}

// applyEdit asks the client to apply a workspace edit, and waits for its
// answer up to Options.ApplyEditTimeout (and no longer than the session):
// a client that never answers must not hold the task, the edit and the
// server's exit for good. When the time is up the request is cancelled
// ($/cancelRequest) and errApplyEditUnanswered returned; the callers keep
// the change as pending review, so nothing is lost.
func (s *Server) applyEdit(ctx context.Context, label string, we workspaceEdit) (applyEditResult, error) {
	var res applyEditResult
	timeout := s.opts.ApplyEditTimeout
	if timeout <= 0 {
		timeout = time.Duration(s.currentSettings().ApplyEditTimeout) * time.Second
	}
	if timeout <= 0 {
		timeout = defaultApplyEditTimeout
	}
	callCtx, cancel := context.WithTimeoutCause(ctx, timeout, errApplyEditUnanswered)
	defer cancel()
	id, err := s.conn.Call(callCtx, protocol.MethodWorkspaceApplyEdit, &applyEditParams{Label: label, Edit: we}, &res)
	if err == nil {
		res.after = s.inbound.answeredAfter(id)
		return res, nil
	}
	if errors.Is(context.Cause(callCtx), errApplyEditUnanswered) && ctx.Err() == nil {
		s.log.Warn("the editor did not answer workspace/applyEdit in time: the request is cancelled", "label", label, "timeout", timeout)
		s.unanswered.add(id, label)
		// The editor may still be applying it (a dialog left open): tell
		// it the server stopped waiting.
		if err := s.conn.Notify(context.WithoutCancel(ctx), protocol.MethodCancelRequest, map[string]any{"id": &id}); err != nil {
			s.log.Warn("$/cancelRequest failed", "err", err)
		}
		return res, fmt.Errorf("%w within %s (the request is cancelled)", errApplyEditUnanswered, timeout)
	}
	return res, fmt.Errorf("workspace/applyEdit: %w", err)
}

// errApplyEditUnanswered is a workspace/applyEdit the editor did not answer
// in time.
var errApplyEditUnanswered = errors.New("workspace/applyEdit: no answer")

// unansweredEdits are the workspace/applyEdit calls the server stopped
// waiting for (their changes were kept as pending review), by id.
type unansweredEdits struct {
	mu     sync.Mutex
	labels map[jsonrpc2.ID]string
}

func (u *unansweredEdits) add(id jsonrpc2.ID, label string) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.labels == nil {
		u.labels = map[jsonrpc2.ID]string{}
	}
	u.labels[id] = label
}

func (u *unansweredEdits) take(id jsonrpc2.ID) (string, bool) {
	u.mu.Lock()
	defer u.mu.Unlock()
	label, ok := u.labels[id]
	delete(u.labels, id)
	return label, ok
}

// lateAnswer sees each response the client sends (from the read loop, so
// it only looks). An editor that applies an edit after the server gave up
// on it has made a change the server reported as failed; a reply's edit
// was also kept as pending review, so it is there twice over: the user is
// told, and which copy to reject.
func (s *Server) lateAnswer(r *jsonrpc2.Response) {
	s.inbound.answered(r.ID())
	label, ok := s.unanswered.take(r.ID())
	if !ok || r.Err() != nil {
		return
	}
	var res applyEditResult
	if json.Unmarshal(r.Result(), &res) != nil || !res.Applied {
		return
	}
	s.log.Warn("the editor applied an edit after the server stopped waiting", "label", label)
	s.goBackground("late applyEdit", func(ctx context.Context) {
		msg := fmt.Sprintf("agentls: the editor applied %q after agentls stopped waiting for it (and reported it failed)", label)
		if len(s.review.files()) > 0 {
			msg += "; if its changes were kept as pending review, they are now in the files as well: reject the pending copy (code actions, or agentls.review.reject)"
		}
		s.showMessage(ctx, protocol.MessageTypeWarning, "%s", msg)
	})
}

// showDocumentParams and showDocumentResult are LSP 3.16's; the library
// has no types for them.
type showDocumentParams struct {
	URI       protocol.DocumentURI `json:"uri"`
	TakeFocus bool                 `json:"takeFocus,omitempty"`
}

type showDocumentResult struct {
	Success bool `json:"success"`
}

// showDocument asks the editor to open a file, where it can; it reports
// whether the editor did.
func (s *Server) showDocument(ctx context.Context, file string) bool {
	supported := s.session().caps.Window.ShowDocument.Support
	if !supported {
		return false
	}
	var res showDocumentResult
	_, err := s.conn.Call(ctx, "window/showDocument", &showDocumentParams{URI: protocol.DocumentURI(uri.File(file)), TakeFocus: true}, &res)
	if err != nil || !res.Success {
		s.log.Warn("showDocument failed", "err", err, "success", res.Success)
		return false
	}
	return true
}
