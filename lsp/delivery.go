package lsp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/edits"
	"github.com/agentls/agentls/edits/journal"
	"github.com/agentls/agentls/lsp/internal/documents"
	"github.com/agentls/agentls/lsp/internal/rpc"
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

// A delivery is edit delivery: the one way a change reaches the editor
// (send: the WorkspaceEdit made by workspaceEditFor, the applyEdit call,
// the echo awaited), with everything it depends on named here rather
// than reached through the Server, and every wait in timers. It holds no lock of its own but unanswered's: the
// documents, the inbound numbering and the journal each have theirs.
type delivery struct {
	docs    *documents.Store // the buffers, their echo watches and versions
	inbound *rpc.Inbound     // which messages the editor sent before its answer
	journal *journal.Journal // where what the editor made is recorded
	log     *slog.Logger
	timers  deliveryTimers

	// From the server; read when used, since the connection and the
	// session are settled after the delivery is made.
	session       func() *session                                                                   // root, quirks, capabilities
	call          func(ctx context.Context, method string, params, result any) (jsonrpc2.ID, error) // a call to the client
	notify        func(ctx context.Context, method string, params any) error                        // a notification to the client
	queue         func(context.Context, []*edits.FileChange) int                                    // pendingView.queue: pending review
	answerTimeout func() time.Duration                                                              // Options.ApplyEditTimeout, else the setting (0: timers.answer)

	// unanswered are the workspace/applyEdit calls given up on, by id,
	// so an answer that comes late is told to the user (lateAnswer).
	unanswered unansweredEdits
}

// deliveryTimers are every wait of edit delivery, in one place.
type deliveryTimers struct {
	// answer bounds the wait for the editor's answer to an applyEdit
	// when neither Options.ApplyEditTimeout nor the applyEditTimeout
	// setting says: long enough for an editor that asks the user before
	// applying (VS Code's refactor preview), short enough that a client
	// that lost the request does not leave a task waiting for good. An
	// edit not answered in time is kept as pending review.
	answer time.Duration
	// echo bounds the wait for the messages the editor sent before its
	// answer to an applyEdit to be handled (they are read already; only a
	// slow handler ahead of them delays them).
	echo time.Duration
	// settle is how long an editor that does not skip buffers is given
	// for the didChange of an edit it applied, so the next command sees
	// the buffers as they are.
	settle time.Duration
	// unheardBuffer bounds how long a skip check waits for the didChange
	// of a buffer an edit was sent to.
	unheardBuffer time.Duration
	// catchUp is how long a refused edit waits for a buffer that moved on
	// (its didChange may be behind the answer) before it is computed once
	// more.
	catchUp time.Duration
}

func defaultDeliveryTimers() deliveryTimers {
	return deliveryTimers{
		answer:        60 * time.Second,
		echo:          2 * time.Second,
		settle:        time.Second,
		unheardBuffer: 5 * time.Second,
		catchUp:       500 * time.Millisecond,
	}
}

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
func (d *delivery) send(ctx context.Context, req sendRequest) (sendResult, error) {
	cs := req.changes
	for attempt := 0; ; attempt++ {
		if len(cs.Effective()) == 0 {
			return sendResult{}, errNoChanges
		}
		if ctx.Err() != nil {
			return sendResult{}, context.Cause(ctx)
		}
		// New files a client would hide are written first (created_on_disk.go).
		toSend, onDisk, err := d.createOnDisk(cs)
		if err != nil {
			return sendResult{}, &notSentError{err}
		}
		changes := toSend.Effective()
		if len(changes) == 0 {
			return d.journalled(req, onDisk, nil), nil
		}
		we, err := d.workspaceEditFor(&toSend)
		if err != nil {
			d.removeCreated(onDisk)
			return sendResult{}, &notSentError{err}
		}
		ctx = context.WithoutCancel(ctx)
		w := d.docs.Watch(d.openVersions(changes))
		res, err := d.applyEdit(ctx, req.label, we)
		if err == nil && res.Applied {
			defer d.docs.Unwatch(w)
			return d.sent(ctx, req, w, res.after, changes, onDisk)
		}
		if err == nil {
			if made := d.madeBeforeFailure(we, res, changes); len(made) > 0 {
				// Part of the edit is in the buffers: it is not computed
				// again (that would apply it twice); what was made is
				// journalled, the rest kept.
				defer d.docs.Unwatch(w)
				return d.partlyMade(ctx, req, w, res, made, changes[len(made):], onDisk)
			}
		}
		d.docs.Unwatch(w)
		d.removeCreated(onDisk)
		if err == nil && attempt == 0 && req.recompute != nil {
			// The refusal may come from a buffer that moved on (the user
			// typed): its didChange can still be on its way behind the
			// answer, so give the buffers a moment to catch up first.
			d.log.Info("the editor refused the edit: computing it once more on the current buffers", "label", req.label, "reason", res.FailureReason)
			d.docs.WaitVersionsPast(ctx, d.openVersions(changes), true, d.timers.catchUp)
			if cs, err = req.recompute(ctx); err != nil {
				return sendResult{}, err
			}
			continue
		}
		queued := 0
		if req.keep {
			queued = d.queue(ctx, cs.Effective()) // the new files written first too: they were taken back
		}
		if err != nil {
			return sendResult{}, &unansweredError{err: err, queued: queued}
		}
		return sendResult{}, &refusedError{reason: res.FailureReason, queued: queued}
	}
}

