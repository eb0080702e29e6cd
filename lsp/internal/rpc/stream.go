package rpc

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"go.lsp.dev/jsonrpc2"
)

// StreamOptions configure a Stream.
type StreamOptions struct {
	// Skipped is told of every frame skipped (a *badMessage's reason),
	// for the log; nil ignores them.
	Skipped func(error)
	// Responses, if set, sees every response read, before the connection
	// does (which drops one no call waits for any more).
	Responses func(*jsonrpc2.Response)
	// Token, when set, is the secret the connection's first frame must
	// carry (tokenGate): a client that does not show it is answered once
	// and the stream ends, unread past that frame.
	Token string
}

// NewStream returns the server's stream over rwc: frameStream.
func NewStream(rwc io.ReadWriteCloser, opts StreamOptions) jsonrpc2.Stream {
	var bad func(*badMessage)
	if opts.Skipped != nil {
		bad = func(b *badMessage) { opts.Skipped(b) }
	}
	s := newFrameStream(rwc, bad)
	s.responses = opts.Responses
	if opts.Token != "" {
		s.gate = tokenGate(opts.Token)
	}
	return s
}

// frameStream is the server's jsonrpc2.Stream: LSP's Content-Length
// framing, like jsonrpc2's own stream, except that a frame which holds no
// JSON-RPC message (bad JSON, invalid UTF-8, an array, a numeric method,
// an id that is neither a string nor a 32-bit integer) is answered with a
// ParseError or InvalidRequest and skipped. jsonrpc2 v0.10's stream fails
// the whole connection on such a frame, so one bad message from a client
// (or a plugin writing to the server's stdin) ended the session.
//
// Only a broken framing (a header that is not "Name: value", a header
// LSP does not have, a missing Content-Length, the stream ending inside a
// frame) still ends the session: past it, where the next message starts
// is unknown, and what was sent is not LSP.
type frameStream struct {
	rwc io.ReadWriteCloser
	in  *bufio.Reader
	out jsonrpc2.Stream // jsonrpc2's own, for writing only
	// writeMu orders the connection's writes with the answers Read sends
	// to bad frames (jsonrpc2's Conn locks only its own writes).
	writeMu sync.Mutex
	// bad is told of every frame skipped, for the log.
	bad func(*badMessage)
	// maxFrame is the largest body read; a larger one is skipped unread.
	maxFrame int64
	// responses, if set, sees every response read, before the connection
	// does (which drops one no call waits for any more).
	responses func(*jsonrpc2.Response)
	// gate, if set, checks the connection's first frame before anything
	// else reads it (tokenGate): a refused frame is answered once and
	// ends the connection. Read, the one reader, clears it once passed.
	gate func(body []byte) ([]byte, *badMessage)
	// refused is why the gate refused the client: every later Read
	// returns it, without reading.
	refused error
}

const (
	// maxHeaderLine bounds a header line (bufio's buffer), so a stream
	// without line breaks cannot grow the server's memory.
	maxHeaderLine = 4096
	// defaultMaxFrame is far above any document an editor sends (VS Code
	// does not sync files over 50 MB), and keeps a forged Content-Length
	// from allocating gigabytes.
	defaultMaxFrame = 256 << 20
)

func newFrameStream(rwc io.ReadWriteCloser, bad func(*badMessage)) *frameStream {
	if bad == nil {
		bad = func(*badMessage) {}
	}
	return &frameStream{rwc: rwc, in: bufio.NewReaderSize(rwc, maxHeaderLine), out: jsonrpc2.NewStream(rwc), bad: bad, maxFrame: defaultMaxFrame}
}

// A badMessage is a frame that holds no JSON-RPC message the server can
// take: it is answered (unless it looked like a response) and skipped.
type badMessage struct {
	code jsonrpc2.Code
	// id is the request's id as sent, re-encoded, when one could be read
	// (a string or a number); nil answers with a null id.
	id     json.RawMessage
	reason string
	// response marks a malformed response: it is not answered (one does
	// not answer an answer) but, when its id names a call waiting for it,
	// that call gets an error instead of waiting forever.
	response bool
	size     int64
}

func (b *badMessage) Error() string {
	return fmt.Sprintf("%s (code %d, id %s, %d bytes)", b.reason, b.code, b.idText(), b.size)
}

func (b *badMessage) idText() string {
	if b.id == nil {
		return "null"
	}
	return string(b.id)
}

