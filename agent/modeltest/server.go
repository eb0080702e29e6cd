// Package modeltest is a fake model: a real HTTP server speaking the
// OpenAI chat-completions wire protocol (server-sent events, tool-call
// deltas, error bodies), scripted reply by reply, recording what it was
// asked. Tests use it in place of a paid model, and so can a demo: it
// needs no key and no network.
package modeltest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"
)

// A Reply is the server's answer to one request.
type Reply struct {
	// Status, when not 0 or 200, makes an error reply with an OpenAI error
	// body (Message, Type, Code) and, if set, a Retry-After header.
	Status     int
	Message    string
	Type       string
	Code       string
	RetryAfter string

	// Chunks are streamed one event each, in order.
	Chunks []Chunk
	// FinishReason ends the stream ("stop" if empty, or "tool_calls" when
	// a chunk holds a tool call), followed by [DONE].
	FinishReason string
	// Cut closes the connection after the chunks, without finishing the
	// stream; Stall instead keeps it open until the client goes away.
	Cut, Stall bool
	// Delay waits before each chunk.
	Delay time.Duration
	// Usage, when set, is sent as OpenAI does when the request asked for
	// it (stream_options.include_usage): a last chunk with no choice.
	// Left nil, no count is sent, as llama.cpp's server does.
	Usage *Usage
}

// Usage is a completion's token count as the API reports it.
type Usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
}

// A Chunk is one streamed delta: text, reasoning, or a fragment of a tool
// call.
type Chunk struct {
	Text string
	// Reasoning is sent as reasoning_content, the way DeepSeek, vLLM and
	// llama.cpp send a reasoning model's thinking apart from its text.
	Reasoning string
	ToolCall  *ToolCallDelta
}

// A ToolCallDelta is a fragment of a native tool call: the first one of a
// call carries its ID and Name, the others more of its JSON Args.
type ToolCallDelta struct {
	Index    int
	ID, Name string
	Args     string
}

// Text returns a reply streaming text in pieces of at most n bytes.
func Text(text string, n int) Reply {
	var r Reply
	for len(text) > 0 {
		k := min(n, len(text))
		r.Chunks = append(r.Chunks, Chunk{Text: text[:k]})
		text = text[k:]
	}
	return r
}

// Reasoned returns a reply that streams reasoning as reasoning_content,
// then text, each in pieces of at most n bytes.
func Reasoned(reasoning, text string, n int) Reply {
	var r Reply
	for len(reasoning) > 0 {
		k := min(n, len(reasoning))
		r.Chunks = append(r.Chunks, Chunk{Reasoning: reasoning[:k]})
		reasoning = reasoning[k:]
	}
	r.Chunks = append(r.Chunks, Text(text, n).Chunks...)
	return r
}

// A Request is what the server was asked.
type Request struct {
	Authorization string // the header as sent ("" when none)
	Body          ChatRequest
}

// ChatRequest is the part of a chat-completions request tests look at.
type ChatRequest struct {
	Model         string   `json:"model"`
	Stream        bool     `json:"stream"`
	Temperature   *float64 `json:"temperature"`
	StreamOptions *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
	Messages []Message `json:"messages"`
	Tools    []struct {
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	} `json:"tools"`
}

// A Message is one message of a request. Content is its text: the
// content as sent when it is a string, or the text parts of a multi-part
// content, joined by newlines. Images are the URLs of its image_url parts
// (data: URLs for images sent inline), so a test sees an image reach the
// model.
type Message struct {
	Role       string   `json:"role"`
	Content    string   `json:"content"`
	ToolCallID string   `json:"tool_call_id,omitempty"`
	Images     []string `json:"-"`
}

