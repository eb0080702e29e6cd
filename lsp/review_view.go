package lsp

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/edits"
	"github.com/agentls/agentls/lsp/internal/documents"
	"github.com/agentls/agentls/lsp/internal/review"
	"github.com/agentls/agentls/tools/edittool"
)

// A pendingView is the pending review hunks as the editor sees and acts
// on them: where they lie in the buffers as they are now, their
// diagnostics and code actions, their diff, the changeset that accepts
// them (this file), and the commands that queue, accept, reject and show
// them (review.go, review_diff.go). Its dependencies are explicit: the
// review store, the buffers and the session to read; delivery's send, the
// journal's next turn, the client and the scratch folder to act and tell.
type pendingView struct {
	store   *review.Store
	docs    *documents.Store
	session func() *session

	client       *editorClient
	send         func(context.Context, sendRequest) (sendResult, error) // delivery.send
	newTurn      func() int                                             // the undo journal's next turn
	publish      func(ctx context.Context, path string)                 // Server.publishDiagnostics
	scratch      *scratchDir                                            // where the diff is written
	goBackground func(name string, fn func(context.Context))            // Server.goBackground
}

// source is the workspace as the editor has it (editorSource).
func (v *pendingView) source() editorSource {
	return editorSource{docs: v.docs, disk: edittool.DiskSource{Root: v.session().root}}
}

