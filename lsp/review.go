package lsp

import (
	"context"
	"fmt"
	"slices"
	"sync"

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
// conflict, which cannot be accepted.

// A pendingHunk is one change waiting for review.
type pendingHunk struct {
	id   int
	path string // relative to the root
	hunk edits.Hunk
	// create and remove mark a whole new or deleted file.
	create, remove bool
	content        string // a created file's content
}

// review is the set of pending hunks.
type review struct {
	mu      sync.Mutex
	pending []*pendingHunk
	next    int
}

func (r *review) add(h *pendingHunk) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.next++
	h.id = r.next
	r.pending = append(r.pending, h)
}

// take removes and returns the hunks a selector names.
func (r *review) take(sel reviewArgs, fileOf relPathFunc) []*pendingHunk {
	r.mu.Lock()
	defer r.mu.Unlock()
	var taken []*pendingHunk
	kept := r.pending[:0]
	for _, h := range r.pending {
		if sel.matches(h, fileOf) {
			taken = append(taken, h)
		} else {
			kept = append(kept, h)
		}
	}
	r.pending = kept
	return taken
}

// peek returns the hunks a selector names, leaving them pending.
func (r *review) peek(sel reviewArgs, fileOf relPathFunc) []*pendingHunk {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []*pendingHunk
	for _, h := range r.pending {
		if sel.matches(h, fileOf) {
			out = append(out, h)
		}
	}
	return out
}

// relPathFunc gives a document's path relative to the workspace root
// (Server.relPathOfURI).
type relPathFunc func(protocol.DocumentURI) (string, error)

func (a reviewArgs) matches(h *pendingHunk, fileOf relPathFunc) bool {
	if a.All || a.Hunk == h.id {
		return true
	}
	if a.URI == "" {
		return false
	}
	rel, err := fileOf(a.URI)
	return err == nil && rel == h.path
}

func (r *review) putBack(hs []*pendingHunk) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.pending = append(r.pending, hs...)
	slices.SortFunc(r.pending, func(a, b *pendingHunk) int { return a.id - b.id })
}

func (r *review) inFile(path string) []*pendingHunk {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []*pendingHunk
	for _, h := range r.pending {
		if h.path == path {
			out = append(out, h)
		}
	}
	return out
}

func (r *review) files() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, h := range r.pending {
		if !slices.Contains(out, h.path) {
			out = append(out, h.path)
		}
	}
	return out
}

// queue turns a changeset into pending hunks and shows them.
func (s *Server) queue(ctx context.Context, changes []*edits.FileChange) int {
	n := 0
	for _, c := range changes {
		switch c.Action {
		case edits.Create:
			s.review.add(&pendingHunk{path: c.Path, create: true, content: c.Result})
			n++
			continue
		case edits.Delete:
			s.review.add(&pendingHunk{path: c.Path, remove: true})
			n++
			continue
		}
		for _, h := range edits.UniqueHunks(c.Base, c.Result) {
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
	s.mu.Lock()
	root := s.root
	s.mu.Unlock()
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
	// Accepting: the hunks become one changeset against the files now.
	src := editorSource{s: s, disk: edittool.DiskSource{Root: root}}
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
			s.review.putBack(taken)
			s.showMessage(ctx, protocol.MessageTypeError, "agentls: cannot accept: %s: %v; nothing changed", p, err)
			return
		}
		cs.Write(p, cur, true, v, result)
	}
	we, err := s.workspaceEditFor(&cs)
	if err == nil {
		var res applyEditResult
		if res, err = s.applyEdit(ctx, fmt.Sprintf("agentls: accept %d %s", len(taken), plural(len(taken), "edit", "edits")), we); err == nil && !res.Applied {
			err = fmt.Errorf("the editor refused it (%s)", res.FailureReason)
		}
	}
	if err != nil {
		s.review.putBack(taken)
		s.showMessage(ctx, protocol.MessageTypeError, "agentls: cannot accept: %v; nothing changed", err)
		return
	}
	changes := cs.Effective()
	s.awaitEditorEcho(ctx, changes)
	changes = s.recoverSkipped(ctx, changes)
	id, note := s.journal.record(s.newTurn(), fmt.Sprintf("accepted review (%d %s)", len(taken), plural(len(taken), "edit", "edits")), changes)
	if note != "" {
		note = "; " + note
	}
	s.showMessage(ctx, protocol.MessageTypeInfo, "agentls: accepted %d %s (agent edit %d)%s", len(taken), plural(len(taken), "edit", "edits"), id, note)
}

// reviewActions are the accept/reject code actions for pending hunks in a
// range of a document.
func (s *Server) reviewActions(d document, r protocol.Range) []protocol.CodeAction {
	rel, err := s.relPath(d)
	if err != nil {
		return nil
	}
	pending := s.review.inFile(rel)
	if len(pending) == 0 {
		return nil
	}
	s.mu.Lock()
	enc := s.encoding
	s.mu.Unlock()
	lo, _ := d.buf.Offset(int(r.Start.Line), 0, enc)
	hi, _ := d.buf.Offset(int(r.End.Line)+1, 0, enc)
	if int(r.End.Line)+1 >= d.buf.Lines() {
		hi = d.buf.Len()
	}
	var actions []protocol.CodeAction
	add := func(title, command string, arg any) {
		actions = append(actions, protocol.CodeAction{Title: title, Kind: protocol.QuickFix,
			Command: &protocol.Command{Title: title, Command: command, Arguments: []any{arg}}})
	}
	for _, h := range pending {
		if !h.create && !h.remove {
			es, err := edits.ResolveHunks(d.text(), []edits.Hunk{h.hunk})
			if err != nil || es[0].End < lo || es[0].Start > hi {
				continue
			}
		}
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
