package lsp

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/edits"
	"github.com/agentls/agentls/lsp/internal/documents"
	"github.com/agentls/agentls/lsp/internal/position"
	"github.com/agentls/agentls/settings"
	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/builtin"
	"github.com/agentls/agentls/tools/edittool"
)

const cmdApplyReply = "agentls.applyReply"

// applyReplyArgs: the reply as text, or the document (and range) holding
// it.
type applyReplyArgs struct {
	Text  string               `json:"text"`
	URI   protocol.DocumentURI `json:"uri"`
	Range *protocol.Range      `json:"range"`
}

// applyReplyCommand applies the reply the argument holds or names.
func (s *Server) applyReplyCommand(_ context.Context, a applyReplyArgs) (any, error) {
	text, err := s.replyText(a)
	if err != nil {
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, err.Error())
	}
	// Reply at once: the edit goes to the client as a request of our
	// own, which it may only answer once this one is answered. One apply
	// is a turn of its own: agentls.turn.undo reverts it.
	turn := s.journal.NewTurn()
	s.goTask("agentls: apply reply", func(ctx context.Context, t *task) { s.applyReply(ctx, t, turn, text) })
	return map[string]int{"turn": turn}, nil
}

// replyText returns the reply a command names.
func (s *Server) replyText(a applyReplyArgs) (string, error) {
	if a.URI == "" {
		if a.Text == "" {
			return "", fmt.Errorf("give the reply as {\"text\": ...} or the document holding it as {\"uri\": ...}")
		}
		return a.Text, nil
	}
	d, ok := s.docs.Get(a.URI)
	if !ok {
		return "", fmt.Errorf("%s is not open", a.URI)
	}
	if a.Range == nil {
		return d.Text(), nil
	}
	return s.rangeText(d, *a.Range)
}

func (s *Server) rangeText(d documents.Document, r protocol.Range) (string, error) {
	start, end, err := position.New(d.Buf, s.session().encoding).Offsets(r)
	if err != nil {
		return "", fmt.Errorf("bad range %v: %w", r, err)
	}
	return d.Buf.Slice(start, end)
}

// applyReply runs the edits of a reply against the editor's buffers and
// sends them as one WorkspaceEdit. Nothing is half-applied: an edit that
// fails stops them all, and the user is told why.
func (s *Server) applyReply(ctx context.Context, t *task, turn int, reply string) {
	format, _ := tools.ParseFormat(s.settings.get().ToolFormat) // validated when set
	approved := false
	o := s.propose(ctx, t, turn, "the reply", "reply", func(ctx context.Context, b *edittool.Batch) (int, error) {
		res, err := b.ApplyReply(ctx, reply, format, builtin.Registry())
		if err == nil && !approved {
			// A pasted reply is a model's words too: its edits to files
			// that configure what runs are put to the user first.
			err = b.ConfirmProtected(ctx, confirmer{s: s, who: "the reply"}, settings.PrivateDirs(s.getenv)...)
			approved = err == nil
		}
		return res.Edits, err
	})
	t.finish(o.severity, o.message)
}

// An outcome is what became of a proposed change, told as a message for
// the user (and, in an agent turn, the model).
type outcome struct {
	applied  bool
	noop     bool // compute changed nothing
	severity protocol.MessageType
	message  string
	// changed is what a failure left behind, for the model
	// (tools.ChangedOf): nothing, but for an editor that made part of
	// the edit, or did not answer.
	changed tools.Change
}