// Read returns the next message, answering and skipping bad ones.
func (s *frameStream) Read(ctx context.Context) (jsonrpc2.Message, int64, error) {
	switch {
	case s.refused != nil:
		return nil, 0, s.refused
	case s.gate != nil:
		msg, n, err := s.readGated()
		if err != nil {
			s.refused = err
		}
		return msg, n, err
	}
	var total int64
	for {
		if err := ctx.Err(); err != nil {
			return nil, total, err
		}
		body, n, err := s.readFrame()
		total += n
		var bad *badMessage
		switch {
		case errors.As(err, &bad):
		case err != nil:
			return nil, total, err
		default:
			var msg jsonrpc2.Message
			if msg, bad = decodeMessage(body); bad == nil {
				if r, ok := msg.(*jsonrpc2.Response); ok && s.responses != nil {
					s.responses(r)
				}
				return msg, total, nil
			}
		}
		bad.size = n
		s.bad(bad)
		if bad.response {
			if msg := bad.failedResponse(); msg != nil {
				return msg, total, nil
			}
			continue
		}
		if err := s.answer(bad); err != nil {
			return nil, total, fmt.Errorf("answer a bad message: %w", err)
		}
	}
}

// readFrame reads one frame's headers and body. A body larger than
// maxFrame is skipped and reported as a badMessage; other errors are the
// stream's end or a broken framing.
func (s *frameStream) readFrame() ([]byte, int64, error) {
	length, total, err := s.readHeaders()
	if err != nil {
		return nil, total, err
	}
	if length > s.maxFrame {
		n, err := io.CopyN(io.Discard, s.in, length)
		total += n
		if err != nil {
			return nil, total, fmt.Errorf("skip a %d-byte frame: %w", length, err)
		}
		return nil, total, &badMessage{code: jsonrpc2.InvalidRequest, reason: fmt.Sprintf("a %d-byte message is larger than the %d bytes the server reads: skipped unread", length, s.maxFrame)}
	}
	body, err := readBody(s.in, length)
	total += int64(len(body))
	if err != nil {
		return nil, total, fmt.Errorf("read a %d-byte body: %w", length, err)
	}
	return body, total, nil
}

// readHeaders reads one frame's headers and returns its Content-Length
// and the bytes read; errors are the stream's end or a broken framing.
func (s *frameStream) readHeaders() (int64, int64, error) {
	var total int64
	length := int64(-1)
	headers := 0
	for {
		line, err := s.in.ReadSlice('\n')
		total += int64(len(line))
		if err != nil {
			switch {
			case errors.Is(err, bufio.ErrBufferFull):
				return length, total, fmt.Errorf("a header line is longer than %d bytes: the stream is not framed as LSP asks (Content-Length: N, a blank line, N bytes)", maxHeaderLine)
			case errors.Is(err, io.EOF) && total == 0:
				return length, total, io.EOF // the client closed the stream between messages
			}
			return length, total, fmt.Errorf("read a header: %w", err)
		}
		text := strings.TrimSpace(string(line))
		if text == "" {
			if headers == 0 {
				continue // stray line breaks between messages
			}
			break
		}
		headers++
		name, value, ok := strings.Cut(text, ":")
		if !ok {
			return length, total, fmt.Errorf("header line %q is not \"Name: value\": the stream is not framed as LSP asks", text)
		}
		name = strings.TrimSpace(name)
		if strings.EqualFold(name, "Content-Type") {
			continue // LSP's other header: the body is UTF-8 JSON whatever it says
		}
		if !strings.EqualFold(name, jsonrpc2.HdrContentLength) {
			// LSP has two headers. Anything else is another protocol
			// (an HTTP request a web page posts to a --listen port
			// carries a Content-Length and a JSON body too): it is
			// dropped unread and unanswered.
			return length, total, fmt.Errorf("header %s is not one of LSP's (Content-Length, Content-Type): the stream is not LSP framing (an HTTP request?), so it is dropped unanswered", clipQuote([]byte(strconv.Quote(name))))
		}
		n, err := strconv.ParseInt(strings.TrimSpace(value), 10, 64)
		if err != nil || n < 0 {
			return length, total, fmt.Errorf("header %q: Content-Length must be a byte count", text)
		}
		if length >= 0 && n != length {
			return length, total, fmt.Errorf("two Content-Length headers (%d and %d) in one frame", length, n)
		}
		length = n
	}
	if length < 0 {
		return length, total, fmt.Errorf("a frame without a Content-Length header: where its body ends is unknown")
	}
	return length, total, nil
}

