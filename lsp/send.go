package lsp

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/agentls/agentls/edits"
	"go.lsp.dev/protocol"
)

// This file is the one way a change reaches the editor. Agent edits, a
// pasted reply, undo and redo, accepted review hunks and the chat writer
// all build an edits.Changeset and hand it to send, which pins each
// buffer to the version the change was computed on, sends ONE
// workspace/applyEdit, waits for the editor's echo, recovers the buffers
// Neovim skipped, computes the change once more when the editor refuses
// it, keeps a refused change as pending review when asked to, and
// journals what the editor made. Its result and errors are typed; the
// words for the user and the model are made by the callers from them.

// A sendRequest is one change for send.
type sendRequest struct {
	// label names the edit in the editor's undo history.
	label string
	// changes were computed on the buffers and files as they were.
	changes edits.Changeset
	// recompute, if set, computes the change again on the buffers as they
	// are now; send calls it once when the editor refuses the edit (the
	// usual reason: a buffer moved on while the edit was on its way).
	recompute func(ctx context.Context) (edits.Changeset, error)
	// keep queues a change the editor refused or did not answer as
	// pending review, so nothing the agent wrote is lost.
	keep bool
	// journal, if set, records what the editor made in the journal.
	journal *journalLine
}

// A journalLine is where send records a change: its turn and what it
// was; the journal's label adds the files the editor changed.
type journalLine struct {
	turn int
	what string // "reply": journalled as "reply (a.go, b.go)"
}

// A sendResult is what the editor made of a change.
type sendResult struct {
	// made are the changes the editor holds now.
	made []*edits.FileChange
	// skipped are the changes the editor skipped twice (Neovim skips a
	// buffer the user changed meanwhile): nothing changed in those files.
	skipped []*edits.FileChange
	// edit is the journal's id for the change (0: not journalled), and
	// note what the journal dropped to stay in its bounds.
	edit int
	note string
}

// files names the files of changes, sorted.
func files(changes []*edits.FileChange) []string {
	var names []string
	for _, c := range changes {
		names = append(names, c.Path)
	}
	slices.Sort(names)
	return names
}

var (
	// errNoChanges: the change leaves every file as it is.
	errNoChanges = errors.New("no changes")
	// errAllSkipped: the editor answered "applied" and skipped every
	// buffer, twice; the sendResult's skipped says which.
	errAllSkipped = errors.New("the editor skipped every file of the edit")
)

// A notSentError is a change that could not be made into a WorkspaceEdit
// (a path that moved under it, a client that cannot create files).
type notSentError struct{ err error }

func (e *notSentError) Error() string { return e.err.Error() }
func (e *notSentError) Unwrap() error { return e.err }

// A refusedError is the editor's applied: false, after the one
// recompute; queued says how many hunks wait as pending review. An editor
// that aborts at the change that failed keeps the ones before it: those
// are the sendResult's made (journalled), and only the rest is queued.
type refusedError struct {
	reason string
	queued int
	// rest are the changes the editor did not make, when it made some.
	rest []*edits.FileChange
}

func (e *refusedError) Error() string {
	if e.reason == "" {
		return "the editor refused the edit (no reason given)"
	}
	return fmt.Sprintf("the editor refused the edit (%s)", e.reason)
}

// An unansweredError is an applyEdit the editor did not answer in time or
// that failed on the wire; queued as for refusedError.
type unansweredError struct {
	err    error
	queued int
}

func (e *unansweredError) Error() string {
	return fmt.Sprintf("the editor did not answer the edit (%v)", e.err)
}
func (e *unansweredError) Unwrap() error { return e.err }

// queuedOf is how many hunks a refused or unanswered change left pending.
func queuedOf(err error) int {
	var r *refusedError
	var u *unansweredError
	switch {
	case errors.As(err, &r):
		return r.queued
	case errors.As(err, &u):
		return u.queued
	}
	return 0
}

