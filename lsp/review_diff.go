package lsp

import (
	"context"

	"go.lsp.dev/protocol"
)

const cmdReviewDiff = "agentls.review.diff"

// "Show diff" renders pending hunks as a unified diff against what the
// buffers hold now, writes it to a file in the server's scratch directory
// and asks the editor to open it with window/showDocument. Editors
// without showDocument get the file's path in a message, and every editor
// gets the diff in its output channel: plain LSP has no other way to show
// a document the server made.

func (s *Server) reviewDiffCommand(_ context.Context, a reviewArgs) (any, error) {
	if a == (reviewArgs{}) {
		a.All = true // no selector: every pending hunk
	}
	s.goBackground("review diff", func(ctx context.Context) { s.showReviewDiff(ctx, a) })
	return nil, nil
}

func (s *Server) showReviewDiff(ctx context.Context, a reviewArgs) {
	hs := s.review.Peek(a.selector(s.session().relPathOfURI))
	if len(hs) == 0 {
		s.client.showMessage(ctx, protocol.MessageTypeWarning, "agentls: no pending agent edit there")
		return
	}
	text := s.pendingView.diff(ctx, hs)
	s.client.logMessage(ctx, protocol.MessageTypeInfo, text)
	name, err := s.scratch.write("pending.diff", text)
	if err != nil {
		s.client.showMessage(ctx, protocol.MessageTypeError, "agentls: cannot write the diff: %v (it is in the output channel)", err)
		return
	}
	if s.client.showDocument(ctx, name) {
		return
	}
	s.client.showMessage(ctx, protocol.MessageTypeInfo, "agentls: the diff of %d pending %s is in %s", len(hs), plural(len(hs), "edit", "edits"), name)
}
