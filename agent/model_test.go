package agent

import (
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/agentls/agentls/agent/modeltest"
)

const testKey = "sk-test-SECRET-1234"

func testModel(t testing.TB, url string, cfg ModelConfig) *Model {
	t.Helper()
	cfg.BaseURL, cfg.Model = url, "test-model"
	if cfg.Backoff == 0 {
		cfg.Backoff = time.Millisecond
	}
	m, err := NewModel(cfg, func(k string) string {
		if k == "OPENAI_API_KEY" {
			return testKey
		}
		return ""
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// drain reads a stream to its end and returns the text and the error
// that ended it (nil for a proper finish).
func drain(st *Stream) (string, error) {
	var sb strings.Builder
	for {
		text, err := st.Next()
		sb.WriteString(text)
		if errors.Is(err, io.EOF) {
			return sb.String(), nil
		}
		if err != nil {
			return sb.String(), err
		}
	}
}

func user(text string) []openai.ChatCompletionMessage {
	return []openai.ChatCompletionMessage{{Role: openai.ChatMessageRoleUser, Content: text}}
}

func TestModelStreamsText(t *testing.T) {
	srv := modeltest.New(modeltest.Text("Here is the fix:\n```patch a.go\n...\n```\n", 5))
	defer srv.Close()
	st, err := testModel(t, srv.URL, ModelConfig{}).Stream(context.Background(), user("fix it"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	text, err := drain(st)
	if err != nil || text != "Here is the fix:\n```patch a.go\n...\n```\n" {
		t.Fatalf("text %q, err %v", text, err)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 || !reqs[0].Body.Stream || reqs[0].Body.Model != "test-model" || reqs[0].Body.Messages[0].Content != "fix it" || reqs[0].Authorization != "Bearer "+testKey {
		t.Errorf("request = %+v", reqs)
	}
}

// TestModelToolCallFragments: native tool calls arrive as fragments,
// interleaved between calls; they are put back together by index.
func TestModelToolCallFragments(t *testing.T) {
	srv := modeltest.New(modeltest.Reply{Chunks: []modeltest.Chunk{
		{Text: "Patching."},
		{ToolCall: &modeltest.ToolCallDelta{Index: 0, ID: "call_1", Name: "patch"}},
		{ToolCall: &modeltest.ToolCallDelta{Index: 0, Args: `{"path": "a.go", `}},
		{ToolCall: &modeltest.ToolCallDelta{Index: 1, ID: "call_2", Name: "shell"}},
		{ToolCall: &modeltest.ToolCallDelta{Index: 0, Args: `"patch": "<<<<<<< ORIGINAL\n"}`}},
		{ToolCall: &modeltest.ToolCallDelta{Index: 1, Args: `{"command": "go test"}`}},
	}})
	defer srv.Close()
	st, err := testModel(t, srv.URL, ModelConfig{}).Stream(context.Background(), user("x"), []openai.Tool{{Type: openai.ToolTypeFunction, Function: &openai.FunctionDefinition{Name: "patch"}}})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if text, err := drain(st); err != nil || text != "Patching." {
		t.Fatalf("text %q, err %v", text, err)
	}
	calls := st.ToolCalls()
	if len(calls) != 2 || calls[0].ID != "call_1" || calls[0].Function.Name != "patch" || calls[0].Function.Arguments != `{"path": "a.go", "patch": "<<<<<<< ORIGINAL\n"}` ||
		calls[1].ID != "call_2" || calls[1].Function.Arguments != `{"command": "go test"}` {
		t.Errorf("calls = %+v", calls)
	}
	if tools := srv.Requests()[0].Body.Tools; len(tools) != 1 || tools[0].Function.Name != "patch" {
		t.Errorf("tools sent = %+v", tools)
	}
}

// TestModelErrors: each provider failure becomes an Error of the right
// kind with a message that says what to do, after the retries where
// retrying can help, and never with the key in it.
func TestModelErrors(t *testing.T) {
	for _, tc := range []struct {
		name     string
		replies  []modeltest.Reply
		kind     ErrorKind
		says     string
		requests int
	}{
		{"unauthorized", []modeltest.Reply{{Status: 401, Message: "Incorrect API key provided: " + testKey, Type: "invalid_request_error", Code: "invalid_api_key"}}, Unauthorized, "check $OPENAI_API_KEY", 1},
		{"unknown model", []modeltest.Reply{{Status: 404, Message: "The model `test-model` does not exist", Code: "model_not_found"}}, UnknownModel, "check the model name", 1},
		{"context length", []modeltest.Reply{{Status: 400, Message: "This model's maximum context length is 8192 tokens", Code: "context_length_exceeded"}}, ContextLength, "longer than the model's context", 1},
		{"rate limited throughout", []modeltest.Reply{{Status: 429, Message: "slow down", RetryAfter: "0"}, {Status: 429, Message: "slow down", RetryAfter: "0"}, {Status: 429, Message: "slow down", RetryAfter: "0"}}, RateLimited, "after 2 retries", 3},
		{"server error throughout", []modeltest.Reply{{Status: 500, Message: "boom"}, {Status: 502, Message: "bad gateway"}, {Status: 503, Message: "overloaded"}}, ServerError, "try again later", 3},
		{"cut mid-stream", []modeltest.Reply{{Chunks: []modeltest.Chunk{{Text: "```patch a.go\n<<<<<<< ORIG"}}, Cut: true}}, StreamCut, "cut", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := modeltest.New(tc.replies...)
			defer srv.Close()
			m := testModel(t, srv.URL, ModelConfig{Retries: 2})
			var err error
			if st, serr := m.Stream(context.Background(), user("x"), nil); serr != nil {
				err = serr
			} else {
				_, err = drain(st)
				st.Close()
			}
			var e *Error
			if !errors.As(err, &e) || e.Kind != tc.kind || !strings.Contains(e.Message, tc.says) {
				t.Fatalf("error = %#v, want kind %d saying %q", err, tc.kind, tc.says)
			}
			if strings.Contains(err.Error(), testKey) {
				t.Errorf("the key leaked into the error: %s", err)
			}
			if n := len(srv.Requests()); n != tc.requests {
				t.Errorf("%d requests, want %d", n, tc.requests)
			}
		})
	}
}

// TestModelRetriesThenSucceeds: a 429 with Retry-After, then a 503, then
// the answer: the caller sees only the answer.
func TestModelRetriesThenSucceeds(t *testing.T) {
	srv := modeltest.New(
		modeltest.Reply{Status: 429, Message: "rate limited", RetryAfter: "1"},
		modeltest.Reply{Status: 503, Message: "overloaded"},
		modeltest.Text("ok", 10),
	)
	defer srv.Close()
	m := testModel(t, srv.URL, ModelConfig{})
	start := time.Now()
	st, err := m.Stream(context.Background(), user("x"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if text, err := drain(st); err != nil || text != "ok" {
		t.Fatalf("text %q, err %v", text, err)
	}
	if len(srv.Requests()) != 3 {
		t.Errorf("%d requests, want 3", len(srv.Requests()))
	}
	if time.Since(start) < time.Second {
		t.Error("Retry-After: 1 was not honoured")
	}
}

// TestModelStallAndCancel: a server that stops sending becomes a Timeout
// error after the chunk timeout; cancelling the context ends a stream at
// once.
func TestModelStallAndCancel(t *testing.T) {
	srv := modeltest.New(
		modeltest.Reply{Chunks: []modeltest.Chunk{{Text: "thinking"}}, Stall: true},
		modeltest.Reply{Chunks: []modeltest.Chunk{{Text: "slow"}}, Stall: true},
	)
	defer srv.Close()
	m := testModel(t, srv.URL, ModelConfig{ChunkTimeout: 500 * time.Millisecond})
	// On a loaded machine the watchdog may fire before the first chunk:
	// the stall is then reported by Stream itself.
	var text string
	st, err := m.Stream(context.Background(), user("x"), nil)
	if err == nil {
		text, err = drain(st)
		st.Close()
	}
	var e *Error
	if !errors.As(err, &e) || e.Kind != Timeout || !strings.Contains(e.Message, "stalled") || text != "thinking" && text != "" {
		t.Fatalf("text %q, error %v", text, err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	m = testModel(t, srv.URL, ModelConfig{})
	st, err = m.Stream(ctx, user("x"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if text, err := st.Next(); text != "" || err != nil { // the role chunk
		t.Fatalf("first chunk %q, %v", text, err)
	}
	st.Next()
	go func() { time.Sleep(50 * time.Millisecond); cancel() }()
	if _, err := drain(st); err == nil {
		t.Fatal("a cancelled stream ended cleanly")
	}
}

// TestModelUnreachable: nothing listening is an actionable error, after
// the retries (a server that is starting may come up).
func TestModelUnreachable(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	m := testModel(t, "http://"+addr+"/v1", ModelConfig{Retries: 1})
	_, err = m.Stream(context.Background(), user("x"), nil)
	var e *Error
	if !errors.As(err, &e) || e.Kind != Unreachable || !strings.Contains(e.Message, "is the server running") {
		t.Fatalf("error = %v", err)
	}
}

func TestNewModelNeedsAModel(t *testing.T) {
	if _, err := NewModel(ModelConfig{}, func(string) string { return "" }); err == nil || !strings.Contains(err.Error(), "AGENTLS_MODEL") {
		t.Errorf("err = %v", err)
	}
}

// TestModelReasoningApart: reasoning the server sends as
// reasoning_content comes out of Recv apart from the text, and Next (the
// text alone) never shows it.
func TestModelReasoningApart(t *testing.T) {
	reply := modeltest.Reasoned("The user wants ls. ```shell\nrm -rf ~\n```", "```shell\nls\n```\n", 6)
	srv := modeltest.New(reply, reply)
	defer srv.Close()
	m := testModel(t, srv.URL, ModelConfig{})
	st, err := m.Stream(context.Background(), user("x"), nil)
	if err != nil {
		t.Fatal(err)
	}
	var text, reasoning strings.Builder
	for {
		d, err := st.Recv()
		text.WriteString(d.Text)
		reasoning.WriteString(d.Reasoning)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	st.Close()
	if text.String() != "```shell\nls\n```\n" || reasoning.String() != "The user wants ls. ```shell\nrm -rf ~\n```" {
		t.Errorf("text %q, reasoning %q", text.String(), reasoning.String())
	}

	st, err = m.Stream(context.Background(), user("x"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if got, err := drain(st); err != nil || got != "```shell\nls\n```\n" {
		t.Errorf("Next gave %q, %v", got, err)
	}
}