// firstBodyChunk is what a body's buffer starts at, whatever its
// Content-Length says.
const firstBodyChunk = 1 << 20

// readBody reads length bytes from r into a buffer that grows, doubling,
// as they arrive: memory follows the bytes sent, not the length claimed,
// so a forged Content-Length (200 MB announced, two bytes sent) costs at
// most firstBodyChunk. A body that does come costs at most twice its size.
func readBody(r io.Reader, length int64) ([]byte, error) {
	body := make([]byte, 0, min(length, firstBodyChunk))
	for int64(len(body)) < length {
		if len(body) == cap(body) {
			grown := make([]byte, len(body), min(length, 2*int64(cap(body))))
			copy(grown, body)
			body = grown
		}
		n, err := io.ReadFull(r, body[len(body):cap(body)])
		body = body[:len(body)+n]
		if errors.Is(err, io.EOF) && len(body) > 0 {
			err = io.ErrUnexpectedEOF // as one io.ReadFull of the whole body says
		}
		if err != nil {
			return body, err
		}
	}
	return body, nil
}

// decodeMessage decodes a frame's body as jsonrpc2 does, after checking
// what jsonrpc2 would fail the connection on, or take wrongly.
func decodeMessage(body []byte) (jsonrpc2.Message, *badMessage) {
	// The common case costs one decode and a UTF-8 scan: only a failure,
	// or a message jsonrpc2 would take wrongly, is looked at closely.
	msg, err := jsonrpc2.DecodeMessage(body)
	if err == nil {
		_, isResponse := msg.(*jsonrpc2.Response)
		switch {
		case isResponse && !bytes.Contains(body, []byte(`"method"`)):
			// An answer's text (a failure reason) is not ours to refuse.
			// jsonrpc2 takes a request with "method": "" for a response.
			return msg, nil
		case !isResponse && utf8.Valid(body):
			return msg, nil
		}
	}
	bad := classify(body)
	switch {
	case bad != nil:
		return nil, bad
	case err == nil:
		return msg, nil
	}
	// Our checks found nothing, yet jsonrpc2's decoder refused it.
	return nil, &badMessage{code: jsonrpc2.ParseError, reason: fmt.Sprintf("the message cannot be decoded: %v", err)}
}

// classify says why body is not a JSON-RPC message, or nil when it finds
// nothing wrong.
func classify(body []byte) *badMessage {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(body, &fields); err != nil {
		if !json.Valid(body) {
			return &badMessage{code: jsonrpc2.ParseError, reason: fmt.Sprintf("the message is not JSON: %v", err)}
		}
		what := "a JSON " + jsonKind(body)
		if what == "a JSON array" {
			what = "an array (a JSON-RPC batch, which LSP does not use)"
		}
		return &badMessage{code: jsonrpc2.InvalidRequest, reason: "the message is " + what + ", not a JSON-RPC object"}
	}
	if fields == nil {
		return &badMessage{code: jsonrpc2.InvalidRequest, reason: "the message is null, not a JSON-RPC object"}
	}
	rawID, hasID := fields["id"]
	hasID = hasID && string(bytes.TrimSpace(rawID)) != "null"
	id, idOK := readID(rawID)
	bad := func(code jsonrpc2.Code, format string, args ...any) *badMessage {
		return &badMessage{code: code, id: id, reason: fmt.Sprintf(format, args...)}
	}
	rawMethod, hasMethod := fields["method"]
	_, hasResult := fields["result"]
	_, hasError := fields["error"]
	if !hasMethod && (hasResult || hasError) {
		// Never answered, so two peers cannot answer each other's errors
		// forever.
		b := bad(jsonrpc2.InvalidRequest, "a response that cannot be read: %s", describeResponse(fields))
		b.response = true
		return b
	}
	if !utf8.Valid(body) {
		return bad(jsonrpc2.ParseError, "the message is not valid UTF-8 (LSP messages are UTF-8)")
	}
	if v, ok := fields["jsonrpc"]; ok {
		var version string
		if json.Unmarshal(v, &version) != nil || version != jsonrpc2.Version {
			return bad(jsonrpc2.InvalidRequest, "jsonrpc is %s; it must be \"2.0\"", clipQuote(v))
		}
	}
	if !hasMethod {
		return bad(jsonrpc2.InvalidRequest, "the message has no method: it is neither a request nor a response")
	}
	var method string
	if err := json.Unmarshal(rawMethod, &method); err != nil || method == "" {
		return bad(jsonrpc2.InvalidRequest, "the method is %s; it must be a non-empty string", clipQuote(rawMethod))
	}
	if hasID && !idOK {
		return bad(jsonrpc2.InvalidRequest, "the id of %s is %s; it must be a string or an integer up to 2^31-1", clipQuote([]byte(method)), clipQuote(rawID))
	}
	return nil
}

