package rpc

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"

	"go.lsp.dev/jsonrpc2"
)

// pipeRWC is a stream over fixed input, recording what is written.
type pipeRWC struct {
	io.Reader
	out bytes.Buffer
}

func (p *pipeRWC) Write(b []byte) (int, error) { return p.out.Write(b) }
func (p *pipeRWC) Close() error                { return nil }

func frame(body string) string {
	return fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body)
}

// wireAnswer is an error response as the stream writes it.
type wireAnswer struct {
	ID    json.RawMessage `json:"id"`
	Error struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// readAnswers splits what the stream wrote into its frames.
func readAnswers(t *testing.T, out []byte) []wireAnswer {
	t.Helper()
	var answers []wireAnswer
	s := newFrameStream(&pipeRWC{Reader: bytes.NewReader(out)}, nil)
	for {
		body, _, err := s.readFrame()
		if err == io.EOF {
			return answers
		}
		if err != nil {
			t.Fatalf("the stream wrote a broken frame: %v in %q", err, out)
		}
		var a wireAnswer
		if err := json.Unmarshal(body, &a); err != nil {
			t.Fatalf("answer %q: %v", body, err)
		}
		answers = append(answers, a)
	}
}

// TestFrameStreamSkipsBadMessages: each hostile frame is answered with
// the JSON-RPC error it deserves (its id echoed where one can be read),
// or dropped when it looks like a response, and the valid request behind
// it is still read.
func TestFrameStreamSkipsBadMessages(t *testing.T) {
	t.Parallel()
	const next = `{"jsonrpc":"2.0","id":100,"method":"shutdown"}`
	tests := []struct {
		name string
		body string
		// code and id of the answer; code 0: no answer.
		code jsonrpc2.Code
		id   string
		// inMessage is a part of the answer's message.
		inMessage string
	}{
		{"truncated object", `{`, jsonrpc2.ParseError, "null", "not JSON"},
		{"empty body", ``, jsonrpc2.ParseError, "null", "not JSON"},
		{"garbage", `Content-Type: x`, jsonrpc2.ParseError, "null", "not JSON"},
		{"empty batch", `[]`, jsonrpc2.InvalidRequest, "null", "batch"},
		{"batch", `[{"jsonrpc":"2.0","id":7,"method":"shutdown"}]`, jsonrpc2.InvalidRequest, "null", "batch"},
		{"number", `42`, jsonrpc2.InvalidRequest, "null", "a JSON number"},
		{"string", `"initialize"`, jsonrpc2.InvalidRequest, "null", "a JSON string"},
		{"null", `null`, jsonrpc2.InvalidRequest, "null", "null"},
		{"empty object", `{}`, jsonrpc2.InvalidRequest, "null", "no method"},
		{"only the version", `{"jsonrpc":"2.0"}`, jsonrpc2.InvalidRequest, "null", "no method"},
		{"numeric method", `{"jsonrpc":"2.0","id":3,"method":5}`, jsonrpc2.InvalidRequest, "3", "non-empty string"},
		{"numeric method, string id", `{"jsonrpc":"2.0","id":"x-1","method":5}`, jsonrpc2.InvalidRequest, `"x-1"`, "non-empty string"},
		{"null method", `{"jsonrpc":"2.0","id":3,"method":null}`, jsonrpc2.InvalidRequest, "3", "non-empty string"},
		{"empty method taken for a response", `{"jsonrpc":"2.0","id":1,"method":""}`, jsonrpc2.InvalidRequest, "1", "non-empty string"},
		{"invalid UTF-8 in params", "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"workspace/executeCommand\",\"params\":{\"command\":\"\xff\xfe\"}}", jsonrpc2.ParseError, "4", "UTF-8"},
		{"invalid UTF-8 in a notification", "{\"jsonrpc\":\"2.0\",\"method\":\"textDocument/didOpen\",\"params\":{\"text\":\"\xc3\"}}", jsonrpc2.ParseError, "null", "UTF-8"},
		{"invalid UTF-8 in the id", "{\"jsonrpc\":\"2.0\",\"id\":\"\xff\",\"method\":5}", jsonrpc2.ParseError, "\"\ufffd\"", "UTF-8"},
		{"id out of int32", `{"jsonrpc":"2.0","id":99999999999,"method":"initialize"}`, jsonrpc2.InvalidRequest, "99999999999", "integer up to 2^31-1"},
		{"fractional id", `{"jsonrpc":"2.0","id":1.5,"method":"initialize"}`, jsonrpc2.InvalidRequest, "1.5", "integer up to 2^31-1"},
		{"object id", `{"jsonrpc":"2.0","id":{"n":1},"method":"initialize"}`, jsonrpc2.InvalidRequest, "null", "integer up to 2^31-1"},
		{"wrong version", `{"jsonrpc":"1.0","id":5,"method":"initialize"}`, jsonrpc2.InvalidRequest, "5", `must be "2.0"`},
		{"response with a bad error", `{"jsonrpc":"2.0","id":9,"error":5}`, 0, "", ""},
		{"response with a null id", `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}`, 0, "", ""},
		{"response with a fractional id", `{"jsonrpc":"2.0","id":2.5,"result":null}`, 0, "", ""},
		{"response to no call", `{"jsonrpc":"2.0","id":77,"result":{"applied":true}}`, 0, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rwc := &pipeRWC{Reader: strings.NewReader(frame(tt.body) + frame(next))}
			var skipped []*badMessage
			s := newFrameStream(rwc, func(b *badMessage) { skipped = append(skipped, b) })
			var msg jsonrpc2.Message
			for {
				var err error
				if msg, _, err = s.Read(context.Background()); err != nil {
					t.Fatalf("Read: %v (the session would end)", err)
				}
				if _, ok := msg.(*jsonrpc2.Call); ok {
					break
				}
			}
			if call := msg.(*jsonrpc2.Call); call.Method() != "shutdown" || call.ID() != jsonrpc2.NewNumberID(100) {
				t.Errorf("the next message is %v %v, want the shutdown request", call.Method(), call.ID())
			}
			answers := readAnswers(t, rwc.out.Bytes())
			if tt.code == 0 {
				if len(answers) != 0 {
					t.Errorf("a response was answered: %+v", answers)
				}
				return
			}
			if len(answers) != 1 {
				t.Fatalf("%d answers, want 1: %q", len(answers), rwc.out.String())
			}
			a := answers[0]
			if a.Error.Code != int64(tt.code) || string(a.ID) != tt.id || !strings.Contains(a.Error.Message, tt.inMessage) {
				t.Errorf("answer: id %s, code %d, %q; want id %s, code %d, a message with %q", a.ID, a.Error.Code, a.Error.Message, tt.id, tt.code, tt.inMessage)
			}
			if len(skipped) != 1 {
				t.Errorf("%d frames reported as skipped, want 1", len(skipped))
			}
		})
	}
}

