package rpc

import (
	"context"
	"testing"
	"time"
)

func TestInboundWait(t *testing.T) {
	ctx := context.Background()
	in := NewInbound()
	first, second := in.Read(), in.Read()
	mark := in.Mark()
	third := in.Read() // read after the mark: not waited for

	if in.Wait(ctx, mark, 10*time.Millisecond) {
		t.Fatal("wait returned true with messages up to the mark still pending")
	}
	in.Done(second)
	if in.Wait(ctx, mark, 10*time.Millisecond) {
		t.Fatal("wait returned true with the first message still pending")
	}
	// Handled in another goroutine while wait waits: wait wakes up.
	go in.Done(first)
	if !in.Wait(ctx, mark, 10*time.Second) {
		t.Fatal("wait did not see the messages up to the mark handled")
	}
	in.Done(third)

	// A handler waiting for messages up to its own does not wait for itself.
	self := in.Read()
	ctx = WithMessage(ctx, self)
	if !in.Wait(ctx, in.Mark(), 10*time.Millisecond) {
		t.Error("a handler waited for its own message")
	}

	// A cancelled wait says so.
	in.Read()
	cctx, cancel := context.WithCancel(context.Background())
	cancel()
	if in.Wait(cctx, in.Mark(), 10*time.Second) {
		t.Error("a cancelled wait returned true")
	}
}