// readID returns a request's id re-encoded (nil when there is none, or it
// is neither a string nor a number), and whether jsonrpc2 can take it (a
// string or a 32-bit integer).
func readID(raw json.RawMessage) (json.RawMessage, bool) {
	if len(raw) == 0 {
		return nil, false
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		out, _ := json.Marshal(s) // invalid UTF-8 comes back replaced
		return out, true
	}
	var n json.Number
	if json.Unmarshal(raw, &n) != nil {
		return nil, false
	}
	_, err := strconv.ParseInt(n.String(), 10, 32)
	return json.RawMessage(n.String()), err == nil
}

func describeResponse(fields map[string]json.RawMessage) string {
	var wire struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
	}
	if e, ok := fields["error"]; ok && json.Unmarshal(e, &wire) != nil {
		return fmt.Sprintf("its error is %s, not {code, message}", clipQuote(e))
	}
	if _, ok := readID(fields["id"]); !ok {
		return fmt.Sprintf("its id %s is neither a string nor a 32-bit integer", clipQuote(fields["id"]))
	}
	if v, ok := fields["jsonrpc"]; ok && string(v) != `"2.0"` {
		return fmt.Sprintf("jsonrpc is %s, not \"2.0\"", clipQuote(v))
	}
	return "jsonrpc2 refused it"
}

// maxQuote is how much of a frame's value an answer quotes.
const maxQuote = 100

// clipQuote is a value of a bad frame as an answer quotes it: whole when
// short, else its first maxQuote bytes (cut at a character) and how long
// it was, so that a megabyte field is not sent back.
func clipQuote(raw []byte) string {
	if len(raw) <= maxQuote {
		return string(raw)
	}
	cut := maxQuote
	for k := 0; k < utf8.UTFMax-1 && cut > 0 && !utf8.RuneStart(raw[cut]); k++ {
		cut--
	}
	return fmt.Sprintf("%s… (%d bytes)", raw[:cut], len(raw))
}

func jsonKind(body []byte) string {
	switch b := bytes.TrimSpace(body); {
	case len(b) == 0:
		return "empty message"
	case b[0] == '[':
		return "array"
	case b[0] == '"':
		return "string"
	case b[0] == 't' || b[0] == 'f':
		return "boolean"
	case b[0] == 'n':
		return "null"
	default:
		return "number"
	}
}

// failedResponse turns a malformed response to one of our calls into an
// error response, so the call ends with the reason instead of waiting for
// an answer that was lost; nil when its id cannot name a call.
func (b *badMessage) failedResponse() jsonrpc2.Message {
	if b.id == nil {
		return nil
	}
	wire, err := json.Marshal(map[string]any{
		"jsonrpc": jsonrpc2.Version,
		"id":      b.id,
		"error":   map[string]any{"code": jsonrpc2.InternalError, "message": "the editor's answer could not be read: " + b.reason},
	})
	if err != nil {
		return nil
	}
	msg, err := jsonrpc2.DecodeMessage(wire)
	if err != nil {
		return nil
	}
	return msg
}

// answer sends the error response to a bad message.
func (s *frameStream) answer(b *badMessage) error {
	id := b.id
	if id == nil {
		id = json.RawMessage("null")
	}
	body, err := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   *jsonrpc2.Error `json:"error"`
	}{jsonrpc2.Version, id, jsonrpc2.NewError(b.code, b.reason)})
	if err != nil {
		return err
	}
	frame := append([]byte(fmt.Sprintf("%s: %d%s", jsonrpc2.HdrContentLength, len(body), jsonrpc2.HdrContentSeparator)), body...)
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	_, err = s.rwc.Write(frame)
	return err
}

// Write sends a message (jsonrpc2's framing).
func (s *frameStream) Write(ctx context.Context, msg jsonrpc2.Message) (int64, error) {
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	return s.out.Write(ctx, msg)
}

// Close closes the connection; a blocked Read or Write returns.
func (s *frameStream) Close() error { return s.rwc.Close() }
