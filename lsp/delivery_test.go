package lsp

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"slices"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/lsp/internal/rpc"
)

// TestDeliveryApplyEditUnanswered: an applyEdit the editor never answers
// ends at its bound — the Options/settings one when given, else the
// delivery's default timer — is cancelled with $/cancelRequest and kept
// for a late answer; one the caller cancels is neither. The delivery is
// built from its dependencies alone: no server, no connection.
func TestDeliveryApplyEditUnanswered(t *testing.T) {
	tests := []struct {
		name          string
		answerTimeout time.Duration // Options.ApplyEditTimeout or the setting (0: none)
		timer         time.Duration // deliveryTimers.answer
		callerCancels bool
		unanswered    bool // ended by the bound: cancelled and kept
	}{
		{"the default timer", 0, time.Millisecond, false, true},
		{"the setting over the timer", time.Millisecond, time.Hour, false, true},
		{"the caller cancels", time.Hour, time.Hour, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var notified []string
			id := jsonrpc2.NewNumberID(7)
			d := &delivery{
				inbound: rpc.NewInbound(),
				log:     slog.New(slog.NewTextHandler(io.Discard, nil)),
				timers:  defaultDeliveryTimers(),
				call: func(ctx context.Context, method string, params, result any) (jsonrpc2.ID, error) {
					<-ctx.Done() // an editor that never answers
					return id, ctx.Err()
				},
				notify: func(_ context.Context, method string, _ any) error {
					notified = append(notified, method)
					return nil
				},
				answerTimeout: func() time.Duration { return tt.answerTimeout },
			}
			d.timers.answer = tt.timer
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tt.callerCancels {
				cancel()
			}
			_, err := d.applyEdit(ctx, "agentls: x", workspaceEdit{})
			if err == nil {
				t.Fatal("applyEdit returned no error")
			}
			if got := errors.Is(err, errApplyEditUnanswered); got != tt.unanswered {
				t.Errorf("err = %v; unanswered %v, want %v", err, got, tt.unanswered)
			}
			label, kept := d.unanswered.take(id)
			if kept != tt.unanswered || kept && label != "agentls: x" {
				t.Errorf("kept for a late answer: %v %q, want %v", kept, label, tt.unanswered)
			}
			var want []string
			if tt.unanswered {
				want = []string{protocol.MethodCancelRequest}
			}
			if !slices.Equal(notified, want) {
				t.Errorf("notified %v, want %v", notified, want)
			}
		})
	}
}
