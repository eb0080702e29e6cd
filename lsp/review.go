package lsp

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/edits"
	"github.com/agentls/agentls/tools/edittool"
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
// conflict, which cannot be accepted. The store (review_store.go) keeps
// where each hunk lies and moves it with each didChange, so code actions
// and diagnostics do not resolve hunks against the whole document.

// queue turns a changeset into pending hunks and shows them.
func (s *Server) queue(ctx context.Context, changes []*edits.FileChange) int {
	n := 0
	for _, c := range changes {
		switch c.Action {
		case edits.Create:
			s.review.add(&pendingHunk{path: c.Path, create: true, content: c.Result()})
			n++
			continue
		case edits.Delete:
			s.review.add(&pendingHunk{path: c.Path, remove: true})
			n++
			continue
		}
		for _, h := range edits.UniqueHunks(c.Base, c.Result()) {
			s.review.add(&pendingHunk{path: c.Path, hunk: h})
			n++
		}
	}
	for _, p := range s.review.files() {
		s.publishDiagnostics(ctx, p)
	}
	return n
}

func describe(h edits.Hunk) string {
	return fmt.Sprintf("replace %d %s with %d — accept or reject it with a code action", len(h.Original), plural(len(h.Original), "line", "lines"), len(h.Updated))
}

// reviewArgs selects hunks: one by id, a file's, or all.
type reviewArgs struct {
	Hunk int                  `json:"hunk"`
	URI  protocol.DocumentURI `json:"uri"`
	All  bool                 `json:"all"`
}

func (s *Server) reviewCommand(accept bool, a reviewArgs) (any, error) {
	if a.Hunk == 0 && a.URI == "" && !a.All {
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, "give {\"hunk\": N}, {\"uri\": DOC} or {\"all\": true}")
	}
	s.goBackground("review", func(ctx context.Context) { s.resolveReview(ctx, accept, a) })
	return nil, nil
}

func (s *Server) resolveReview(ctx context.Context, accept bool, a reviewArgs) {
	taken := s.review.take(a, s.relPathOfURI)
	if len(taken) == 0 {
		s.showMessage(ctx, protocol.MessageTypeWarning, "agentls: no pending agent edit there")
		return
	}
	touched := map[string]bool{}
	for _, h := range taken {
		touched[h.path] = true
	}
	defer func() {
		for p := range touched {
			s.publishDiagnostics(ctx, p)
		}
	}()
	if !accept {
		s.showMessage(ctx, protocol.MessageTypeInfo, "agentls: rejected %d pending %s", len(taken), plural(len(taken), "edit", "edits"))
		return
	}
	what := fmt.Sprintf("%d %s", len(taken), plural(len(taken), "edit", "edits"))
	compute := func(ctx context.Context) (edits.Changeset, error) { return s.acceptedChanges(ctx, taken) }
	cs, err := compute(ctx)
	var res sendResult
	if err == nil {
		res, err = s.send(ctx, sendRequest{
			label:     "agentls: accept " + what,
			changes:   cs,
			recompute: compute,
			journal:   &journalLine{turn: s.newTurn(), what: "accepted review of " + what},
		})
	}
	if len(res.skipped) > 0 {
		s.showMessage(ctx, protocol.MessageTypeWarning, "%s", skippedWarning(res.skipped))
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
		var back []*pendingHunk
		for _, h := range taken {
			if rest[h.path] {
				back = append(back, h)
			}
		}
		s.review.putBack(back)
		s.showMessage(ctx, protocol.MessageTypeError, "agentls: accepted the edits in %s (agent edit %d), then the editor refused %s (%s): those wait again", strings.Join(files(res.made), ", "), res.edit, strings.Join(files(refused.rest), ", "), refused.reason)
		return
	case errors.As(err, &refused):
		s.review.putBack(taken)
		s.showMessage(ctx, protocol.MessageTypeError, "agentls: cannot accept: the editor refused it (%s); nothing changed", refused.reason)
		return
	case err != nil && !errors.Is(err, errAllSkipped):
		s.review.putBack(taken)
		s.showMessage(ctx, protocol.MessageTypeError, "agentls: cannot accept: %v; nothing changed", err)
		return
	}
	note := ""
	if res.note != "" {
		note = "; " + res.note
	}
	s.showMessage(ctx, protocol.MessageTypeInfo, "agentls: accepted %s (agent edit %d)%s", what, res.edit, note)
}

// acceptedChanges turns taken hunks into one changeset against the files
// as they are now; a hunk that no longer applies fails it whole.
func (s *Server) acceptedChanges(ctx context.Context, taken []*pendingHunk) (edits.Changeset, error) {
	src := s.source()
	var cs edits.Changeset
	byFile := map[string][]edits.Hunk{}
	var order []string
	for _, h := range taken {
		switch {
		case h.create:
			cs.Write(h.path, "", false, edits.NotOpen, h.content)
		case h.remove:
			cur, v, _, _ := src.Read(ctx, h.path)
			cs.Remove(h.path, cur, v)
		default:
			if byFile[h.path] == nil {
				order = append(order, h.path)
			}
			byFile[h.path] = append(byFile[h.path], h.hunk)
		}
	}
	for _, p := range order {
		cur, v, exists, err := src.Read(ctx, p)
		if err == nil && !exists {
			err = fmt.Errorf("the file no longer exists")
		}
		var result string
		if err == nil {
			result, err = edits.ApplyHunks(cur, byFile[p])
		}
		if err != nil {
			return edits.Changeset{}, fmt.Errorf("%s: %w", p, err)
		}
		cs.Write(p, cur, true, v, result)
	}
	return cs, nil
}

