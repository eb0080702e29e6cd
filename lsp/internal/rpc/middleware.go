package rpc

import (
	"context"
	"encoding/json"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

// Track numbers each message as it is read (Read) and marks it done once
// it is handled, for a call once it is answered (Done); the handler's
// context carries its number (WithMessage). Wait, on the numbers so far,
// is how the end of a session lets the messages already read be handled.
func (in *Inbound) Track(next jsonrpc2.Handler) jsonrpc2.Handler {
	return func(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
		seq := in.Read()
		return next(WithMessage(ctx, seq), func(ctx context.Context, result any, err error) error {
			defer in.Done(seq)
			return reply(ctx, result, err)
		}, req)
	}
}

// EndOnReply gives each call a context of its own, cancelled once the call
// is answered. jsonrpc2 v0.10's CancelHandler derives a context per call
// from the session's and never cancels it, so every call the session ever
// answered stayed registered with the session's context (128 bytes each,
// TestSoakRequestsHoldNothing); derived from this one, it goes with it.
// Handlers answer when done: work that outlives a call runs on the
// session's context.
func EndOnReply(next jsonrpc2.Handler) jsonrpc2.Handler {
	return func(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
		if _, isCall := req.(*jsonrpc2.Call); !isCall {
			return next(ctx, reply, req)
		}
		ctx, cancel := context.WithCancel(ctx)
		return next(ctx, func(rctx context.Context, result any, err error) error {
			defer cancel()
			return reply(rctx, result, err)
		}, req)
	}
}

// CancelRequests handles $/cancelRequest before the async queue, with
// numeric or string ids (the library's CancelHandler ignores numeric ones).
func CancelRequests(next jsonrpc2.Handler, cancel func(jsonrpc2.ID)) jsonrpc2.Handler {
	return func(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
		if req.Method() != protocol.MethodCancelRequest {
			return next(ctx, reply, req)
		}
		var p struct {
			ID json.RawMessage `json:"id"`
		}
		if err := json.Unmarshal(req.Params(), &p); err == nil {
			var n int32
			var s string
			switch {
			case json.Unmarshal(p.ID, &n) == nil:
				cancel(jsonrpc2.NewNumberID(n))
			case json.Unmarshal(p.ID, &s) == nil:
				cancel(jsonrpc2.NewStringID(s))
			}
		}
		return reply(ctx, nil, nil)
	}
}
