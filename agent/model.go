package agent

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"

	openai "github.com/sashabaranov/go-openai"
)

// ModelConfig says which model to reach and how.
type ModelConfig struct {
	// BaseURL of an OpenAI-compatible API ("https://api.openai.com/v1",
	// "http://localhost:11434/v1" for Ollama, ...); default: the
	// OPENAI_BASE_URL environment variable, else OpenAI.
	BaseURL string
	// Model name; default: AGENTLS_MODEL.
	Model string
	// APIKeyEnv names the environment variable holding the key (the key
	// itself is never configured, logged or stored); default
	// OPENAI_API_KEY. Local servers need none.
	APIKeyEnv string
	// Retries after a 429, a 5xx or a reset connection (default 4), the
	// first backoff (default 500 ms) and the longest wait (default 30 s).
	Retries int
	Backoff time.Duration
	MaxWait time.Duration
	// ChunkTimeout bounds the wait for the stream to start and for
	// each next chunk (default 120 s): a stalled server becomes an error,
	// never a hang.
	ChunkTimeout time.Duration
	// TaggedThinking says the model's replies never begin inside a
	// thinking section whose opening tag they omit: it does not think in
	// text (GPT-4.1, Claude), or writes both tags. Its first tool call then
	// runs as soon as it is complete. Leave it false for models whose chat
	// template opens <think> in the prompt (DeepSeek-R1, QwQ) unless the
	// server sends their reasoning apart (reasoning_content, which the turn
	// notices by itself): otherwise a call drafted in the thinking would be
	// run. With it false, a reply's calls run when the reply has ended or
	// a think tag has shown where its thinking is (parse.Options).
	TaggedThinking bool
	// Temperature, if set, is sent with every request (nil: the server's
	// default). 0 asks for the most likely tokens: what small local
	// models do best with, and aider's and gptme's default.
	Temperature *float64
	// TemperatureIsDefault says Temperature is agentls's default, not the
	// user's: a server that refuses a temperature (OpenAI's reasoning
	// models take only their own) gets the request again without it, and
	// later requests go without. A temperature the user set is sent, and
	// a refusal of it is the turn's error.
	TemperatureIsDefault bool
}

// DefaultTemperature is the temperature of a turn whose settings set
// none: the most likely tokens, as aider and gptme ask for. With
// Qwen2.5-Coder-1.5B it solved more of the evaluation's tasks than the
// server's default sampling (BENCH.md).
const DefaultTemperature = 0.0

// A Model streams chat completions.
type Model struct {
	cfg    ModelConfig
	key    string
	client *openai.Client
	// transport is the Model's own, kept so CloseIdleConnections can end
	// the connections it holds for a next request.
	transport *http.Transport
	// noStreamOptions is set once the server refused stream_options (a
	// few strict servers answer 400 to a field they do not know): later
	// requests go without, and their usage is estimated.
	noStreamOptions atomic.Bool
	// noTemperature is set once the server refused agentls's default
	// temperature (ModelConfig.TemperatureIsDefault).
	noTemperature atomic.Bool
}