// propose computes a change with compute (a Batch against the editor's
// buffers, or the disk for files not open) and sends it as ONE versioned
// WorkspaceEdit (send), or queues it for review in review mode. If the
// editor refuses because a buffer moved on (the user typed meanwhile), it
// is computed once more against the new text; if refused again, it is
// kept as pending review so nothing is lost. An applied change is
// journalled under turn (label says what for).
func (s *Server) propose(ctx context.Context, t *task, turn int, what, label string, compute func(context.Context, *edittool.Batch) (int, error)) outcome {
	root := s.session().root
	fail := func(sev protocol.MessageType, format string, args ...any) outcome {
		return outcome{severity: sev, message: fmt.Sprintf(format, args...), changed: tools.ChangeNone}
	}
	if root == "" {
		return fail(protocol.MessageTypeError, "agentls: no workspace folder: open a folder so edits have a root")
	}
	n := 0
	run := func(ctx context.Context) (edits.Changeset, error) {
		batch := &edittool.Batch{Root: root, Source: s.source(), Hashes: s.source()}
		var err error
		n, err = compute(ctx, batch)
		if n == 0 && err == nil {
			return edits.Changeset{}, nil
		}
		return batch.Changes, err
	}
	cs, err := run(ctx)
	switch {
	case ctx.Err() != nil:
		return fail(protocol.MessageTypeInfo, "agentls: cancelled; nothing applied")
	case err != nil:
		return fail(protocol.MessageTypeError, "agentls: nothing applied: %v", err)
	case len(cs.Effective()) == 0:
		return outcome{noop: true, severity: protocol.MessageTypeWarning, message: fmt.Sprintf("agentls: %s has no edits to apply", what)}
	}
	changes := cs.Effective()
	if s.settings.get().ApplyMode == "review" {
		k := s.pendingView.queue(ctx, changes)
		return outcome{severity: protocol.MessageTypeInfo, message: fmt.Sprintf("agentls: %d agent %s pending review in %d %s: accept or reject them with code actions", k, plural(k, "edit", "edits"), len(changes), plural(len(changes), "file", "files"))}
	}
	t.report(ctx, fmt.Sprintf("sending %d %s in %d %s", n, plural(n, "edit", "edits"), len(changes), plural(len(changes), "file", "files")))
	res, err := s.delivery.send(ctx, sendRequest{
		label:     fmt.Sprintf("agentls: apply %s (%d %s)", label, len(changes), plural(len(changes), "file", "files")),
		changes:   cs,
		recompute: run,
		keep:      true,
		journal:   &journalLine{turn: turn, what: label},
	})
	if len(res.skipped) > 0 {
		s.client.showMessage(context.WithoutCancel(ctx), protocol.MessageTypeWarning, "%s", skippedWarning(res.skipped))
	}
	var refused *refusedError
	var unanswered *unansweredError
	switch {
	case err == nil:
	case errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded):
		return fail(protocol.MessageTypeInfo, "agentls: cancelled; nothing applied")
	case errors.Is(err, errNoChanges):
		return outcome{noop: true, severity: protocol.MessageTypeWarning, message: fmt.Sprintf("agentls: %s has no edits to apply", what)}
	case errors.Is(err, errAllSkipped):
		return fail(protocol.MessageTypeWarning, "agentls: the editor skipped every file of the edit")
	case errors.As(err, &refused) && refused.rest != nil:
		// The editor made the first files, then refused (Helix aborts at
		// the change that failed): they stay, journalled; the rest waits.
		k := queuedOf(err)
		o := fail(protocol.MessageTypeError, "agentls: the editor made the edit in %s (agent turn %d, edit %d), then %s: %s %s not changed. Its %d %s are kept as pending review: accept them when ready (code actions, or agentls.review.accept {\"all\": true}), see them with agentls.review.diff, or reject them",
			strings.Join(files(res.made), ", "), turn, res.edit, err, strings.Join(files(refused.rest), ", "), map[bool]string{true: "was", false: "were"}[len(refused.rest) == 1], k, plural(k, "change", "changes"))
		o.changed = tools.ChangePartial
		return o
	case errors.As(err, &refused), errors.As(err, &unanswered):
		// Nothing is lost: the changes wait as pending review hunks, to
		// be accepted (against whatever the buffers hold then), shown as
		// a diff, or rejected.
		why := err.Error()
		if refused != nil {
			why += "; nothing was changed"
		}
		k := queuedOf(err)
		o := fail(protocol.MessageTypeError, "agentls: %s. Its %d %s are kept as pending review: accept them when ready (code actions, or agentls.review.accept {\"all\": true}), see them with agentls.review.diff, or reject them",
			why, k, plural(k, "change", "changes"))
		if refused == nil {
			o.changed = tools.ChangeUnknown // it may apply it yet
		}
		return o
	default:
		return fail(protocol.MessageTypeError, "agentls: nothing applied: %v", err)
	}
	msg := fmt.Sprintf("agentls: applied %d %s in %s (%s)", n, plural(n, "edit", "edits"), strings.Join(files(res.made), ", "), s.editorKeys().undoHint(turn))
	if res.note != "" {
		msg += "; " + res.note
	}
	return outcome{applied: true, severity: protocol.MessageTypeInfo, message: msg}
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
