package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// Calls and notifications to the client: our own proxy (the library's
// Client.ApplyEdit decodes the result object into a bool).

// editorClient tells the editor's user things: messages, the output
// channel, documents to open. It knows the session (its quirks and
// capabilities) and nothing else of the server.
type editorClient struct {
	conn    jsonrpc2.Conn // set when the connection is made (Serve)
	session func() *session
	log     *slog.Logger
}

func (c *editorClient) showMessage(ctx context.Context, typ protocol.MessageType, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if c.session().quirks.showsTabsAsCaret {
		msg = strings.ReplaceAll(msg, "\t", "    ")
	}
	c.log.Info("showMessage", "type", typ, "message", msg)
	if err := c.conn.Notify(ctx, protocol.MethodWindowShowMessage, &protocol.ShowMessageParams{Type: typ, Message: msg}); err != nil {
		c.log.Warn("showMessage failed", "err", err)
	}
	c.logMessage(ctx, typ, msg)
}

// logMessage writes to the client's output channel.
func (c *editorClient) logMessage(ctx context.Context, typ protocol.MessageType, msg string) {
	if err := c.conn.Notify(ctx, protocol.MethodWindowLogMessage, &protocol.LogMessageParams{Type: typ, Message: msg}); err != nil {
		c.log.Warn("logMessage failed", "err", err)
	}
}

// lateAnswer sees each response the client sends (from the read loop, so
// it only looks). An editor that applies an edit after the server gave up
// on it has made a change the server reported as failed; a reply's edit
// was also kept as pending review, so it is there twice over: the user is
// told, and which copy to reject.
func (s *Server) lateAnswer(r *jsonrpc2.Response) {
	s.inbound.Answered(r.ID())
	label, ok := s.delivery.unanswered.take(r.ID())
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
		if len(s.review.Files()) > 0 {
			msg += "; if its changes were kept as pending review, they are now in the files as well: reject the pending copy (code actions, or agentls.review.reject)"
		}
		s.client.showMessage(ctx, protocol.MessageTypeWarning, "%s", msg)
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
func (c *editorClient) showDocument(ctx context.Context, file string) bool {
	sess := c.session()
	if !sess.caps.Window.ShowDocument.Support && !sess.quirks.showsDocumentsUnannounced {
		return false
	}
	var res showDocumentResult
	_, err := c.conn.Call(ctx, "window/showDocument", &showDocumentParams{URI: protocol.DocumentURI(uri.File(file)), TakeFocus: true}, &res)
	if err != nil || !res.Success {
		c.log.Warn("showDocument failed", "err", err, "success", res.Success)
		return false
	}
	return true
}
