package rpc

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

// TestRecoverPanics: a handler that panics (a request or a notification,
// before or after it replied) costs its message only: a request not yet
// answered gets an InternalError naming its method, the panic and its
// stack are logged, and nothing panics further up (jsonrpc2.ReplyHandler
// panics on a request left unanswered, which would end the process).
func TestRecoverPanics(t *testing.T) {
	call, _ := jsonrpc2.NewCall(jsonrpc2.NewNumberID(1), "textDocument/codeAction", nil)
	note, _ := jsonrpc2.NewNotification("textDocument/didOpen", nil)
	tests := []struct {
		name        string
		req         jsonrpc2.Request
		handler     jsonrpc2.Handler
		wantReplies int
		wantErr     string // in the reply's error; "" for none
	}{
		{"request panics", call, func(context.Context, jsonrpc2.Replier, jsonrpc2.Request) error {
			panic("only file URIs are supported")
		}, 1, "internal error in textDocument/codeAction: only file URIs are supported"},
		{"notification panics", note, func(context.Context, jsonrpc2.Replier, jsonrpc2.Request) error {
			panic(errors.New("nil map"))
		}, 1, "internal error in textDocument/didOpen: nil map"},
		{"panics after replying", call, func(ctx context.Context, reply jsonrpc2.Replier, _ jsonrpc2.Request) error {
			reply(ctx, "done", nil)
			panic("late")
		}, 1, ""},
		{"no panic", call, func(ctx context.Context, reply jsonrpc2.Replier, _ jsonrpc2.Request) error {
			return reply(ctx, "done", nil)
		}, 1, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var logged bytes.Buffer
			log := slog.New(slog.NewTextHandler(&logged, nil))
			var replies []error
			reply := func(_ context.Context, _ any, err error) error {
				replies = append(replies, err)
				return nil
			}
			h := jsonrpc2.ReplyHandler(RecoverPanics(log, tt.handler))
			h(context.Background(), reply, tt.req)
			if len(replies) != tt.wantReplies {
				t.Fatalf("%d replies, want %d", len(replies), tt.wantReplies)
			}
			var je *jsonrpc2.Error
			switch err := replies[0]; {
			case tt.wantErr == "" && err != nil:
				t.Errorf("reply error %v, want none", err)
			case tt.wantErr != "" && (!errors.As(err, &je) || je.Code != jsonrpc2.InternalError || !strings.Contains(je.Message, tt.wantErr)):
				t.Errorf("reply error %v, want an InternalError with %q", err, tt.wantErr)
			}
			if panicked := strings.Contains(tt.name, "panics"); panicked != strings.Contains(logged.String(), "goroutine") {
				t.Errorf("panicked %v, but the log is %q", panicked, logged.String())
			}
		})
	}
}

// silentConn is a client that never answers: a call returns only when its
// context ends.
type silentConn struct{ jsonrpc2.Conn }

func (silentConn) Call(ctx context.Context, _ string, _, _ any) (jsonrpc2.ID, error) {
	<-ctx.Done()
	return jsonrpc2.NewNumberID(1), ctx.Err()
}

// TestSessionConn: a call to a client that never answers ends when the
// session ends, even with a context that is never cancelled (jsonrpc2's
// Call waited for good, holding the server's exit), and a quick call
// (progress, settings) ends after its bound, so the work behind it goes
// on.
func TestSessionConn(t *testing.T) {
	tests := []struct {
		name    string
		method  string
		endedBy string // "session" or "bound"
	}{
		{"an edit waits for the session", protocol.MethodWorkspaceApplyEdit, "session"},
		{"a progress waits for its bound", protocol.MethodWorkDoneProgressCreate, "bound"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			session, endSession := context.WithCancel(context.Background())
			defer endSession()
			c := sessionConn{Conn: silentConn{}, session: session, answerWithin: map[string]time.Duration{protocol.MethodWorkDoneProgressCreate: time.Millisecond}}
			done := make(chan error, 1)
			go func() {
				_, err := c.Call(context.WithoutCancel(context.Background()), tt.method, nil, nil)
				done <- err
			}()
			if tt.endedBy == "session" {
				endSession()
			}
			var err error
			select {
			case err = <-done:
			case <-time.After(10 * time.Second):
				t.Fatalf("the call still waits 10 s after its %s ended", tt.endedBy)
			}
			switch tt.endedBy {
			case "session":
				if !errors.Is(err, errSessionEnded) {
					t.Errorf("err = %v, want errSessionEnded", err)
				}
			case "bound":
				if !errors.Is(err, context.DeadlineExceeded) {
					t.Errorf("err = %v, want the bound's deadline", err)
				}
			}
		})
	}
}