// TestFrameStreamBadResponseEndsItsCall: a response to one of our calls
// that cannot be read reaches the call as an error, so the call does not
// wait for an answer that was lost.
func TestFrameStreamBadResponseEndsItsCall(t *testing.T) {
	t.Parallel()
	rwc := &pipeRWC{Reader: strings.NewReader(frame(`{"jsonrpc":"2.0","id":9,"error":"refused"}`))}
	msg, _, err := newFrameStream(rwc, nil).Read(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	resp, ok := msg.(*jsonrpc2.Response)
	if !ok || resp.ID() != jsonrpc2.NewNumberID(9) || resp.Err() == nil || !strings.Contains(resp.Err().Error(), "could not be read") {
		t.Fatalf("got %#v", msg)
	}
}

// TestFrameStreamFraming: what the headers may hold (any case, other
// headers, line breaks between frames, an oversized body skipped unread),
// and what ends the stream because the next frame cannot be found.
func TestFrameStreamFraming(t *testing.T) {
	t.Parallel()
	const ok = `{"jsonrpc":"2.0","id":1,"method":"shutdown"}`
	tests := []struct {
		name    string
		input   string
		wantErr string // "" reads the shutdown request
	}{
		{"plain", frame(ok), ""},
		{"lower-case header and content type", fmt.Sprintf("content-length: %d\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n%s", len(ok), ok), ""},
		{"bare line feeds", fmt.Sprintf("Content-Length: %d\n\n%s", len(ok), ok), ""},
		{"line breaks before a frame", "\r\n\r\n" + frame(ok), ""},
		{"oversized body skipped", frame(strings.Repeat("x", 100)) + frame(ok), ""},
		{"missing Content-Length", "Content-Type: x\r\n\r\n" + ok, "without a Content-Length"},
		{"not a header", "hello\r\n\r\n" + ok, "not \"Name: value\""},
		{"negative length", "Content-Length: -5\r\n\r\n" + ok, "byte count"},
		{"two lengths", "Content-Length: 3\r\nContent-Length: 4\r\n\r\n" + ok, "two Content-Length"},
		{"endless header", strings.Repeat("x", 2*maxHeaderLine), "longer than"},
		{"body cut short", "Content-Length: 50\r\n\r\n{}", "read a 50-byte body"},
		{"clean end", "", "EOF"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rwc := &pipeRWC{Reader: strings.NewReader(tt.input)}
			s := newFrameStream(rwc, nil)
			s.maxFrame = 64
			msg, _, err := s.Read(context.Background())
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatalf("Read: %v", err)
			case tt.wantErr == "":
				if c, ok := msg.(*jsonrpc2.Call); !ok || c.Method() != "shutdown" {
					t.Errorf("read %#v", msg)
				}
			case err == nil || !strings.Contains(err.Error(), tt.wantErr):
				t.Errorf("err = %v, want one with %q", err, tt.wantErr)
			}
		})
	}
}

