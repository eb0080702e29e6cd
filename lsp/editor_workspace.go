package lsp

import (
	"context"
	"errors"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/anchored"
	"github.com/agentls/agentls/edits"
	"github.com/agentls/agentls/settings"
	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/approval"
	"github.com/agentls/agentls/tools/edittool"
)

// editorWorkspace is an agent turn's agent.Workspace in the editor: the
// turn reads the open buffers over the disk, each edit call becomes one
// WorkspaceEdit (or pending review hunks), so the next call reads the
// buffers with it applied, the user is asked where the turn's home is,
// and output goes to the output channel.
type editorWorkspace struct {
	s     *Server
	t     *task
	turn  int // its edits are this turn's in the undo journal
	label string
	// home is the file (relative) and line the turn is about, where its
	// approvals show as diagnostics; "" for none.
	home     string
	homeLine int
}

func (w *editorWorkspace) Root() string { return w.s.session().root }

func (w *editorWorkspace) source() editorSource {
	return w.s.source()
}

func (w *editorWorkspace) Read(ctx context.Context, path string) (string, int32, bool, error) {
	return w.source().Read(ctx, path)
}

// LineHashes passes on the hashes the server keeps for open buffers, so
// view_anchored on a large buffer does not hash every line again (the
// turn's tools.Env Hashes).
func (w *editorWorkspace) LineHashes(path string, version int32) *anchored.Index {
	return w.source().LineHashes(path, version)
}

// Views passes on the anchor tables the server keeps of the last views,
// so patch_anchored on the text a view showed does not anchor it again
// (the turn's tools.Env Hashes).
func (w *editorWorkspace) Views() *anchored.Views { return w.source().Views() }

func (w *editorWorkspace) Confirm(ctx context.Context, q approval.Question) (approval.Answer, error) {
	return confirmer{s: w.s, who: w.label, path: w.home, line: w.homeLine}.Confirm(ctx, q)
}

func (w *editorWorkspace) Output(stream string, p []byte) { w.s.output.write(stream, p) }

// Progress shows a step of the turn's work (an MCP call's progress) in
// the turn's work-done progress.
func (w *editorWorkspace) Progress(msg string) { w.t.report(w.s.ctx, msg) }

// The turn's Env hands the anchored tools the buffers' line hashes.
var _ tools.Hashes = (*editorWorkspace)(nil)

func (w *editorWorkspace) PrivateDirs() []string { return settings.PrivateDirs(w.s.getenv) }

func (w *editorWorkspace) Propose(ctx context.Context, compute func(context.Context, tools.Source) (edits.Changeset, error)) (string, error) {
	var computeErr error
	o := w.s.propose(ctx, w.t, w.turn, "the tool call", w.label, func(ctx context.Context, b *edittool.Batch) (int, error) {
		b.Changes, computeErr = compute(ctx, b.Source)
		return 1, computeErr
	})
	if errors.Is(computeErr, approval.ErrStopTurn) {
		return "", computeErr
	}
	switch {
	case o.noop:
		return "", nil
	case o.applied:
		return o.message, nil
	case o.severity == protocol.MessageTypeError || o.severity == protocol.MessageTypeWarning:
		return "", &tools.Failure{Err: errors.New(o.message), Changed: o.changed}
	}
	return o.message, nil // queued for review
}