// sent finishes a change the editor said it applied: it waits for the
// echo, recovers skipped buffers, and journals what was made.
// onDisk are the changes written before the edit was sent (createOnDisk):
// made too.
func (d *delivery) sent(ctx context.Context, req sendRequest, w *documents.Watch, after uint64, changes, onDisk []*edits.FileChange) (sendResult, error) {
	made, skipped := d.confirmEcho(ctx, w, after, req.label, changes)
	made = append(onDisk, made...)
	if len(made) == 0 {
		return sendResult{skipped: skipped}, errAllSkipped
	}
	return d.journalled(req, made, skipped), nil
}

// journalled is the result of made (and skipped) changes, journalled when
// the request says so.
func (d *delivery) journalled(req sendRequest, made, skipped []*edits.FileChange) sendResult {
	out := sendResult{made: made, skipped: skipped}
	if req.journal != nil {
		label := fmt.Sprintf("%s (%s)", req.journal.what, strings.Join(files(made), ", "))
		out.edit, out.note = d.journal.Record(req.journal.turn, label, made)
	}
	return out
}

// madeBeforeFailure returns the changes an editor that refused an edit
// made anyway: with failureHandling "abort" (Helix) every change before
// the one that failed (failedChange, an index into documentChanges) stays
// applied. Other clients apply nothing of a refused edit.
func (d *delivery) madeBeforeFailure(we workspaceEdit, res applyEditResult, changes []*edits.FileChange) []*edits.FileChange {
	if res.FailedChange == nil || *res.FailedChange <= 0 || len(we.DocumentChanges) == 0 ||
		d.session().caps.Workspace.WorkspaceEdit.FailureHandling != "abort" {
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
func (d *delivery) partlyMade(ctx context.Context, req sendRequest, w *documents.Watch, res applyEditResult, made, rest, onDisk []*edits.FileChange) (sendResult, error) {
	out, err := d.sent(ctx, req, w, res.after, made, onDisk)
	if err != nil && !errors.Is(err, errAllSkipped) {
		return out, err
	}
	queued := 0
	if req.keep {
		queued = d.queue(ctx, rest)
	}
	return out, &refusedError{reason: res.FailureReason, queued: queued, rest: rest}
}

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
func (d *delivery) confirmEcho(ctx context.Context, w *documents.Watch, after uint64, label string, changes []*edits.FileChange) (made, skipped []*edits.FileChange) {
	if !d.session().quirks.skipsNewerBuffers {
		d.inbound.Wait(ctx, after, d.timers.echo)
		d.docs.WaitVersionsPast(ctx, d.openVersions(changes), false, d.timers.settle)
		return changes, nil
	}
	made, skipped = d.judgeEcho(ctx, w, after, changes)
	if len(skipped) == 0 {
		return made, nil
	}
	d.log.Info("the editor skipped buffers it said it applied: sending them again", "files", len(skipped))
	var cs edits.Changeset
	for _, c := range skipped {
		cs.Write(c.Path, c.Base(), true, c.Version, c.Result())
	}
	retry := cs.Effective()
	we, err := d.workspaceEditFor(&cs)
	if err != nil {
		return made, skipped
	}
	w2 := d.docs.Watch(d.openVersions(retry))
	defer d.docs.Unwatch(w2)
	res, err := d.applyEdit(ctx, fmt.Sprintf("%s (again: %d skipped %s)", label, len(retry), plural(len(retry), "file", "files")), we)
	if err != nil || !res.Applied {
		return made, skipped
	}
	retried, again := d.judgeEcho(ctx, w2, res.after, retry)
	return append(made, retried...), again
}

// judgeEcho waits for the messages up to after, then sorts changes into
// those the buffers hold as that message left them and those skipped
// (rebased onto the buffers as they are now, to be sent again).
func (d *delivery) judgeEcho(ctx context.Context, w *documents.Watch, after uint64, changes []*edits.FileChange) (made, skipped []*edits.FileChange) {
	d.inbound.Wait(ctx, after, d.timers.echo)
	root := d.session().root
	for _, c := range changes {
		if c.Version == edits.NotOpen || c.Action != edits.Modify {
			made = append(made, c)
			continue
		}
		file := cleanFile(filepath.Join(root, filepath.FromSlash(c.Path)))
		st, ok := d.docs.EchoAt(w, file, after)
		if !ok || st.Version == c.Version {
			// Not heard from before the answer: Neovim sends a didChange
			// whether it applied the edit or skipped it (it skips only a
			// buffer the user changed), so wait for it.
			d.docs.WaitVersionsPast(ctx, map[string]int32{file: c.Version}, false, d.timers.unheardBuffer)
			doc, open := d.docs.ByFile(file)
			if !open {
				made = append(made, c)
				continue
			}
			st = documents.State{Version: doc.Version, Buf: doc.Buf}
		}
		if again, skip := d.skippedChange(file, st.Buf.Text(), c); skip {
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
func (d *delivery) skippedChange(file, text string, c *edits.FileChange) (*edits.FileChange, bool) {
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
	if out, err := rebase(text, c.Base(), c.Result()); err != nil || out == text {
		return nil, false
	}
	doc, open := d.docs.ByFile(file)
	if !open {
		return nil, false
	}
	cur := doc.Text()
	out, err := rebase(cur, c.Base(), c.Result())
	if err != nil || out == cur {
		return nil, false
	}
	return edits.NewModify(c.Path, cur, doc.Version, out), true
}

// openVersions returns the versions of the buffers changes were computed
// on, by file.
func (d *delivery) openVersions(changes []*edits.FileChange) map[string]int32 {
	root := d.session().root
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

// applyEdit asks the client to apply a workspace edit, and waits for its
// answer up to Options.ApplyEditTimeout, the applyEditTimeout setting or
// deliveryTimers.answer (and no longer than the session):
// a client that never answers must not hold the task, the edit and the
// server's exit for good. When the time is up the request is cancelled
// ($/cancelRequest) and errApplyEditUnanswered returned; the callers keep
// the change as pending review, so nothing is lost.
func (d *delivery) applyEdit(ctx context.Context, label string, we workspaceEdit) (applyEditResult, error) {
	var res applyEditResult
	timeout := d.answerTimeout()
	if timeout <= 0 {
		timeout = d.timers.answer
	}
	callCtx, cancel := context.WithTimeoutCause(ctx, timeout, errApplyEditUnanswered)
	defer cancel()
	id, err := d.call(callCtx, protocol.MethodWorkspaceApplyEdit, &applyEditParams{Label: label, Edit: we}, &res)
	if err == nil {
		res.after = d.inbound.AnsweredAfter(id)
		return res, nil
	}
	if errors.Is(context.Cause(callCtx), errApplyEditUnanswered) && ctx.Err() == nil {
		d.log.Warn("the editor did not answer workspace/applyEdit in time: the request is cancelled", "label", label, "timeout", timeout)
		d.unanswered.add(id, label)
		// The editor may still be applying it (a dialog left open): tell
		// it the server stopped waiting.
		if err := d.notify(context.WithoutCancel(ctx), protocol.MethodCancelRequest, map[string]any{"id": &id}); err != nil {
			d.log.Warn("$/cancelRequest failed", "err", err)
		}
		return res, fmt.Errorf("%w within %s (the request is cancelled)", errApplyEditUnanswered, timeout)
	}
	return res, fmt.Errorf("workspace/applyEdit: %w", err)
}

// errApplyEditUnanswered is a workspace/applyEdit the editor did not answer
// in time.
var errApplyEditUnanswered = errors.New("workspace/applyEdit: no answer")

// unansweredEdits are the workspace/applyEdit calls the server stopped
// waiting for (their changes were kept as pending review), by id.
type unansweredEdits struct {
	mu     sync.Mutex
	labels map[jsonrpc2.ID]string
}

func (u *unansweredEdits) add(id jsonrpc2.ID, label string) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.labels == nil {
		u.labels = map[jsonrpc2.ID]string{}
	}
	u.labels[id] = label
}

func (u *unansweredEdits) take(id jsonrpc2.ID) (string, bool) {
	u.mu.Lock()
	defer u.mu.Unlock()
	label, ok := u.labels[id]
	delete(u.labels, id)
	return label, ok
}