// cycleReader reads data over and over.
type cycleReader struct {
	data []byte
	off  int
}

func (c *cycleReader) Read(p []byte) (int, error) {
	n := copy(p, c.data[c.off:])
	c.off = (c.off + n) % len(c.data)
	return n, nil
}

// BenchmarkFrameStreamRead reads didChange notifications of growing size
// through the server's stream and through jsonrpc2's own (the cost of the
// checks is the UTF-8 scan).
func BenchmarkFrameStreamRead(b *testing.B) {
	for _, size := range []int{100, 10_000, 1_000_000, 10_000_000} {
		text := strings.Repeat("func f() { return 1 } // é\n", size/28+1)[:size]
		body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": "textDocument/didChange", "params": map[string]any{
			"textDocument":   map[string]any{"uri": "file:///a.go", "version": 2},
			"contentChanges": []map[string]any{{"text": text}},
		}})
		input := []byte(frame(string(body)))
		for _, stream := range []struct {
			name string
			new  func(io.ReadWriteCloser) jsonrpc2.Stream
		}{
			{"frameStream", func(rwc io.ReadWriteCloser) jsonrpc2.Stream { return newFrameStream(rwc, nil) }},
			{"jsonrpc2", jsonrpc2.NewStream},
		} {
			b.Run(fmt.Sprintf("%s/%d", stream.name, size), func(b *testing.B) {
				b.SetBytes(int64(len(input)))
				st := stream.new(&pipeRWC{Reader: &cycleReader{data: input}})
				for b.Loop() {
					if _, _, err := st.Read(context.Background()); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// TestFrameStreamDropsHTTP is the attack of a web page (or curl) posting
// to a server on --listen: an HTTP request carries a Content-Length and a
// JSON body, and a reader that skips headers it does not know took it for
// an LSP frame and answered it. A header other than Content-Length and
// Content-Type ends the stream unread and unanswered.
func TestFrameStreamDropsHTTP(t *testing.T) {
	t.Parallel()
	const body = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"initializationOptions":{"approvalPolicy":"allow"}}}`
	tests := []struct{ name, input string }{
		{"POST", fmt.Sprintf("POST /x:y HTTP/1.1\r\nHost: 127.0.0.1:7658\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(body), body)},
		{"GET with a colon", "GET http://127.0.0.1:7658/ HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"},
		{"an unknown header before the frame", fmt.Sprintf("Origin: http://evil.example\r\nContent-Length: %d\r\n\r\n%s", len(body), body)},
		{"an unknown header after Content-Length", fmt.Sprintf("Content-Length: %d\r\nHost: x\r\n\r\n%s", len(body), body)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rwc := &pipeRWC{Reader: strings.NewReader(tt.input)}
			msg, _, err := newFrameStream(rwc, nil).Read(context.Background())
			if err == nil || !strings.Contains(err.Error(), "not LSP framing") {
				t.Errorf("Read = %v, %v; want the stream refused as not LSP framing", msg, err)
			}
			if rwc.out.Len() != 0 {
				t.Errorf("the server answered a request that is not LSP: %q", rwc.out.String())
			}
		})
	}
}
