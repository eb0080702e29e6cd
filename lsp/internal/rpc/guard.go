package rpc

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
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

// RecoverPanics answers a request whose handler panicked with an
// InternalError naming the method, and logs the panic with its stack: a
// bug met by one message (a URI the server did not expect, say) costs that
// message, not the session and the user's pending work. It sits inside
// jsonrpc2.ReplyHandler, which itself panics on a request left unanswered.
func RecoverPanics(log *slog.Logger, next jsonrpc2.Handler) jsonrpc2.Handler {
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

// NewSessionConn returns conn as the server uses it: its calls end with
// session, and the quick ones (quickCalls) after their bound.
func NewSessionConn(session context.Context, conn jsonrpc2.Conn) jsonrpc2.Conn {
	return sessionConn{Conn: conn, session: session, answerWithin: quickCalls()}
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

// TokenOption is the initializationOptions key that carries a --listen
// server's token (Options.Token): an option every editor can set, where
// a preamble before the first frame is something few clients can send.
const TokenOption = "agentlsToken"

const (
	// maxGatedFrame bounds the first frame of a connection that must
	// present a token: an initialize is a few kilobytes (VS Code's is
	// about 10), and a client that has not shown the token gets no more.
	maxGatedFrame = 1 << 20
	// gateWithin is how long a connection that must present a token may
	// take to send its first frame, when the stream can tell time
	// (a net.Conn): a client that never speaks does not hold a goroutine
	// for good.
	gateWithin = 30 * time.Second
)

// errRefused ends a connection whose first frame the gate refused.
var errRefused = errors.New("refused the client")

// tokenGate returns the check of a connection's first frame when the
// server answers only clients that know token: the frame must be the
// initialize request with initializationOptions.agentlsToken equal to
// token (compared in constant time). Its body comes back without the
// token, so no setting sees it; anything else is refused whole, before
// the server reads a setting of it or acts on it.
func tokenGate(token string) func(body []byte) ([]byte, *badMessage) {
	want := sha256.Sum256([]byte(token))
	return func(body []byte) ([]byte, *badMessage) {
		refuse := func(id json.RawMessage, why string) ([]byte, *badMessage) {
			return nil, &badMessage{code: jsonrpc2.InvalidRequest, id: id, reason: "agentls: refused: " + why +
				". This server (agentls serve --listen on TCP) answers only a client whose first message is initialize with the token it wrote at start in initializationOptions." + TokenOption + "; the connection is closed"}
		}
		var msg map[string]json.RawMessage
		if json.Unmarshal(body, &msg) != nil || msg == nil {
			return refuse(nil, "the first message is not a JSON-RPC object")
		}
		id, idOK := readID(msg["id"])
		if !idOK {
			id = nil
		}
		var method string
		if json.Unmarshal(msg["method"], &method) != nil || method != protocol.MethodInitialize || id == nil {
			return refuse(id, "the first message is not the initialize request")
		}
		var params map[string]json.RawMessage
		var opts map[string]json.RawMessage
		var got string
		if json.Unmarshal(msg["params"], &params) != nil ||
			json.Unmarshal(params["initializationOptions"], &opts) != nil ||
			json.Unmarshal(opts[TokenOption], &got) != nil || got == "" {
			return refuse(id, "initialize has no initializationOptions."+TokenOption)
		}
		// Hashes, so that the comparison takes the same time whatever
		// the lengths.
		if sum := sha256.Sum256([]byte(got)); subtle.ConstantTimeCompare(sum[:], want[:]) != 1 {
			return refuse(id, "initializationOptions."+TokenOption+" is not this server's token")
		}
		delete(opts, TokenOption)
		var err error
		if params["initializationOptions"], err = json.Marshal(opts); err != nil {
			return refuse(id, "initializationOptions cannot be encoded again")
		}
		if msg["params"], err = json.Marshal(params); err != nil {
			return refuse(id, "initialize's params cannot be encoded again")
		}
		if body, err = json.Marshal(msg); err != nil {
			return refuse(id, "initialize cannot be encoded again")
		}
		return body, nil
	}
}

// readGated reads the connection's first frame through the gate: passed,
// it is the first message, and the gate is gone; refused (or too large
// to be an initialize, or not a JSON-RPC message), it is answered with
// one error and the connection ends unread past it.
func (s *frameStream) readGated() (jsonrpc2.Message, int64, error) {
	gate := s.gate
	if d, ok := s.rwc.(interface{ SetReadDeadline(time.Time) error }); ok {
		d.SetReadDeadline(time.Now().Add(gateWithin))
		defer d.SetReadDeadline(time.Time{})
	}
	length, total, err := s.readHeaders()
	if err != nil {
		return nil, total, fmt.Errorf("%w: %w", errRefused, err)
	}
	var refusal *badMessage
	if length > maxGatedFrame {
		refusal = &badMessage{code: jsonrpc2.InvalidRequest, reason: fmt.Sprintf("agentls: refused: a %d-byte first message is not an initialize; the connection is closed unread", length)}
	} else {
		body, err := readBody(s.in, length)
		total += int64(len(body))
		if err != nil {
			return nil, total, fmt.Errorf("%w: read a %d-byte body: %w", errRefused, length, err)
		}
		if body, refusal = gate(body); refusal == nil {
			msg, bad := decodeMessage(body)
			if bad == nil {
				s.gate = nil
				return msg, total, nil
			}
			refusal = bad
			refusal.reason = "agentls: refused: " + bad.reason + "; the connection is closed"
		}
	}
	// Not s.bad's "skipped a message": the session's end logs why.
	if err := s.answer(refusal); err != nil {
		return nil, total, fmt.Errorf("%w: %s (and the answer failed: %w)", errRefused, refusal.reason, err)
	}
	return nil, total, fmt.Errorf("%w: %s", errRefused, refusal.reason)
}