// NewModel returns a Model for cfg, reading defaults and the key with
// getenv (os.Getenv in production).
func NewModel(cfg ModelConfig, getenv func(string) string) (*Model, error) {
	if cfg.BaseURL == "" {
		cfg.BaseURL = getenv("OPENAI_BASE_URL")
	}
	if cfg.BaseURL == "" {
		cfg.BaseURL = "https://api.openai.com/v1"
	}
	if cfg.Model == "" {
		cfg.Model = getenv("AGENTLS_MODEL")
	}
	if cfg.Model == "" {
		return nil, errors.New("no model configured: set the model setting or AGENTLS_MODEL (e.g. gpt-4.1, or qwen2.5-coder for Ollama)")
	}
	if cfg.APIKeyEnv == "" {
		cfg.APIKeyEnv = "OPENAI_API_KEY"
	}
	if cfg.Retries == 0 {
		cfg.Retries = 4
	}
	if cfg.Backoff == 0 {
		cfg.Backoff = 500 * time.Millisecond
	}
	if cfg.MaxWait == 0 {
		cfg.MaxWait = 30 * time.Second
	}
	if cfg.ChunkTimeout == 0 {
		cfg.ChunkTimeout = 120 * time.Second
	}
	key := getenv(cfg.APIKeyEnv)
	if key == "" {
		if err := needsKey(cfg); err != nil {
			return nil, err
		}
	}
	oc := openai.DefaultConfig(key)
	oc.BaseURL = strings.TrimRight(cfg.BaseURL, "/")
	transport := http.DefaultTransport.(*http.Transport).Clone()
	m := &Model{cfg: cfg, key: key, transport: transport}
	var send http.RoundTripper = transport
	if t := cfg.Temperature; t != nil && *t == 0 {
		send = zeroTemperature{base: transport, off: &m.noTemperature} // temperature.go
	}
	oc.HTTPClient = &http.Client{Transport: &retryTransport{
		base:    send,
		retries: cfg.Retries, backoff: cfg.Backoff, maxWait: cfg.MaxWait,
	}}
	m.client = openai.NewClientWithConfig(oc)
	return m, nil
}

// CloseIdleConnections closes the connections the Model keeps open for a
// next request; call it when done with the Model. Each Model has a
// transport of its own, whose idle connection otherwise stays open (a
// descriptor, two goroutines, its buffers) for the 90 s idle timeout: the
// server, which makes a Model per agent turn, held one per turn (TestSoak).
func (m *Model) CloseIdleConnections() { m.transport.CloseIdleConnections() }

// Name returns the model's name.
func (m *Model) Name() string { return m.cfg.Model }

// TaggedThinking reports ModelConfig.TaggedThinking.
func (m *Model) TaggedThinking() bool { return m.cfg.TaggedThinking }

// A Stream is one streamed completion.
type Stream struct {
	m        *Model
	s        *openai.ChatCompletionStream
	cancel   context.CancelFunc
	timer    *time.Timer
	calls    []openai.ToolCall
	finished bool
	// finishReason is why the model stopped, as the server said ("stop":
	// it ended its reply itself; "length": a limit cut it).
	finishReason string
	stalled      atomic.Bool // set by the watchdog

	// usage is the server's count, when it sent one; else promptChars and
	// replyChars make an estimate.
	usage                   *openai.Usage
	promptChars, replyChars int
}

// Stream starts a completion of messages; tools, if any, are offered as
// native tools.
func (m *Model) Stream(ctx context.Context, messages []openai.ChatCompletionMessage, tools []openai.Tool) (*Stream, error) {
	ctx, cancel := context.WithCancel(ctx)
	st := &Stream{m: m, cancel: cancel, promptChars: promptChars(messages, tools)}
	// A watchdog cancels the request when the server goes quiet; it is
	// reset by every chunk.
	st.timer = time.AfterFunc(m.cfg.ChunkTimeout, func() { st.stalled.Store(true); cancel() })
	req := openai.ChatCompletionRequest{Model: m.cfg.Model, Messages: messages, Tools: tools, Stream: true}
	if t := m.cfg.Temperature; t != nil && !m.noTemperature.Load() {
		// A zero is left out by go-openai and written back by the
		// Model's transport (zeroTemperature).
		req.Temperature = float32(*t)
	}
	if !m.noStreamOptions.Load() {
		req.StreamOptions = &openai.StreamOptions{IncludeUsage: true}
	}
	s, err := m.client.CreateChatCompletionStream(ctx, req)
	if refusedStreamOptions(err) && req.StreamOptions != nil {
		m.noStreamOptions.Store(true)
		req.StreamOptions = nil
		s, err = m.client.CreateChatCompletionStream(ctx, req)
	}
	if refusedField(err, "temperature") && m.cfg.TemperatureIsDefault && !m.noTemperature.Load() {
		m.noTemperature.Store(true)
		req.Temperature = 0
		s, err = m.client.CreateChatCompletionStream(ctx, req)
	}
	if err != nil {
		st.Close()
		return nil, m.classify(err, st.stalled.Load())
	}
	st.s = s
	return st, nil
}