// UnmarshalJSON reads a message whose content is a string or a list of
// parts, as the API takes both.
func (m *Message) UnmarshalJSON(b []byte) error {
	var raw struct {
		Role       string          `json:"role"`
		Content    json.RawMessage `json:"content"`
		ToolCallID string          `json:"tool_call_id"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	*m = Message{Role: raw.Role, ToolCallID: raw.ToolCallID}
	if len(raw.Content) == 0 || string(raw.Content) == "null" {
		return nil
	}
	if raw.Content[0] != '[' {
		return json.Unmarshal(raw.Content, &m.Content)
	}
	var parts []struct {
		Type     string `json:"type"`
		Text     string `json:"text"`
		ImageURL *struct {
			URL string `json:"url"`
		} `json:"image_url"`
	}
	if err := json.Unmarshal(raw.Content, &parts); err != nil {
		return fmt.Errorf("content parts: %w", err)
	}
	var text []string
	for _, p := range parts {
		switch p.Type {
		case "text":
			text = append(text, p.Text)
		case "image_url":
			if p.ImageURL == nil || p.ImageURL.URL == "" {
				return fmt.Errorf("an image_url part without a url")
			}
			m.Images = append(m.Images, p.ImageURL.URL)
		default:
			return fmt.Errorf("a content part of unknown type %q", p.Type)
		}
	}
	m.Content = strings.Join(text, "\n")
	return nil
}

// A Server is a running fake model. Requests beyond the script get a 500
// saying so.
type Server struct {
	URL string // the base URL, ending in /v1

	srv      *httptest.Server
	mu       sync.Mutex
	models   []string // what GET /v1/models lists
	script   []Reply
	respond  func(Request) Reply // when set, answers every request instead of script
	requests []Request
}

// New starts a server that answers requests with replies, in order.
func New(replies ...Reply) *Server {
	s := &Server{script: replies}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	s.URL = s.srv.URL + "/v1"
	return s
}

// Close stops the server.
func (s *Server) Close() { s.srv.Close() }

// SetModels sets the models GET /v1/models lists (none until set).
func (s *Server) SetModels(ids ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.models = ids
}

// Requests returns the requests received so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/v1/models" && r.Method == http.MethodGet {
		s.mu.Lock()
		data := []map[string]any{}
		for _, id := range s.models {
			data = append(data, map[string]any{"id": id, "object": "model", "owned_by": "modeltest"})
		}
		s.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data})
		return
	}
	if r.URL.Path != "/v1/chat/completions" || r.Method != http.MethodPost {
		writeError(w, Reply{Status: http.StatusNotFound, Message: "no route " + r.Method + " " + r.URL.Path, Type: "invalid_request_error"})
		return
	}
	var req Request
	req.Authorization = r.Header.Get("Authorization")
	body, _ := io.ReadAll(r.Body)
	if err := json.Unmarshal(body, &req.Body); err != nil {
		writeError(w, Reply{Status: http.StatusBadRequest, Message: "invalid JSON: " + err.Error(), Type: "invalid_request_error"})
		return
	}
	s.mu.Lock()
	s.requests = append(s.requests, req)
	var reply Reply
	ok := len(s.script) > 0
	if ok {
		reply, s.script = s.script[0], s.script[1:]
	}
	respond := s.respond
	s.mu.Unlock()
	if respond != nil {
		// Outside the lock: respond may take its time, and requests
		// made meanwhile are still recorded.
		reply, ok = respond(req), true
	}
	if !ok {
		writeError(w, Reply{Status: http.StatusInternalServerError, Message: "modeltest: no reply scripted for this request", Type: "server_error"})
		return
	}
	if reply.Status != 0 && reply.Status != http.StatusOK {
		writeError(w, reply)
		return
	}
	s.stream(w, r, req.Body, reply)
}

func writeError(w http.ResponseWriter, r Reply) {
	if r.RetryAfter != "" {
		w.Header().Set("Retry-After", r.RetryAfter)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(r.Status)
	e := map[string]any{"message": r.Message, "type": r.Type}
	if r.Code != "" {
		e["code"] = r.Code
	}
	json.NewEncoder(w).Encode(map[string]any{"error": e})
}

// stream writes the reply as server-sent events, the way OpenAI does: a
// role chunk, the deltas, a chunk with the finish reason, then [DONE].
func (s *Server) stream(w http.ResponseWriter, r *http.Request, body ChatRequest, reply Reply) {
	model := body.Model
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	flusher, _ := w.(http.Flusher)
	event := func(delta map[string]any, finish string) {
		choice := map[string]any{"index": 0, "delta": delta, "finish_reason": nil}
		if finish != "" {
			choice["finish_reason"] = finish
		}
		data, _ := json.Marshal(map[string]any{
			"id": "chatcmpl-modeltest", "object": "chat.completion.chunk", "created": 0, "model": model,
			"choices": []any{choice},
		})
		fmt.Fprintf(w, "data: %s\n\n", data)
		if flusher != nil {
			flusher.Flush()
		}
	}
	event(map[string]any{"role": "assistant", "content": ""}, "")
	finish := reply.FinishReason
	for _, c := range reply.Chunks {
		if reply.Delay > 0 {
			select {
			case <-time.After(reply.Delay):
			case <-r.Context().Done():
				return
			}
		}
		if c.ToolCall == nil {
			delta := map[string]any{}
			if c.Reasoning != "" {
				delta["reasoning_content"] = c.Reasoning
			}
			if c.Text != "" || c.Reasoning == "" {
				delta["content"] = c.Text
			}
			event(delta, "")
			continue
		}
		if finish == "" {
			finish = "tool_calls"
		}
		call := map[string]any{"index": c.ToolCall.Index, "function": map[string]any{"arguments": c.ToolCall.Args}}
		if c.ToolCall.ID != "" {
			call["id"], call["type"] = c.ToolCall.ID, "function"
			call["function"].(map[string]any)["name"] = c.ToolCall.Name
		}
		event(map[string]any{"tool_calls": []any{call}}, "")
	}
	switch {
	case reply.Cut:
		// Hijack to drop the connection mid-stream, as a proxy or a
		// crashed server does.
		if hj, ok := w.(http.Hijacker); ok {
			if conn, _, err := hj.Hijack(); err == nil {
				conn.Close()
			}
		}
		return
	case reply.Stall:
		<-r.Context().Done()
		return
	}
	if finish == "" {
		finish = "stop"
	}
	event(map[string]any{}, finish)
	if reply.Usage != nil && body.StreamOptions != nil && body.StreamOptions.IncludeUsage {
		u := *reply.Usage
		if u.TotalTokens == 0 {
			u.TotalTokens = u.PromptTokens + u.CompletionTokens
		}
		data, _ := json.Marshal(map[string]any{
			"id": "chatcmpl-modeltest", "object": "chat.completion.chunk", "created": 0, "model": model,
			"choices": []any{}, "usage": u,
		})
		fmt.Fprintf(w, "data: %s\n\n", data)
	}
	fmt.Fprint(w, "data: [DONE]\n\n")
	if flusher != nil {
		flusher.Flush()
	}
}
