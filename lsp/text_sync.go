package lsp

import (
	"context"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/edits"
	"github.com/agentls/agentls/lsp/internal/documents"
	"github.com/agentls/agentls/lsp/internal/review"
	"github.com/agentls/agentls/lsp/internal/rpc"
)

// Text synchronisation: didOpen, didChange and didClose keep the
// documents store (lsp/internal/documents) in step with the editor's
// buffers, and tell the stores that follow them what changed.

func (s *Server) didOpen(_ context.Context, p *protocol.DidOpenTextDocumentParams) (any, error) {
	d := documents.Document{
		URI:      p.TextDocument.URI,
		Language: string(p.TextDocument.LanguageID),
		Version:  p.TextDocument.Version,
		Buf:      edits.NewBuffer(p.TextDocument.Text),
	}
	if file, err := fileOfURI(d.URI); err == nil {
		d.Path = cleanFile(file)
	} else {
		s.log.Info("opened a buffer that is no file: kept for its text only", "uri", d.URI, "why", err)
	}
	s.docs.Open(d)
	return nil, nil
}

func (s *Server) didClose(_ context.Context, p *protocol.DidCloseTextDocumentParams) (any, error) {
	s.docs.Close(p.TextDocument.URI)
	s.replies.forget(p.TextDocument.URI) // a reopened buffer may start at the same version
	return nil, nil
}

// didChange applies incremental or full changes. A version that does not
// increase is logged and the change ignored: it is a client bug, and
// applying it could corrupt the buffer's text. The review store follows
// each change (pending hunks move with the user's edits, or turn into
// conflicts); the file's diagnostics are published again only then.
func (s *Server) didChange(ctx context.Context, p *didChangeParams) (any, error) {
	enc := s.session().encoding
	seq, _ := rpc.MessageOf(ctx)
	republish := ""
	err := s.docs.Apply(seq, p.TextDocument.URI, p.TextDocument.Version, p.ContentChanges, enc, func(d documents.Document, prev int32, changes []documents.Change) {
		s.replies.follow(d.URI, prev, d.Version, changes)
		steps := make([]review.Step, len(changes))
		for i, c := range changes {
			steps[i] = review.Step{Before: c.Before, After: c.After, First: c.First, Last: c.Last, Whole: c.Whole}
		}
		if rel, err := s.relPath(d); err == nil && (s.review.Follow(rel, steps, enc) || s.answers.has(rel)) {
			republish = rel
		}
	})
	if err != nil {
		s.log.Warn("didChange: "+err.Error(), "uri", p.TextDocument.URI)
	}
	if republish != "" {
		s.goBackground("republish pending", func(ctx context.Context) { s.publishDiagnostics(ctx, republish) })
	}
	return nil, nil
}
