package lsp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

// What keeps one bad message or one silent client from ending, or
// hanging, the session: handlers recover from panics, and calls to the
// client end with the session. (Bad frames are skipped by frameStream.)

// recoverPanics answers a request whose handler panicked with an
// InternalError naming the method, and logs the panic with its stack: a
// bug met by one message (a URI the server did not expect, say) costs that
// message, not the session and the user's pending work. It sits inside
// jsonrpc2.ReplyHandler, which itself panics on a request left unanswered.
func recoverPanics(log *slog.Logger, next jsonrpc2.Handler) jsonrpc2.Handler {
	return func(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) (err error) {
		replied := false
		answer := func(ctx context.Context, result any, err error) error {
			replied = true
			return reply(ctx, result, err)
		}
		defer func() {
			r := recover()
			if r == nil {
				return
			}
			log.Error("a handler panicked; the session goes on", "method", req.Method(), "panic", r, "stack", string(debug.Stack()))
			if !replied {
				err = reply(context.WithoutCancel(ctx), nil, jsonrpc2.NewError(jsonrpc2.InternalError,
					fmt.Sprintf("agentls: internal error in %s: %v (a bug: the server's log has the details; the session goes on)", req.Method(), r)))
			}
		}()
		return next(ctx, answer, req)
	}
}

// errSessionEnded ends the calls still waiting for the client when the
// session ends.
var errSessionEnded = errors.New("the session ended before the editor answered")

// sessionConn is the connection as the server uses it: a call to the
// client also ends when the session does, whatever context it was given.
// Callers often pass context.WithoutCancel, to await an edit's answer
// through a task's cancellation, and jsonrpc2 v0.10's Call waits on its
// context alone, even after the stream closed: a client that never
// answered kept the server alive after exit, or after the client died.
type sessionConn struct {
	jsonrpc2.Conn
	session context.Context
	// answerWithin bounds the calls an editor answers without asking the
	// user (quickCalls): a client that lost one must not stall the work
	// behind it (a task waits for its progress to be created). Calls that
	// wait for the user (applyEdit, showMessageRequest) are bounded by
	// their callers.
	answerWithin map[string]time.Duration
}

// quickCalls are the calls an editor answers at once, and how long to
// wait before going on without the answer.
func quickCalls() map[string]time.Duration {
	return map[string]time.Duration{
		protocol.MethodWorkDoneProgressCreate: 10 * time.Second, // the task goes on without a progress
		protocol.MethodWorkspaceConfiguration: 10 * time.Second, // the settings stay as they are
		"window/showDocument":                 10 * time.Second, // the user is told the file's name
	}
}

func (c sessionConn) Call(ctx context.Context, method string, params, result any) (jsonrpc2.ID, error) {
	if bound, ok := c.answerWithin[method]; ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, bound)
		defer cancel()
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	stop := context.AfterFunc(c.session, func() { cancel(errSessionEnded) })
	defer stop()
	id, err := c.Conn.Call(ctx, method, params, result)
	if err != nil && errors.Is(context.Cause(ctx), errSessionEnded) {
		return id, fmt.Errorf("%s: %w", method, errSessionEnded)
	}
	return id, err
}