// TestTokenGate: with a token set, the connection's first frame must be
// initialize carrying it; the settings of a client that does not know it
// are never read, and it gets one error before the stream ends. The
// token does not reach the settings.
func TestTokenGate(t *testing.T) {
	t.Parallel()
	const token = "s3cret-token"
	initialize := func(opts string) string {
		return frame(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{},"initializationOptions":` + opts + `}}`)
	}
	tests := []struct {
		name   string
		input  string
		answer string // "" when the frame passes; else what the one answer says
	}{
		{"the token", initialize(`{"agentlsToken":"` + token + `","model":"m"}`), ""},
		{"no token", initialize(`{"approvalPolicy":"allow","baseUrl":"http://127.0.0.1:1/v1"}`), "has no initializationOptions.agentlsToken"},
		{"a wrong token", initialize(`{"agentlsToken":"guess","approvalPolicy":"allow"}`), "is not this server's token"},
		{"a token one byte longer", initialize(`{"agentlsToken":"` + token + `x"}`), "is not this server's token"},
		{"a token that is not a string", initialize(`{"agentlsToken":["` + token + `"]}`), "has no initializationOptions.agentlsToken"},
		{"no initializationOptions", frame(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`), "has no initializationOptions.agentlsToken"},
		{"ask first", frame(`{"jsonrpc":"2.0","id":1,"method":"workspace/executeCommand","params":{"command":"agentls.ask","arguments":[{"prompt":"x"}]}}`), "is not the initialize request"},
		{"settings first", frame(`{"jsonrpc":"2.0","method":"workspace/didChangeConfiguration","params":{"settings":{"approvalPolicy":"allow"}}}`), "is not the initialize request"},
		{"initialize as a notification", frame(`{"jsonrpc":"2.0","method":"initialize","params":{"initializationOptions":{"agentlsToken":"` + token + `"}}}`), "is not the initialize request"},
		{"not JSON", frame(`{"agentlsToken"`), "is not a JSON-RPC object"},
		{"too large", fmt.Sprintf("Content-Length: %d\r\n\r\n", maxGatedFrame+1), "first message is not an initialize"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rwc := &pipeRWC{Reader: strings.NewReader(tt.input + frame(`{"jsonrpc":"2.0","id":2,"method":"shutdown"}`))}
			s := newFrameStream(rwc, nil)
			s.gate = tokenGate(token)
			msg, _, err := s.Read(context.Background())
			if tt.answer == "" {
				if err != nil {
					t.Fatalf("Read: %v", err)
				}
				c, ok := msg.(*jsonrpc2.Call)
				if !ok || c.Method() != "initialize" || strings.Contains(string(c.Params()), "agentlsToken") || !strings.Contains(string(c.Params()), `"model":"m"`) {
					t.Errorf("read %#v: want initialize without the token, its settings kept", msg)
				}
				if next, _, err := s.Read(context.Background()); err != nil || next.(*jsonrpc2.Call).Method() != "shutdown" {
					t.Errorf("after the gate: %v, %v", next, err)
				}
				return
			}
			if !errors.Is(err, errRefused) || msg != nil {
				t.Fatalf("Read = %v, %v; want the client refused", msg, err)
			}
			answers := readAnswers(t, rwc.out.Bytes())
			if len(answers) != 1 || !strings.Contains(answers[0].Error.Message, tt.answer) || !strings.Contains(answers[0].Error.Message, "the connection is closed") {
				t.Fatalf("answers %+v; want one saying %q", answers, tt.answer)
			}
			if strings.Contains(rwc.out.String(), token) {
				t.Errorf("the answer tells the token: %s", rwc.out.String())
			}
			// Nothing past the refused frame is read.
			if next, _, err := s.Read(context.Background()); err == nil {
				t.Errorf("read %v after the refusal", next)
			}
		})
	}
}

// FuzzTokenGate: whatever the first frame holds, the gate does not panic,
// and it lets through only an initialize that carried the token, with the
// token taken out.
func FuzzTokenGate(f *testing.F) {
	const token = "t0ken"
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"initializationOptions":{"agentlsToken":"t0ken"}}}`,
		`{"jsonrpc":"2.0","id":"a","method":"initialize","params":{"initializationOptions":{"agentlsToken":"t0ke"}}}`,
		`{"id":1,"method":"initialize","params":{"initializationOptions":null}}`,
		`{"id":1,"method":"initialize","params":[]}`,
		`[]`, `null`, `{`, ``,
	} {
		f.Add([]byte(seed))
	}
	gate := tokenGate(token)
	f.Fuzz(func(t *testing.T, body []byte) {
		out, refusal := gate(body)
		if refusal != nil {
			if out != nil || !strings.HasPrefix(refusal.reason, "agentls: refused: ") {
				t.Fatalf("refused %q with %q and a body %q", body, refusal.reason, out)
			}
			return
		}
		if !bytes.Contains(body, []byte(token)) || bytes.Contains(out, []byte(`"agentlsToken"`)) {
			t.Fatalf("passed %q as %q", body, out)
		}
	})
}
