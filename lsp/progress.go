package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"

	"go.lsp.dev/protocol"
)

const cmdCancel = "agentls.cancel"

// Long work runs as a task: background work with its own context, shown
// as work-done progress (window/workDoneProgress/create, then $/progress
// begin, report, end) where the client supports it, and cancellable from
// the progress UI (window/workDoneProgress/cancel) or with agentls.cancel.
// Cancelling stops the task at its next step; a WorkspaceEdit already
// sent is not taken back (the editor may be applying it), so a task only
// checks for cancellation before it sends one.

// progressParams has a string token (the library's token type needs a
// pointer to marshal).
type progressParams struct {
	Token string `json:"token"`
	Value any    `json:"value"`
}

// A task is one piece of cancellable background work.
type task struct {
	s      *Server
	token  string // "" when the client has no work-done progress
	turn   int    // the agent turn it runs, if any
	cancel context.CancelFunc
	// outcome is how the task ended (finish), shown after its progress
	// ended: Helix shows a progress end in its status line, over the
	// message before it.
	outcome *protocol.ShowMessageParams
	// notes are what the user must still read when the task ends (files
	// the turn's commands saw without their unsaved changes): a warning
	// shown while it runs is gone from a status line in a moment.
	notesMu sync.Mutex
	notes   []string
}

// note adds a line to the task's final message, once.
func (t *task) note(msg string) {
	t.notesMu.Lock()
	defer t.notesMu.Unlock()
	if !slices.Contains(t.notes, msg) {
		t.notes = append(t.notes, msg)
	}
}

// taskKey is the context key of the task a context runs in.
type taskKey struct{}

// taskOf returns the task ctx runs in (a turn's tool calls run in their
// turn's), or nil.
func taskOf(ctx context.Context) *task {
	t, _ := ctx.Value(taskKey{}).(*task)
	return t
}

// finish sets the message that tells how the task ended: shown once the
// task's progress has ended, so it is the last thing the user reads.
func (t *task) finish(typ protocol.MessageType, msg string) {
	t.notesMu.Lock()
	for _, n := range t.notes {
		msg += "; " + n
	}
	t.notesMu.Unlock()
	t.outcome = &protocol.ShowMessageParams{Type: typ, Message: msg}
}

// goTask runs fn in the background as a task titled title.
func (s *Server) goTask(title string, fn func(ctx context.Context, t *task)) {
	s.goTurnTask(0, title, fn)
}

// goTurnTask runs an agent turn (or, for turn 0, other work) as a task.
func (s *Server) goTurnTask(turn int, title string, fn func(ctx context.Context, t *task)) {
	s.goBackground(title, func(ctx context.Context) {
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		t := &task{s: s, turn: turn, cancel: cancel}
		ctx = context.WithValue(ctx, taskKey{}, t)
		id := s.tasks.add(t)
		sess := s.session()
		progress := sess.caps.Window.WorkDoneProgress
		if sess.quirks.namesProgress {
			title = strings.TrimPrefix(title, "agentls: ")
		}
		done := func() { s.tasks.remove(id) }
		defer done() // if fn panics
		if progress {
			// Not cancellable itself: a task cancelled meanwhile still
			// shows its begin and end, so the editor's UI is not left open.
			if _, err := s.conn.Call(context.WithoutCancel(ctx), protocol.MethodWorkDoneProgressCreate, map[string]string{"token": id}, nil); err != nil {
				s.log.Warn("work-done progress refused", "err", err)
			} else {
				t.token = id
				t.notify(ctx, &protocol.WorkDoneProgressBegin{Kind: protocol.WorkDoneProgressKindBegin, Title: title, Cancellable: true})
			}
		}
		fn(ctx, t)
		done() // before the end is shown: a task that has ended is not running
		if t.token != "" {
			msg := "done"
			if ctx.Err() != nil {
				msg = "cancelled"
			}
			t.notify(ctx, &protocol.WorkDoneProgressEnd{Kind: protocol.WorkDoneProgressKindEnd, Message: msg})
		}
		if t.outcome != nil {
			s.client.showMessage(context.WithoutCancel(ctx), t.outcome.Type, "%s", t.outcome.Message)
		}
	})
}

// report shows a step of the task.
func (t *task) report(ctx context.Context, msg string) {
	if t != nil && t.token != "" {
		t.notify(ctx, &protocol.WorkDoneProgressReport{Kind: protocol.WorkDoneProgressKindReport, Message: msg, Cancellable: true})
	}
}

func (t *task) notify(ctx context.Context, value any) {
	// Sent even when the task is cancelled: the editor's UI must see it.
	err := t.s.conn.Notify(context.WithoutCancel(ctx), protocol.MethodProgress, &progressParams{Token: t.token, Value: value})
	if err != nil {
		t.s.log.Warn("$/progress failed", "err", err)
	}
}

// tasks are the running tasks, by progress token. Its methods take its
// lock and call no other store.
type tasks struct {
	mu   sync.Mutex
	next int
	byID map[string]*task
	// asks are the running agent turns by what they were asked
	// (askKey), so the code action that asked is not offered again
	// while its turn runs (waits for an approval, say).
	asks map[string]int
}

// askKey is what makes two asks the same: the request and its document.
func askKey(a askArgs) string { return string(a.URI) + "\x00" + a.Prompt }

// startAsk records that turn runs what a asked.
func (ts *tasks) startAsk(a askArgs, turn int) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if ts.asks == nil {
		ts.asks = map[string]int{}
	}
	ts.asks[askKey(a)] = turn
}

// endAsk forgets turn's ask once it ended.
func (ts *tasks) endAsk(a askArgs, turn int) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if k := askKey(a); ts.asks[k] == turn {
		delete(ts.asks, k)
	}
}

// asking reports whether a turn runs what a asks.
func (ts *tasks) asking(a askArgs) bool {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	_, ok := ts.asks[askKey(a)]
	return ok
}

// add registers a running task and returns its token.
func (ts *tasks) add(t *task) string {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	ts.next++
	id := fmt.Sprintf("agentls-%d", ts.next)
	if ts.byID == nil {
		ts.byID = map[string]*task{}
	}
	ts.byID[id] = t
	return id
}

func (ts *tasks) remove(id string) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	delete(ts.byID, id)
}

// cancel cancels the task with a token, or running a turn, or every task
// when both are zero. It reports how many it cancelled.
func (ts *tasks) cancel(token string, turn int) int {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	n := 0
	for id, t := range ts.byID {
		if (token == "" && turn == 0) || token == id || (turn != 0 && t.turn == turn) {
			t.cancel()
			n++
		}
	}
	return n
}

// workDoneProgressCancel is the client's cancel button on a progress.
func (s *Server) workDoneProgressCancel(_ context.Context, p *struct {
	Token json.RawMessage `json:"token"`
}) (any, error) {
	var token string
	if json.Unmarshal(p.Token, &token) == nil && token != "" {
		s.tasks.cancel(token, 0)
	}
	return nil, nil
}

// cancelArgs name a turn or a progress token; none is every task.
type cancelArgs struct {
	Token string `json:"token"`
	Turn  int    `json:"turn"`
}

// cancelCommand is agentls.cancel {turn?, token?}: cancel one task or all.
func (s *Server) cancelCommand(_ context.Context, a cancelArgs) (any, error) {
	n := s.tasks.cancel(a.Token, a.Turn)
	if n == 0 {
		s.goBackground("cancel", func(ctx context.Context) {
			s.client.showMessage(ctx, protocol.MessageTypeInfo, "agentls: nothing to cancel")
		})
	}
	return map[string]int{"cancelled": n}, nil
}