// send sends req's change to the editor as one WorkspaceEdit and returns
// what the editor made of it. An error means nothing changed (but see
// sendRequest.keep), except errAllSkipped, which is told like one.
// Cancelling ctx stops a change not yet sent; once sent, the editor's
// answer is awaited, so the outcome is known and journalled.
func (s *Server) send(ctx context.Context, req sendRequest) (sendResult, error) {
	cs := req.changes
	for attempt := 0; ; attempt++ {
		changes := cs.Effective()
		if len(changes) == 0 {
			return sendResult{}, errNoChanges
		}
		we, err := s.workspaceEditFor(&cs)
		if err != nil {
			return sendResult{}, &notSentError{err}
		}
		if ctx.Err() != nil {
			return sendResult{}, context.Cause(ctx)
		}
		ctx = context.WithoutCancel(ctx)
		w := s.docs.watch(s.openVersions(changes))
		res, err := s.applyEdit(ctx, req.label, we)
		if err == nil && res.Applied {
			defer s.docs.unwatch(w)
			return s.sent(ctx, req, w, res.after, changes)
		}
		if err == nil {
			if made := s.madeBeforeFailure(we, res, changes); len(made) > 0 {
				// Part of the edit is in the buffers: it is not computed
				// again (that would apply it twice); what was made is
				// journalled, the rest kept.
				defer s.docs.unwatch(w)
				return s.partlyMade(ctx, req, w, res, made, changes[len(made):])
			}
		}
		s.docs.unwatch(w)
		if err == nil && attempt == 0 && req.recompute != nil {
			// The refusal may come from a buffer that moved on (the user
			// typed): its didChange can still be on its way behind the
			// answer, so give the buffers a moment to catch up first.
			s.log.Info("the editor refused the edit: computing it once more on the current buffers", "label", req.label, "reason", res.FailureReason)
			s.docs.waitVersionsPast(ctx, s.openVersions(changes), true, 500*time.Millisecond)
			if cs, err = req.recompute(ctx); err != nil {
				return sendResult{}, err
			}
			continue
		}
		queued := 0
		if req.keep {
			queued = s.queue(ctx, changes)
		}
		if err != nil {
			return sendResult{}, &unansweredError{err: err, queued: queued}
		}
		return sendResult{}, &refusedError{reason: res.FailureReason, queued: queued}
	}
}

// sent finishes a change the editor said it applied: it waits for the
// echo, recovers skipped buffers, and journals what was made.
func (s *Server) sent(ctx context.Context, req sendRequest, w *echoWatch, after uint64, changes []*edits.FileChange) (sendResult, error) {
	made, skipped := s.confirmEcho(ctx, w, after, req.label, changes)
	out := sendResult{made: made, skipped: skipped}
	if len(made) == 0 {
		return out, errAllSkipped
	}
	if req.journal != nil {
		label := fmt.Sprintf("%s (%s)", req.journal.what, strings.Join(files(made), ", "))
		out.edit, out.note = s.journal.record(req.journal.turn, label, made)
	}
	return out, nil
}

// madeBeforeFailure returns the changes an editor that refused an edit
// made anyway: with failureHandling "abort" (Helix) every change before
// the one that failed (failedChange, an index into documentChanges) stays
// applied. Other clients apply nothing of a refused edit.
func (s *Server) madeBeforeFailure(we workspaceEdit, res applyEditResult, changes []*edits.FileChange) []*edits.FileChange {
	if res.FailedChange == nil || *res.FailedChange <= 0 || len(we.DocumentChanges) == 0 ||
		s.session().caps.Workspace.WorkspaceEdit.FailureHandling != "abort" {
		return nil
	}
	// Each change is one entry of documentChanges, or two for a created
	// file (CreateFile, then its text): consecutive entries of one URI.
	// The changes before the failing entry's own change were made.
	change, lastURI := -1, protocol.DocumentURI("")
	for i, dc := range we.DocumentChanges {
		if u := documentChangeURI(dc); i == 0 || u != lastURI {
			change, lastURI = change+1, u
		}
		if i == *res.FailedChange {
			return changes[:min(change, len(changes))]
		}
	}
	return nil
}

func documentChangeURI(dc any) protocol.DocumentURI {
	switch c := dc.(type) {
	case textDocumentEdit:
		return c.TextDocument.URI
	case createFile:
		return c.URI
	case deleteFile:
		return c.URI
	}
	return ""
}

// partlyMade finishes an edit the editor refused after making its first
// changes (made): their echo is confirmed and they are journalled, the
// rest is queued when the request keeps what it sends, and the error
// says what was refused.
func (s *Server) partlyMade(ctx context.Context, req sendRequest, w *echoWatch, res applyEditResult, made, rest []*edits.FileChange) (sendResult, error) {
	out, err := s.sent(ctx, req, w, res.after, made)
	if err != nil && !errors.Is(err, errAllSkipped) {
		return out, err
	}
	queued := 0
	if req.keep {
		queued = s.queue(ctx, rest)
	}
	return out, &refusedError{reason: res.FailureReason, queued: queued, rest: rest}
}

// echoWait bounds the wait for the messages the editor sent before its
// answer to an applyEdit to be handled (they are read already; only a
// slow handler ahead of them delays them).
const echoWait = 2 * time.Second

// unheardBufferWait bounds how long a skip check waits for the didChange
// of a buffer an edit was sent to.
const unheardBufferWait = 5 * time.Second