// A Delta is one streamed piece of a reply.
type Delta struct {
	// Text is more of the reply's text.
	Text string
	// Reasoning is more of the model's thinking, when the server sends it
	// apart from the text (reasoning_content: DeepSeek's API, vLLM and
	// llama.cpp with a reasoning parser). It is never part of the reply:
	// nothing in it is a tool call, and it is not sent back to the model.
	Reasoning string
}

// Next returns the next piece of text (possibly empty when the chunk only
// carried a tool-call fragment or reasoning). It returns io.EOF when the
// model has finished; a stream that ends without finishing is an error.
func (st *Stream) Next() (string, error) {
	d, err := st.Recv()
	return d.Text, err
}

// Recv returns the next piece of text and reasoning (both possibly empty
// when the chunk only carried a tool-call fragment). It returns io.EOF
// when the model has finished; a stream that ends without finishing is an
// error.
func (st *Stream) Recv() (Delta, error) {
	for {
		resp, err := st.s.Recv()
		st.timer.Reset(st.m.cfg.ChunkTimeout)
		if errors.Is(err, io.EOF) {
			if !st.finished {
				return Delta{}, &Error{Kind: StreamCut, Message: "the model's stream ended before the model finished (the connection was cut); what arrived is kept, ask again to continue"}
			}
			return Delta{}, io.EOF
		}
		if err != nil {
			return Delta{}, st.m.classify(err, st.stalled.Load())
		}
		if resp.Usage != nil {
			st.usage = resp.Usage
		}
		if len(resp.Choices) == 0 {
			continue // the usage chunk of stream_options has no choice
		}
		c := resp.Choices[0]
		for _, tc := range c.Delta.ToolCalls {
			st.addToolCall(tc)
			st.replyChars += utf8.RuneCountInString(tc.Function.Name) + utf8.RuneCountInString(tc.Function.Arguments)
		}
		st.replyChars += utf8.RuneCountInString(c.Delta.Content) + utf8.RuneCountInString(c.Delta.ReasoningContent)
		if c.FinishReason != "" {
			st.finished = true
			st.finishReason = string(c.FinishReason)
		}
		return Delta{Text: c.Delta.Content, Reasoning: c.Delta.ReasoningContent}, nil
	}
}

// addToolCall merges a tool-call fragment into the calls, by index: the
// first fragment of a call has its id and name, the rest append to its
// arguments.
func (st *Stream) addToolCall(tc openai.ToolCall) {
	i := len(st.calls)
	if tc.Index != nil {
		i = *tc.Index
	}
	for len(st.calls) <= i {
		st.calls = append(st.calls, openai.ToolCall{Type: openai.ToolTypeFunction})
	}
	c := &st.calls[i]
	if tc.ID != "" {
		c.ID = tc.ID
	}
	if tc.Function.Name != "" {
		c.Function.Name += tc.Function.Name
	}
	c.Function.Arguments += tc.Function.Arguments
}

// Usage is the completion's cost in tokens: the server's count when it
// sent one (at the end of the stream), else an estimate from the text
// sent and received so far.
func (st *Stream) Usage() Usage {
	if st.usage != nil && st.usage.TotalTokens+st.usage.PromptTokens > 0 {
		return Usage{Prompt: st.usage.PromptTokens, Completion: st.usage.CompletionTokens}
	}
	return Usage{Prompt: estimateTokens(st.promptChars), Completion: estimateTokens(st.replyChars), Estimated: true}
}

// ToolCalls returns the native tool calls streamed so far, reassembled.
func (st *Stream) ToolCalls() []openai.ToolCall { return st.calls }

// EndedByModel reports whether the model ended its reply itself (finish
// reason "stop"), rather than a limit (or nothing yet).
func (st *Stream) EndedByModel() bool { return st.finishReason == "stop" }

// Close ends the stream (stopping the generation if it is still running).
func (st *Stream) Close() {
	st.timer.Stop()
	st.cancel()
	if st.s != nil {
		st.s.Close()
	}
}

// ErrorKind sorts model errors by what the user can do about them.
type ErrorKind int

