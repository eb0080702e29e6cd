package lsp

import (
	"context"
	"testing"
	"time"
)

func TestInboundWait(t *testing.T) {
	ctx := context.Background()
	in := newInbound()
	first, second := in.read(), in.read()
	mark := in.mark()
	third := in.read() // read after the mark: not waited for

	if in.wait(ctx, mark, 10*time.Millisecond) {
		t.Fatal("wait returned true with messages up to the mark still pending")
	}
	in.done(second)
	if in.wait(ctx, mark, 10*time.Millisecond) {
		t.Fatal("wait returned true with the first message still pending")
	}
	// Handled in another goroutine while wait waits: wait wakes up.
	go in.done(first)
	if !in.wait(ctx, mark, 10*time.Second) {
		t.Fatal("wait did not see the messages up to the mark handled")
	}
	in.done(third)

	// A handler waiting for messages up to its own does not wait for itself.
	self := in.read()
	ctx = context.WithValue(ctx, messageKey{}, self)
	if !in.wait(ctx, in.mark(), 10*time.Millisecond) {
		t.Error("a handler waited for its own message")
	}

	// A cancelled wait says so.
	in.read()
	cctx, cancel := context.WithCancel(context.Background())
	cancel()
	if in.wait(cctx, in.mark(), 10*time.Second) {
		t.Error("a cancelled wait returned true")
	}
}
