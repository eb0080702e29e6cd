package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// The SDK reads a server's messages in order but hands notifications to
// their handler on a queue of their own, while a call's result goes
// straight to the caller: the result of a call can overtake the progress
// notifications the server sent before it. A call would then return,
// forget its progress token, and drop those lines.
//
// So the bytes are tapped on their way in: each progress notification of
// a call in flight is counted when it arrives, before the SDK has parsed
// it, and the call, once answered, waits until as many were shown. The
// server's order is then the turn's: progress lines, then the result.

// progressNotification is the method the tap looks for.
const progressNotification = "notifications/progress"

// progressDrain bounds how long an answered call waits for its progress
// lines: a notification the SDK never hands over (a session that ended)
// must not hold the turn.
const progressDrain = 2 * time.Second

// A progressSink is where one call's progress notifications go.
type progressSink struct {
	show    func(*sdk.ProgressNotificationParams)
	arrived int           // counted by the tap
	shown   int           // handed to show
	caught  chan struct{} // signalled when shown catches up with arrived
}

// arrived counts a progress notification for token whose bytes came in;
// tokens of no call in flight are not counted.
func (s *server) arrived(token string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if sink := s.progress[token]; sink != nil {
		sink.arrived++
	}
}

// drain waits until every progress notification that arrived for sink
// was shown, the session ends or progressDrain passes.
func (s *server) drain(sink *progressSink, done <-chan struct{}) {
	timeout := time.NewTimer(progressDrain)
	defer timeout.Stop()
	for {
		s.mu.Lock()
		caughtUp := sink.shown >= sink.arrived
		s.mu.Unlock()
		if caughtUp {
			return
		}
		select {
		case <-sink.caught:
		case <-done:
			return
		case <-timeout.C:
			return
		}
	}
}

// progressToken returns the token of a message if it is a progress
// notification the SDK will hand over: its params decode as the SDK's,
// with the token under its exact name (the SDK matches names by case,
// encoding/json does not). One the SDK drops uncounted is
// one its call does not wait for. A message without the method's name is
// not decoded.
func progressToken(msg []byte) (string, bool) {
	if !bytes.Contains(msg, []byte(progressNotification)) {
		return "", false
	}
	var m struct {
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	}
	var names map[string]json.RawMessage
	var p sdk.ProgressNotificationParams
	if json.Unmarshal(msg, &m) != nil || m.Method != progressNotification ||
		json.Unmarshal(m.Params, &names) != nil || names["progressToken"] == nil ||
		json.Unmarshal(m.Params, &p) != nil || p.ProgressToken == nil {
		return "", false
	}
	return fmt.Sprint(p.ProgressToken), true
}

// maxTapLine bounds the line a tap keeps: a progress notification is
// small, a longer line (a big result) is passed on unexamined.
const maxTapLine = 64 << 10

// A lineTap passes a stream through unchanged and hands each of its
// lines, without the newline, to line before the reader sees the line's
// last byte.
type lineTap struct {
	r       io.ReadCloser
	line    func([]byte)
	partial []byte
	long    bool // the current line passed maxTapLine
}

func (t *lineTap) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	rest := p[:n]
	for len(rest) > 0 {
		i := bytes.IndexByte(rest, '\n')
		if i < 0 {
			t.keep(rest)
			break
		}
		t.keep(rest[:i])
		if !t.long {
			t.line(t.partial)
		}
		t.partial, t.long = t.partial[:0], false
		rest = rest[i+1:]
	}
	return n, err
}

func (t *lineTap) keep(b []byte) {
	if t.long || len(t.partial)+len(b) > maxTapLine {
		t.partial, t.long = t.partial[:0], true
		return
	}
	t.partial = append(t.partial, b...)
}

func (t *lineTap) Close() error { return t.r.Close() }

// tapStdio counts the progress notifications on a stdio server's
// stdout: one JSON message per line.
func tapStdio(r io.ReadCloser, arrived func(token string)) io.ReadCloser {
	return &lineTap{r: r, line: func(line []byte) {
		if token, ok := progressToken(line); ok {
			arrived(token)
		}
	}}
}

// tapSSE counts the progress notifications in a streamable HTTP
// response's event stream: each message is one "data:" line, as servers
// write them (an event split over several data lines is not counted; its
// call then does not wait for it).
func tapSSE(r io.ReadCloser, arrived func(token string)) io.ReadCloser {
	return &lineTap{r: r, line: func(line []byte) {
		data, ok := bytes.CutPrefix(line, []byte("data:"))
		if !ok {
			return
		}
		if token, ok := progressToken(bytes.TrimSpace(data)); ok {
			arrived(token)
		}
	}}
}

// An httpTap is a streamable HTTP server's round tripper: it adds the
// configured headers (an Authorization token) to each request and taps
// its event streams for progress.
type httpTap struct {
	headers map[string]string
	arrived func(token string)
	next    http.RoundTripper
}

func (t httpTap) RoundTrip(r *http.Request) (*http.Response, error) {
	if len(t.headers) > 0 {
		r = r.Clone(r.Context())
		for k, v := range t.headers {
			r.Header.Set(k, v)
		}
	}
	resp, err := t.next.RoundTrip(r)
	if err == nil && strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		resp.Body = tapSSE(resp.Body, t.arrived)
	}
	return resp, err
}