// confirmEcho waits until the server's buffers are the editor's after an
// applied edit, and returns the changes the editor made and those it
// skipped (after sending the skipped ones once more). after numbers the
// last message the editor sent before its answer; w kept the states the
// buffers went through.
//
// Only editors known to skip are checked for skips: Neovim 0.7 skips a
// buffer newer than the edit's version (the user typed meanwhile) and
// still answers applied: true. It sends the didChange of each change it
// applies before it answers, so a buffer is judged as the last message
// before the answer left it: one that does not hold its change there was
// skipped — exactly, and whatever the user did after. A buffer not heard
// from before the answer (a client with a debounce set) is waited for,
// then judged as it is. Other editors (eglot, VS Code) may send their
// didChange after the answer, and a late echo must not be taken for a
// skip: for them the echo is awaited briefly, so the next command sees
// the buffers as they are.
func (s *Server) confirmEcho(ctx context.Context, w *echoWatch, after uint64, label string, changes []*edits.FileChange) (made, skipped []*edits.FileChange) {
	if !s.session().quirks.skipsNewerBuffers {
		s.inbound.wait(ctx, after, echoWait)
		s.docs.waitVersionsPast(ctx, s.openVersions(changes), false, time.Second)
		return changes, nil
	}
	made, skipped = s.judgeEcho(ctx, w, after, changes)
	if len(skipped) == 0 {
		return made, nil
	}
	s.log.Info("the editor skipped buffers it said it applied: sending them again", "files", len(skipped))
	var cs edits.Changeset
	for _, c := range skipped {
		cs.Write(c.Path, c.Base, true, c.Version, c.Result())
	}
	retry := cs.Effective()
	we, err := s.workspaceEditFor(&cs)
	if err != nil {
		return made, skipped
	}
	w2 := s.docs.watch(s.openVersions(retry))
	defer s.docs.unwatch(w2)
	res, err := s.applyEdit(ctx, fmt.Sprintf("%s (again: %d skipped %s)", label, len(retry), plural(len(retry), "file", "files")), we)
	if err != nil || !res.Applied {
		return made, skipped
	}
	retried, again := s.judgeEcho(ctx, w2, res.after, retry)
	return append(made, retried...), again
}

// judgeEcho waits for the messages up to after, then sorts changes into
// those the buffers hold as that message left them and those skipped
// (rebased onto the buffers as they are now, to be sent again).
func (s *Server) judgeEcho(ctx context.Context, w *echoWatch, after uint64, changes []*edits.FileChange) (made, skipped []*edits.FileChange) {
	s.inbound.wait(ctx, after, echoWait)
	root := s.session().root
	for _, c := range changes {
		if c.Version == edits.NotOpen || c.Action != edits.Modify {
			made = append(made, c)
			continue
		}
		file := cleanFile(filepath.Join(root, filepath.FromSlash(c.Path)))
		st, ok := s.docs.echoAt(w, file, after)
		if !ok || st.version == c.Version {
			// Not heard from before the answer: Neovim sends a didChange
			// whether it applied the edit or skipped it (it skips only a
			// buffer the user changed), so wait for it.
			s.docs.waitVersionsPast(ctx, map[string]int32{file: c.Version}, false, unheardBufferWait)
			d, open := s.docs.byFile(file)
			if !open {
				made = append(made, c)
				continue
			}
			st = echoState{version: d.version, buf: d.buf}
		}
		if again, skip := s.skippedChange(file, st.buf.Text(), c); skip {
			skipped = append(skipped, again)
			continue
		}
		made = append(made, c)
	}
	return made, skipped
}

// skippedChange reports whether the buffer text (as the editor's answer
// left it) lacks change c, and if so returns c rebased onto the buffer
// as it is now, to be sent again. A change counts as made when the buffer
// holds its result, or when its hunks are found already applied there.
// When it cannot be placed at all, the user has rewritten those lines:
// nothing is claimed either way, and the change is kept as made.
func (s *Server) skippedChange(file, text string, c *edits.FileChange) (*edits.FileChange, bool) {
	result := c.Result()
	if text == result || text == result+"\n" && !strings.HasSuffix(result, "\n") {
		// Neovim keeps a final newline on every buffer: a change that
		// leaves the text without one (the chat writer, mid-line) comes
		// back with one, and is there.
		return nil, false
	}
	// Re-applying the change changes nothing when it is there (the
	// engine sees it already applied); if it would still change the
	// text, the editor skipped it.
	if out, err := rebase(text, c.Base, c.Result()); err != nil || out == text {
		return nil, false
	}
	d, open := s.docs.byFile(file)
	if !open {
		return nil, false
	}
	cur := d.text()
	out, err := rebase(cur, c.Base, c.Result())
	if err != nil || out == cur {
		return nil, false
	}
	return edits.NewModify(c.Path, cur, d.version, out), true
}

// openVersions returns the versions of the buffers changes were computed
// on, by file.
func (s *Server) openVersions(changes []*edits.FileChange) map[string]int32 {
	root := s.session().root
	out := map[string]int32{}
	for _, c := range changes {
		if c.Version != edits.NotOpen {
			out[cleanFile(filepath.Join(root, filepath.FromSlash(c.Path)))] = c.Version
		}
	}
	return out
}

// skippedWarning tells the user which files the editor skipped twice.
func skippedWarning(skipped []*edits.FileChange) string {
	names := strings.Join(files(skipped), ", ")
	return fmt.Sprintf("agentls: the editor skipped %s (it changed while the edit was on its way) and nothing changed there; the other files were edited. Apply the part for %s again", names, names)
}