const (
	Other         ErrorKind = iota
	Unauthorized            // 401/403: the key
	UnknownModel            // 404 or model_not_found
	RateLimited             // 429 after the retries
	ServerError             // 5xx after the retries
	ContextLength           // the conversation is too long for the model
	Timeout                 // no answer, or the stream stalled
	Unreachable             // no connection
	StreamCut               // the stream broke mid-way
)

// An Error is a model failure with a message that says what to do.
type Error struct {
	Kind    ErrorKind
	Status  int
	Message string
	Err     error // the cause (context.Canceled when the caller gave up)
}

func (e *Error) Error() string { return e.Message }

func (e *Error) Unwrap() error { return e.Err }

// classify turns a go-openai or transport error into an Error with an
// actionable message; the key never appears in it.
func (m *Model) classify(err error, stalled bool) error {
	where := fmt.Sprintf("model %s at %s", m.cfg.Model, m.cfg.BaseURL)
	e := &Error{Kind: Other, Message: fmt.Sprintf("%s: %v", where, err), Err: err}
	var api *openai.APIError
	var req *openai.RequestError
	var netErr net.Error
	switch {
	case stalled:
		e.Kind, e.Message = Timeout, fmt.Sprintf("%s sent nothing for %s: it stalled; try again, or raise the timeout for slow local models", where, m.cfg.ChunkTimeout)
	case errors.As(err, &api):
		e.Status = api.HTTPStatusCode
		code, _ := api.Code.(string)
		switch {
		case api.HTTPStatusCode == 401 || api.HTTPStatusCode == 403:
			e.Kind = Unauthorized
			e.Message = fmt.Sprintf("%s refused the API key (%d: %s): check $%s", where, api.HTTPStatusCode, api.Message, m.cfg.APIKeyEnv)
			if m.key == "" {
				e.Message = fmt.Sprintf("%s needs an API key (%d: %s): set $%s", where, api.HTTPStatusCode, api.Message, m.cfg.APIKeyEnv)
			}
		case api.HTTPStatusCode == 404 || code == "model_not_found":
			e.Kind = UnknownModel
			e.Message = m.explain404(api.Message)
		case code == "context_length_exceeded" || strings.Contains(api.Message, "context length") || strings.Contains(api.Message, "maximum context"):
			e.Kind = ContextLength
			e.Message = fmt.Sprintf("%s: the conversation is longer than the model's context (%s): start a new turn with less context", where, api.Message)
		case api.HTTPStatusCode == 429:
			e.Kind = RateLimited
			e.Message = fmt.Sprintf("%s is rate limiting (429: %s) after %d retries: wait and try again", where, api.Message, m.cfg.Retries)
		case api.HTTPStatusCode >= 500:
			e.Kind = ServerError
			e.Message = fmt.Sprintf("%s failed (%d: %s) after %d retries: try again later", where, api.HTTPStatusCode, api.Message, m.cfg.Retries)
		default:
			e.Message = fmt.Sprintf("%s: %d: %s", where, api.HTTPStatusCode, api.Message)
		}
	case errors.As(err, &req):
		e.Status = req.HTTPStatusCode
		e.Message = fmt.Sprintf("%s: %d: %v", where, req.HTTPStatusCode, req.Err)
		if req.HTTPStatusCode == 404 {
			e.Kind = UnknownModel
			e.Message = m.explain404(fmt.Sprint(req.Err))
		}
	case errors.As(err, &netErr) && netErr.Timeout():
		e.Kind, e.Message = Timeout, fmt.Sprintf("%s did not answer in time: %v", where, err)
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
		e.Kind, e.Message = StreamCut, fmt.Sprintf("%s: the connection was cut mid-answer (%v); ask again", where, err)
	case isDialError(err):
		e.Kind, e.Message = Unreachable, fmt.Sprintf("%s is unreachable (%v): is the server running, and is the base URL right?", where, err)
	}
	if m.key != "" {
		e.Message = strings.ReplaceAll(e.Message, m.key, "[key]")
	}
	return e
}

func isDialError(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial"
}