// accepted turns taken hunks into one changeset against the files
// as they are now; a hunk that no longer applies fails it whole.
func (v *pendingView) accepted(ctx context.Context, taken []*review.Pending) (edits.Changeset, error) {
	src := v.source()
	var cs edits.Changeset
	byFile := map[string][]edits.Hunk{}
	var order []string
	for _, h := range taken {
		switch {
		case h.Create:
			cs.Write(h.Path, "", false, edits.NotOpen, h.Content)
		case h.Remove:
			cur, v, _, _ := src.Read(ctx, h.Path)
			cs.Remove(h.Path, cur, v)
		default:
			if byFile[h.Path] == nil {
				order = append(order, h.Path)
			}
			byFile[h.Path] = append(byFile[h.Path], h.Hunk)
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

// actions are the accept/reject code actions for pending hunks in a
// range of a document: the hunks are looked up in the store's line index,
// so a request costs the hunks near the range, not the document.
func (v *pendingView) actions(ctx context.Context, d documents.Document, r protocol.Range) []protocol.CodeAction {
	rel, err := relPathIn(v.session().root, d)
	if err != nil || !v.store.Has(rel) {
		return nil
	}
	first, last := int(r.Start.Line), int(r.End.Line)
	pending, ok := v.store.Overlapping(rel, d.Buf, first, last)
	if !ok {
		// The store does not follow this buffer (opened since the hunks
		// were queued, or a copy older than a keystroke): place them on
		// the buffer as it is now, once.
		pending = pending[:0]
		for _, h := range v.placed(ctx, rel) {
			if !h.InText() || h.Placed && !h.Conflict && review.Meets(h.Range, first, last) {
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
		add(fmt.Sprintf("Accept agent edit %d", h.ID), cmdReviewAccept, reviewArgs{Hunk: h.ID})
		add(fmt.Sprintf("Reject agent edit %d", h.ID), cmdReviewReject, reviewArgs{Hunk: h.ID})
	}
	add("Accept all agent edits in this file", cmdReviewAccept, reviewArgs{URI: d.URI})
	add("Reject all agent edits in this file", cmdReviewReject, reviewArgs{URI: d.URI})
	add("Show diff of pending agent edits in this file", cmdReviewDiff, reviewArgs{URI: d.URI})
	add("Accept all agent edits", cmdReviewAccept, reviewArgs{All: true})
	add("Reject all agent edits", cmdReviewReject, reviewArgs{All: true})
	return actions
}

// placed returns a file's pending hunks, by id, where they lie in the
// file as the editor has it now. When the store follows the open buffer
// that is a copy; otherwise the hunks are placed on its whole text (or the
// file on disk) and, for a buffer, kept, so the store follows it from then
// on.
func (v *pendingView) placed(ctx context.Context, rel string) []review.Placed {
	sess := v.session()
	root, enc := sess.root, sess.encoding
	name := cleanFile(filepath.Join(root, filepath.FromSlash(rel)))
	for attempt := 0; ; attempt++ {
		d, open := v.docs.ByFile(name)
		if open {
			if hs, ok := v.store.PlacedOn(rel, d.Buf); ok {
				return hs
			}
		}
		todo, full := v.store.ToPlace(rel, d.Buf)
		if !open {
			text, _, _, _ := edittool.DiskSource{Root: root}.Read(ctx, rel)
			return v.store.WithPlacements(rel, review.PlaceAll(edits.NewBuffer(text), todo, enc))
		}
		got := review.PlaceAll(d.Buf, todo, enc)
		// Refused only when a keystroke moved the store on meanwhile:
		// then the placing starts again from the buffer after it.
		if v.store.Install(rel, d.Buf, full, got) || attempt == 2 {
			if hs, ok := v.store.PlacedOn(rel, d.Buf); ok {
				return hs
			}
			return v.store.WithPlacements(rel, got)
		}
	}
}

// diagnostics are Hint diagnostics on a file's pending review
// hunks, where they lie now, and Warnings on those whose lines the user
// changed.
func (v *pendingView) diagnostics(ctx context.Context, path string) []protocol.Diagnostic {
	if !v.store.Has(path) {
		return nil
	}
	var diags []protocol.Diagnostic
	for _, h := range v.placed(ctx, path) {
		d := protocol.Diagnostic{Severity: protocol.DiagnosticSeverityHint, Source: "agentls", Code: pendingCode}
		switch {
		case h.Create:
			d.Message = fmt.Sprintf("agent edit %d (pending): create this file (%d lines)", h.ID, strings.Count(strings.TrimSuffix(h.Content, "\n"), "\n")+1)
		case h.Remove:
			d.Message = fmt.Sprintf("agent edit %d (pending): delete this file", h.ID)
		case !h.Placed:
			continue // queued while this was read: its own publish shows it
		case h.Conflict:
			d.Severity = protocol.DiagnosticSeverityWarning
			d.Message = fmt.Sprintf("agent edit %d (pending) conflicts with your changes: reject it, or undo your change to accept it", h.ID)
		default:
			d.Range = h.Range
			d.Message = h.Summary
		}
		diags = append(diags, d)
	}
	return diags
}

// diff renders hunks, grouped by file, as one unified diff against
// the files' current text. Hunks that conflict with the user's changes
// are named in the header instead: there is nothing to show them against.
func (v *pendingView) diff(ctx context.Context, hs []*review.Pending) string {
	src := v.source()
	var order []string
	byFile := map[string][]*review.Pending{}
	for _, h := range hs {
		if byFile[h.Path] == nil {
			order = append(order, h.Path)
		}
		byFile[h.Path] = append(byFile[h.Path], h)
	}
	var ids, conflicts []string
	var body strings.Builder
	for _, path := range order {
		cur, _, _, err := src.Read(ctx, path)
		if err != nil {
			conflicts = append(conflicts, fmt.Sprintf("%s: %v", path, err))
			continue
		}
		c := edits.NewModify(path, cur, edits.NotOpen, cur)
		for _, h := range byFile[path] {
			switch {
			case h.Create:
				c.Action = edits.Create
				c.SetBase("")
				c.SetResult(h.Content)
			case h.Remove:
				c.Action = edits.Delete
				c.SetResult("")
			default:
				next, err := edits.ApplyHunks(c.Result(), []edits.Hunk{h.Hunk})
				if err != nil {
					conflicts = append(conflicts, fmt.Sprintf("edit %d in %s conflicts with your changes; it can only be rejected", h.ID, path))
					continue
				}
				c.SetResult(next)
			}
			ids = append(ids, fmt.Sprint(h.ID))
		}
		body.WriteString(c.UnifiedDiff())
	}
	var out strings.Builder
	fmt.Fprintf(&out, "# agentls: pending agent %s %s; accept or reject them with the code actions on the changed lines.\n",
		plural(len(ids), "edit", "edits"), strings.Join(ids, ", "))
	for _, c := range conflicts {
		fmt.Fprintf(&out, "# %s\n", c)
	}
	out.WriteString(body.String())
	return out.String()
}
