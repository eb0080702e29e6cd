package rpc

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"
	"unicode/utf8"

	"go.lsp.dev/jsonrpc2"
)

// fuzzBodySep splits FuzzFrameStream's input into bodies when it frames
// them itself: a byte JSON never needs outside a string.
const fuzzBodySep = "\x1e"

// fuzzSentinel is the request every framed input ends with: it must be
// the last message read, whatever came before it.
const fuzzSentinel = `{"jsonrpc":"2.0","id":"agentls-fuzz-sentinel","method":"shutdown"}`

// fuzzFramedMaxFrame is the body limit in the framed mode, small so that
// inputs reach the path that skips a large body unread.
const fuzzFramedMaxFrame = 512

// maxAnswerMessage bounds the message of an answer to a bad frame: it
// says what was wrong, quoting at most a clipped piece of the frame.
const maxAnswerMessage = 1024

// fuzzSeedBodies are the bodies of TestFrameStreamSkipsBadMessages's
// table (the hostile frames and the request after them), plus a
// response to a call.
var fuzzSeedBodies = []string{
	`{`, ``, `Content-Type: x`, `[]`, `[{"jsonrpc":"2.0","id":7,"method":"shutdown"}]`,
	`42`, `"initialize"`, `null`, `{}`, `{"jsonrpc":"2.0"}`,
	`{"jsonrpc":"2.0","id":3,"method":5}`, `{"jsonrpc":"2.0","id":"x-1","method":5}`,
	`{"jsonrpc":"2.0","id":3,"method":null}`, `{"jsonrpc":"2.0","id":1,"method":""}`,
	"{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"workspace/executeCommand\",\"params\":{\"command\":\"\xff\xfe\"}}",
	"{\"jsonrpc\":\"2.0\",\"method\":\"textDocument/didOpen\",\"params\":{\"text\":\"\xc3\"}}",
	"{\"jsonrpc\":\"2.0\",\"id\":\"\xff\",\"method\":5}",
	`{"jsonrpc":"2.0","id":99999999999,"method":"initialize"}`, `{"jsonrpc":"2.0","id":1.5,"method":"initialize"}`,
	`{"jsonrpc":"2.0","id":{"n":1},"method":"initialize"}`, `{"jsonrpc":"1.0","id":5,"method":"initialize"}`,
	`{"jsonrpc":"2.0","id":9,"error":5}`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}`,
	`{"jsonrpc":"2.0","id":2.5,"result":null}`, `{"jsonrpc":"2.0","id":77,"result":{"applied":true}}`,
	`{"jsonrpc":"2.0","id":9,"error":"refused"}`,
	`{"jsonrpc":"2.0","id":100,"method":"shutdown"}`,
	`{"jsonrpc":"2.0","method":"textDocument/didChange","params":{"contentChanges":[{"text":"x"}]}}`,
	`{"jsonrpc":"` + strings.Repeat("2.0", 400) + `","id":6,"method":"initialize"}`,
}

// fuzzSeedStreams are the inputs of TestFrameStreamFraming's table, read
// as whole streams.
func fuzzSeedStreams() []string {
	const ok = `{"jsonrpc":"2.0","id":1,"method":"shutdown"}`
	return []string{
		frame(ok),
		fmt.Sprintf("content-length: %d\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n%s", len(ok), ok),
		fmt.Sprintf("Content-Length: %d\n\n%s", len(ok), ok),
		"\r\n\r\n" + frame(ok),
		frame(strings.Repeat("x", 100)) + frame(ok),
		"Content-Type: x\r\n\r\n" + ok,
		"hello\r\n\r\n" + ok,
		"Content-Length: -5\r\n\r\n" + ok,
		"Content-Length: 3\r\nContent-Length: 4\r\n\r\n" + ok,
		strings.Repeat("x", 2*maxHeaderLine),
		"Content-Length: 50\r\n\r\n{}",
		"",
	}
}

// FuzzFrameStream feeds the server's frame reader arbitrary bytes, either
// as a whole stream (framed false) or as bodies it frames itself, split
// at fuzzBodySep and followed by a sentinel request (framed true). Either
// way the reader must not panic, must allocate in proportion to what it
// was sent (a forged Content-Length costs nothing), and every answer it
// writes must be a well-formed JSON-RPC error response. Framed, nothing
// may end the stream: every frame is consumed exactly, every bad one not
// a response is answered once with its id, and the sentinel is still the
// last message read.
func FuzzFrameStream(f *testing.F) {
	for _, body := range fuzzSeedBodies {
		f.Add([]byte(body), true)
		f.Add([]byte(frame(body)), false)
	}
	f.Add([]byte(strings.Join(fuzzSeedBodies, fuzzBodySep)), true)
	f.Add([]byte(strings.Repeat("y", fuzzFramedMaxFrame+1)+fuzzBodySep+`{"jsonrpc":"2.0","id":8,"method":"x"}`), true)
	for _, stream := range fuzzSeedStreams() {
		f.Add([]byte(stream), false)
	}
	f.Add([]byte("Content-Length: 200000000\r\n\r\n{}"), false)
	f.Fuzz(func(t *testing.T, data []byte, framed bool) {
		input := data
		if framed {
			var b bytes.Buffer
			for _, body := range bytes.Split(data, []byte(fuzzBodySep)) {
				b.WriteString(frame(string(body)))
			}
			b.WriteString(frame(fuzzSentinel))
			input = b.Bytes()
		}
		rwc := &pipeRWC{Reader: bytes.NewReader(input)}
		var bads []*badMessage
		s := newFrameStream(rwc, func(b *badMessage) { bads = append(bads, b) })
		if framed {
			s.maxFrame = fuzzFramedMaxFrame
		}

		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		var msgs []jsonrpc2.Message
		var consumed int64
		var readErr error
		for readErr == nil {
			var msg jsonrpc2.Message
			var n int64
			msg, n, readErr = s.Read(context.Background())
			consumed += n
			if readErr == nil {
				msgs = append(msgs, msg)
			}
		}
		runtime.ReadMemStats(&after)

		// Every step is linear in its input but for fixed costs: a frame
		// claiming more than it holds must not cost its claim.
		if allocated, limit := after.TotalAlloc-before.TotalAlloc, uint64(2<<20+64*len(input)); allocated > limit {
			t.Errorf("reading %d bytes allocated %d bytes, more than %d", len(input), allocated, limit)
		}
		answers := checkAnswers(t, rwc.out.Bytes())

		if !framed {
			return // broken framing may end the stream, as it must
		}
		if !errors.Is(readErr, io.EOF) {
			t.Fatalf("the stream ended with %v, want io.EOF: every frame was well framed", readErr)
		}
		if consumed != int64(len(input)) {
			t.Errorf("Read reported %d bytes, the stream held %d", consumed, len(input))
		}
		if len(msgs) == 0 {
			t.Fatal("no message read: the sentinel request was lost")
		}
		if c, ok := msgs[len(msgs)-1].(*jsonrpc2.Call); !ok || c.Method() != "shutdown" || c.ID() != jsonrpc2.NewStringID("agentls-fuzz-sentinel") {
			t.Errorf("the last message read is %#v, want the sentinel request", msgs[len(msgs)-1])
		}
		var wantIDs []string
		for _, b := range bads {
			if !b.response {
				wantIDs = append(wantIDs, b.idText())
			}
		}
		if len(answers) != len(wantIDs) {
			t.Fatalf("%d answers for %d bad requests", len(answers), len(wantIDs))
		}
		for k, a := range answers {
			if string(a.ID) != wantIDs[k] {
				t.Errorf("answer %d has id %s, the bad request %s", k, a.ID, wantIDs[k])
			}
		}
	})
}

// checkAnswers reads what the stream wrote as frames and checks that each
// is a JSON-RPC error response: version "2.0", an id that is null, a
// string or a number, a ParseError or InvalidRequest code and a message,
// all in valid UTF-8 JSON.
func checkAnswers(t *testing.T, out []byte) []wireAnswer {
	t.Helper()
	var answers []wireAnswer
	s := newFrameStream(&pipeRWC{Reader: bytes.NewReader(out)}, nil)
	for {
		body, _, err := s.readFrame()
		if errors.Is(err, io.EOF) {
			return answers
		}
		if err != nil {
			t.Fatalf("the stream wrote a broken frame: %v", err)
		}
		if !utf8.Valid(body) || !json.Valid(body) {
			t.Fatalf("an answer is not valid UTF-8 JSON: %q", body)
		}
		var wire struct {
			JSONRPC *string `json:"jsonrpc"`
			Error   *struct {
				Code    *int64  `json:"code"`
				Message *string `json:"message"`
			} `json:"error"`
		}
		var fields map[string]json.RawMessage
		if err := json.Unmarshal(body, &wire); err != nil || json.Unmarshal(body, &fields) != nil {
			t.Fatalf("an answer is not a JSON object: %q", body)
		}
		id, hasID := fields["id"]
		switch {
		case len(fields) != 3 || wire.JSONRPC == nil || *wire.JSONRPC != "2.0" || !hasID || wire.Error == nil:
			t.Fatalf("an answer is not {jsonrpc: \"2.0\", id, error}: %q", body)
		case wire.Error.Code == nil || (*wire.Error.Code != int64(jsonrpc2.ParseError) && *wire.Error.Code != int64(jsonrpc2.InvalidRequest)):
			t.Fatalf("an answer's code is neither ParseError nor InvalidRequest: %q", body)
		case wire.Error.Message == nil || *wire.Error.Message == "":
			t.Fatalf("an answer has no message: %q", body)
		case len(*wire.Error.Message) > maxAnswerMessage:
			t.Fatalf("an answer's message is %d bytes, more than %d: it quotes what it should clip", len(*wire.Error.Message), maxAnswerMessage)
		}
		var idValue any
		switch json.Unmarshal(id, &idValue); idValue.(type) {
		case nil, string, float64:
		default:
			t.Fatalf("an answer's id is %s, neither null, a string nor a number", id)
		}
		var a wireAnswer
		if err := json.Unmarshal(body, &a); err != nil {
			t.Fatalf("answer %q: %v", body, err)
		}
		answers = append(answers, a)
	}
}
