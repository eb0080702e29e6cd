package rpc

import (
	"context"
	"sync"
	"time"

	"go.lsp.dev/jsonrpc2"
)

// Inbound numbers the messages the editor sends, in the order they are
// read, and knows which are not yet handled. The handlers run one after
// another in that order (jsonrpc2's AsyncHandler), but apart from the
// reading: when the answer to a workspace/applyEdit is read, didChange
// notifications the editor sent before it may still wait in the queue.
// wait lets the sender see the buffers as the editor had them when it
// answered — for Neovim, which sends each change of an edit it applies
// before its answer, this is exact, not a guess by time.
type Inbound struct {
	mu      sync.Mutex
	next    uint64              // the number the last message read got
	pending map[uint64]struct{} // read, not yet answered or handled
	changed chan struct{}       // closed and replaced when one is handled
	// answers are, for the answers to the server's calls read lately,
	// the number of the last message read before each (bounded: only
	// the answer to a call just made is asked for).
	answers map[jsonrpc2.ID]uint64
	order   []jsonrpc2.ID
}

// keptAnswers bounds Inbound.answers.
const keptAnswers = 64

func NewInbound() *Inbound {
	return &Inbound{pending: map[uint64]struct{}{}, changed: make(chan struct{}), answers: map[jsonrpc2.ID]uint64{}}
}

// Answered notes that the answer to the server's call id was read after
// every message numbered so far. The connection reads one message at a
// time and numbers it before reading the next, so this is exact.
func (in *Inbound) Answered(id jsonrpc2.ID) {
	in.mu.Lock()
	defer in.mu.Unlock()
	if _, ok := in.answers[id]; !ok {
		in.order = append(in.order, id)
	}
	in.answers[id] = in.next
	for len(in.order) > keptAnswers {
		delete(in.answers, in.order[0])
		in.order = in.order[1:]
	}
}

// AnsweredAfter returns the number of the last message the editor sent
// before its answer to call id, or, if that answer was not seen, the last
// message read so far.
func (in *Inbound) AnsweredAfter(id jsonrpc2.ID) uint64 {
	in.mu.Lock()
	defer in.mu.Unlock()
	if mark, ok := in.answers[id]; ok {
		return mark
	}
	return in.next
}

// Read numbers a message as it is read; Done must be called once it is
// handled (for a call: answered).
func (in *Inbound) Read() uint64 {
	in.mu.Lock()
	defer in.mu.Unlock()
	in.next++
	in.pending[in.next] = struct{}{}
	return in.next
}

// Done notes that message seq is handled.
func (in *Inbound) Done(seq uint64) {
	in.mu.Lock()
	defer in.mu.Unlock()
	delete(in.pending, seq)
	close(in.changed)
	in.changed = make(chan struct{})
}

// Mark is the number of the last message read so far.
func (in *Inbound) Mark() uint64 {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.next
}

// Wait waits, up to timeout, until every message read up to mark is
// handled, and reports whether they are. The message ctx is handling (if
// any) is not waited for: a handler that sends an edit before it answers
// would otherwise wait for itself (WithMessage).
func (in *Inbound) Wait(ctx context.Context, mark uint64, timeout time.Duration) bool {
	self, _ := MessageOf(ctx)
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		in.mu.Lock()
		waiting := false
		for seq := range in.pending {
			if seq <= mark && seq != self {
				waiting = true
				break
			}
		}
		ch := in.changed
		in.mu.Unlock()
		if !waiting {
			return true
		}
		select {
		case <-ch:
		case <-deadline.C:
			return false
		case <-ctx.Done():
			return false
		}
	}
}

// messageKey is the context key of the number of the message a handler
// is handling.
type messageKey struct{}

// WithMessage returns ctx for the handler of message seq (Inbound.Read).
func WithMessage(ctx context.Context, seq uint64) context.Context {
	return context.WithValue(ctx, messageKey{}, seq)
}

// MessageOf returns the number of the message ctx's handler is handling,
// and whether there is one.
func MessageOf(ctx context.Context) (uint64, bool) {
	seq, ok := ctx.Value(messageKey{}).(uint64)
	return seq, ok
}