// reviewActions are the accept/reject code actions for pending hunks in a
// range of a document: the hunks are looked up in the store's line index,
// so a request costs the hunks near the range, not the document.
func (s *Server) reviewActions(d document, r protocol.Range) []protocol.CodeAction {
	rel, err := s.relPath(d)
	if err != nil || !s.review.has(rel) {
		return nil
	}
	first, last := int(r.Start.Line), int(r.End.Line)
	pending, ok := s.review.overlapping(rel, d.buf, first, last)
	if !ok {
		// The store does not follow this buffer (opened since the hunks
		// were queued, or a copy older than a keystroke): place them on
		// the buffer as it is now, once.
		pending = pending[:0]
		for _, h := range s.placedHunks(s.ctx, rel) {
			if !h.inText() || h.placed && !h.conflict && meets(h.rng, first, last) {
				pending = append(pending, h)
			}
		}
	}
	var actions []protocol.CodeAction
	add := func(title, command string, arg any) {
		actions = append(actions, protocol.CodeAction{Title: title, Kind: protocol.QuickFix,
			Command: &protocol.Command{Title: title, Command: command, Arguments: []any{arg}}})
	}
	for _, h := range pending {
		add(fmt.Sprintf("Accept agent edit %d", h.id), cmdReviewAccept, reviewArgs{Hunk: h.id})
		add(fmt.Sprintf("Reject agent edit %d", h.id), cmdReviewReject, reviewArgs{Hunk: h.id})
	}
	add("Accept all agent edits in this file", cmdReviewAccept, reviewArgs{URI: d.uri})
	add("Reject all agent edits in this file", cmdReviewReject, reviewArgs{URI: d.uri})
	add("Show diff of pending agent edits in this file", cmdReviewDiff, reviewArgs{URI: d.uri})
	add("Accept all agent edits", cmdReviewAccept, reviewArgs{All: true})
	add("Reject all agent edits", cmdReviewReject, reviewArgs{All: true})
	return actions
}

// placedHunks returns a file's pending hunks, by id, where they lie in the
// file as the editor has it now. When the store follows the open buffer
// that is a copy; otherwise the hunks are placed on its whole text (or the
// file on disk) and, for a buffer, kept, so the store follows it from then
// on.
func (s *Server) placedHunks(ctx context.Context, rel string) []placedHunk {
	sess := s.session()
	root, enc := sess.root, sess.encoding
	name := cleanFile(filepath.Join(root, filepath.FromSlash(rel)))
	for attempt := 0; ; attempt++ {
		d, open := s.docs.byFile(name)
		if open {
			if hs, ok := s.review.placedOn(rel, d.buf); ok {
				return hs
			}
		}
		todo, full := s.review.toPlace(rel, d.buf)
		if !open {
			text, _, _, _ := edittool.DiskSource{Root: root}.Read(ctx, rel)
			return s.review.withPlacements(rel, placeAll(edits.NewBuffer(text), todo, enc))
		}
		got := placeAll(d.buf, todo, enc)
		// Refused only when a keystroke moved the store on meanwhile:
		// then the placing starts again from the buffer after it.
		if s.review.install(rel, d.buf, full, got) || attempt == 2 {
			if hs, ok := s.review.placedOn(rel, d.buf); ok {
				return hs
			}
			return s.review.withPlacements(rel, got)
		}
	}
}

// pendingDiagnostics are Hint diagnostics on a file's pending review
// hunks, where they lie now, and Warnings on those whose lines the user
// changed.
func (s *Server) pendingDiagnostics(ctx context.Context, path string) []protocol.Diagnostic {
	if !s.review.has(path) {
		return nil
	}
	var diags []protocol.Diagnostic
	for _, h := range s.placedHunks(ctx, path) {
		d := protocol.Diagnostic{Severity: protocol.DiagnosticSeverityHint, Source: "agentls", Code: pendingCode}
		switch {
		case h.create:
			d.Message = fmt.Sprintf("agent edit %d (pending): create this file (%d lines)", h.id, strings.Count(strings.TrimSuffix(h.content, "\n"), "\n")+1)
		case h.remove:
			d.Message = fmt.Sprintf("agent edit %d (pending): delete this file", h.id)
		case !h.placed:
			continue // queued while this was read: its own publish shows it
		case h.conflict:
			d.Severity = protocol.DiagnosticSeverityWarning
			d.Message = fmt.Sprintf("agent edit %d (pending) conflicts with your changes: reject it, or undo your change to accept it", h.id)
		default:
			d.Range = h.rng
			d.Message = h.summary
		}
		diags = append(diags, d)
	}
	return diags
}
