package lsp

import (
	"context"
	"fmt"

	"go.lsp.dev/protocol"
)

// Calls and notifications to the client: our own proxy (the library's
// Client.ApplyEdit decodes the result object into a bool).

func (s *Server) showMessage(ctx context.Context, typ protocol.MessageType, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
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

// applyEdit asks the client to apply a workspace edit.
func (s *Server) applyEdit(ctx context.Context, label string, we workspaceEdit) (applyEditResult, error) {
	var res applyEditResult
	_, err := s.conn.Call(ctx, protocol.MethodWorkspaceApplyEdit, &applyEditParams{Label: label, Edit: we}, &res)
	if err != nil {
		return res, fmt.Errorf("workspace/applyEdit: %w", err)
	}
	return res, nil
}
