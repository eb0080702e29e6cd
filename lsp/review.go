package lsp

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/edits"
	"github.com/agentls/agentls/lsp/internal/review"
)

const (
	cmdReviewAccept = "agentls.review.accept"
	cmdReviewReject = "agentls.review.reject"
	pendingCode     = "pending-edit"
)

// In review mode an agent's changes wait as pending hunks, shown as Hint
// diagnostics (source agentls, code pending-edit) with code actions to
// accept or reject each hunk, each file, or all. A hunk is kept as an
// edits.Hunk (its lines, with as little context as made it unique), so it
// is found again in whatever the buffer holds when the user acts: edits
// elsewhere in the file move it, an edit to its own lines makes it a
// conflict, which cannot be accepted. The store (lsp/internal/review) keeps
// where each hunk lies and moves it with each didChange, so code actions
// and diagnostics do not resolve hunks against the whole document. The
// commands here (queue, accept, reject) and the view (review_view.go) are
// one type, pendingView, over the store.

// queue turns a changeset into pending hunks and shows them.
func (v *pendingView) queue(ctx context.Context, changes []*edits.FileChange) int {
	n := 0
	for _, c := range changes {
		switch c.Action {
		case edits.Create:
			v.store.Add(&review.Pending{Path: c.Path, Create: true, Content: c.Result()})
			n++
			continue
		case edits.Delete:
			v.store.Add(&review.Pending{Path: c.Path, Remove: true})
			n++
			continue
		}
		for _, h := range edits.UniqueHunks(c.Base(), c.Result()) {
			v.store.Add(&review.Pending{Path: c.Path, Hunk: h})
			n++
		}
	}
	for _, p := range v.store.Files() {
		v.publish(ctx, p)
	}
	return n
}

// reviewArgs selects hunks: one by id, a file's, or all.
type reviewArgs struct {
	Hunk int                  `json:"hunk"`
	URI  protocol.DocumentURI `json:"uri"`
	All  bool                 `json:"all"`
}

// selector is a with its document made a path (fileOf: session.relPathOfURI).
func (a reviewArgs) selector(fileOf func(protocol.DocumentURI) (string, error)) review.Selector {
	sel := review.Selector{All: a.All, ID: a.Hunk}
	if a.URI != "" {
		if rel, err := fileOf(a.URI); err == nil {
			sel.Path = rel
		}
	}
	return sel
}

func (v *pendingView) command(accept bool, a reviewArgs) (any, error) {
	if a.Hunk == 0 && a.URI == "" && !a.All {
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, "give {\"hunk\": N}, {\"uri\": DOC} or {\"all\": true}")
	}
	v.goBackground("review", func(ctx context.Context) { v.resolve(ctx, accept, a) })
	return nil, nil
}

// resolve takes the selected hunks out of the store and, to accept them,
// sends them as one edit; what the editor refused waits again.
func (v *pendingView) resolve(ctx context.Context, accept bool, a reviewArgs) {
	taken := v.store.Take(a.selector(v.session().relPathOfURI))
	if len(taken) == 0 {
		v.client.showMessage(ctx, protocol.MessageTypeWarning, "agentls: no pending agent edit there")
		return
	}
	touched := map[string]bool{}
	for _, h := range taken {
		touched[h.Path] = true
	}
	defer func() {
		for p := range touched {
			v.publish(ctx, p)
		}
	}()
	if !accept {
		v.client.showMessage(ctx, protocol.MessageTypeInfo, "agentls: rejected %d pending %s", len(taken), plural(len(taken), "edit", "edits"))
		return
	}
	what := fmt.Sprintf("%d %s", len(taken), plural(len(taken), "edit", "edits"))
	compute := func(ctx context.Context) (edits.Changeset, error) { return v.accepted(ctx, taken) }
	cs, err := compute(ctx)
	var res sendResult
	if err == nil {
		res, err = v.send(ctx, sendRequest{
			label:     "agentls: accept " + what,
			changes:   cs,
			recompute: compute,
			journal:   &journalLine{turn: v.newTurn(), what: "accepted review of " + what},
		})
	}
	if len(res.skipped) > 0 {
		v.client.showMessage(ctx, protocol.MessageTypeWarning, "%s", skippedWarning(res.skipped))
	}
	var refused *refusedError
	switch {
	case errors.As(err, &refused) && refused.rest != nil:
		// The editor made the first files, then refused: their hunks are
		// accepted; the others wait again.
		rest := map[string]bool{}
		for _, c := range refused.rest {
			rest[c.Path] = true
		}
		var back []*review.Pending
		for _, h := range taken {
			if rest[h.Path] {
				back = append(back, h)
			}
		}
		v.store.PutBack(back)
		v.client.showMessage(ctx, protocol.MessageTypeError, "agentls: accepted the edits in %s (agent edit %d), then the editor refused %s (%s): those wait again", strings.Join(files(res.made), ", "), res.edit, strings.Join(files(refused.rest), ", "), refused.reason)
		return
	case errors.As(err, &refused):
		v.store.PutBack(taken)
		v.client.showMessage(ctx, protocol.MessageTypeError, "agentls: cannot accept: the editor refused it (%s); nothing changed", refused.reason)
		return
	case err != nil && !errors.Is(err, errAllSkipped):
		v.store.PutBack(taken)
		v.client.showMessage(ctx, protocol.MessageTypeError, "agentls: cannot accept: %v; nothing changed", err)
		return
	}
	note := ""
	if res.note != "" {
		note = "; " + res.note
	}
	v.client.showMessage(ctx, protocol.MessageTypeInfo, "agentls: accepted %s (agent edit %d)%s", what, res.edit, note)
}
