package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

// The adapter is a reverse proxy every tool talks to instead of the
// endpoint, for two reasons:
//
//   - gptme 0.35.1 sends a system message's content as a list of parts,
//     which llama-cpp-python's server answers with HTTP 500; the adapter
//     flattens a list of text parts into one string, for every tool alike,
//     so the table compares the tools and not how each talks to a server.
//   - it counts what every tool costs the same way: model calls, and the
//     tokens of each call from the server's reply.
//
// Everything else passes through unchanged, streams included, flushed
// event by event.
type adapter struct {
	upstream *url.URL // the endpoint's base URL, e.g. http://127.0.0.1:8765/v1
	client   *http.Client

	// gate keeps the adapter's own token counts apart from the tools'
	// requests: llama-cpp-python's server interrupts the completion it is
	// streaming when any other request arrives (its interrupt_requests),
	// so a count made while a tool's next request streams would cut that
	// stream. Requests hold it shared while upstream, a count alone.
	gate sync.RWMutex

	mu       sync.Mutex
	idle     *sync.Cond // signalled when inflight drops to 0
	inflight int
	usage    Usage
}

// Usage is what the adapter counted since the last take.
type Usage struct {
	Calls            int `json:"calls"`             // chat-completion requests
	Failed           int `json:"failed"`            // of those, answered with an HTTP error
	Flattened        int `json:"flattened"`         // requests whose list contents were flattened
	PromptTokens     int `json:"prompt_tokens"`     // sent
	CompletionTokens int `json:"completion_tokens"` // received
	// Estimated counts the calls whose reply carried no usage (a stream
	// from llama-cpp-python): their completion tokens are the streamed
	// chunks that carried text (llama.cpp sends one token a chunk), their
	// prompt tokens the server's tokenizer run on the messages in ChatML.
	Estimated int `json:"estimated"`
	// Sampling is the sampling the requests asked for ("temperature=0
	// top_p=0.1"; "server default" when they set none): tools differ, and
	// a small model's answers depend on it.
	Sampling string `json:"sampling,omitempty"`
}

func newAdapter(baseURL string) (*adapter, error) {
	u, err := url.Parse(strings.TrimRight(baseURL, "/"))
	if err != nil || u.Scheme == "" || u.Host == "" {
		return nil, fmt.Errorf("--base-url %q: not an http(s) URL", baseURL)
	}
	a := &adapter{upstream: u, client: &http.Client{}}
	a.idle = sync.NewCond(&a.mu)
	return a, nil
}

// serve listens on a free local port until ctx ends and returns the base
// URL tools are given (ending like the endpoint's, e.g. in /v1).
func (a *adapter) serve(ctx context.Context) (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("adapter: %w", err)
	}
	srv := &http.Server{Handler: a, ReadHeaderTimeout: 30 * time.Second}
	go srv.Serve(ln)
	context.AfterFunc(ctx, func() { srv.Close() })
	return "http://" + ln.Addr().String() + a.upstream.Path, nil
}

// take waits for the requests in flight to finish (a tool may exit before
// its last response was fully counted) and returns the usage since the
// last take, starting a new count.
func (a *adapter) take() Usage {
	a.mu.Lock()
	defer a.mu.Unlock()
	for a.inflight > 0 {
		a.idle.Wait()
	}
	u := a.usage
	a.usage = Usage{}
	return u
}

func (a *adapter) add(u Usage) {
	a.mu.Lock()
	a.usage.Calls += u.Calls
	a.usage.Failed += u.Failed
	a.usage.Flattened += u.Flattened
	a.usage.PromptTokens += u.PromptTokens
	a.usage.CompletionTokens += u.CompletionTokens
	a.usage.Estimated += u.Estimated
	if u.Sampling != "" && !strings.Contains(a.usage.Sampling, u.Sampling) {
		a.usage.Sampling = strings.TrimPrefix(a.usage.Sampling+"; "+u.Sampling, "; ")
	}
	a.mu.Unlock()
}

func (a *adapter) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	a.mu.Lock()
	a.inflight++
	a.mu.Unlock()
	defer func() {
		a.mu.Lock()
		a.inflight--
		if a.inflight == 0 {
			a.idle.Broadcast()
		}
		a.mu.Unlock()
	}()
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, "adapter: reading the request: "+err.Error(), http.StatusBadRequest)
		return
	}
	chat := r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/chat/completions")
	var req chatRequest
	var u Usage
	if chat {
		u.Calls = 1
		if nb, n, err := flattenContent(body); err == nil {
			body, u.Flattened = nb, b2i(n > 0)
			_ = json.Unmarshal(body, &req)
			u.Sampling = sampling(body)
		}
	}
	target := *a.upstream
	target.Path = a.upstream.Path + strings.TrimPrefix(r.URL.Path, strings.TrimRight(a.upstream.Path, "/"))
	target.RawQuery = r.URL.RawQuery
	out, err := http.NewRequestWithContext(r.Context(), r.Method, target.String(), bytes.NewReader(body))
	if err != nil {
		http.Error(w, "adapter: "+err.Error(), http.StatusBadGateway)
		return
	}
	for k, vs := range r.Header {
		if k != "Content-Length" && k != "Accept-Encoding" {
			out.Header[k] = vs
		}
	}
	got, ok := a.forward(w, out, chat, &u)
	if !ok {
		return
	}
	if got.usage != nil {
		u.PromptTokens, u.CompletionTokens = got.usage.PromptTokens, got.usage.CompletionTokens
	} else {
		u.Estimated = 1
		u.CompletionTokens = got.chunks
		// After the reply, so that the count costs the tool no time
		// (the runner's take waits for it), and alone upstream (gate).
		a.gate.Lock()
		u.PromptTokens = a.countPrompt(r.Context(), req, r.Header.Get("Authorization"))
		a.gate.Unlock()
	}
	a.add(u)
}

// forward sends out upstream and relays the answer to w, holding the gate
// shared; for a chat request it returns what the reply said of its usage,
// and ok false when the call is already counted (an error).
func (a *adapter) forward(w http.ResponseWriter, out *http.Request, chat bool, u *Usage) (got replyUsage, ok bool) {
	a.gate.RLock()
	defer a.gate.RUnlock()
	resp, err := a.client.Do(out)
	if err != nil {
		u.Failed = u.Calls
		a.add(*u)
		http.Error(w, "adapter: the endpoint: "+err.Error(), http.StatusBadGateway)
		return got, false
	}
	defer resp.Body.Close()
	for k, vs := range resp.Header {
		if k != "Content-Length" {
			w.Header()[k] = vs
		}
	}
	w.WriteHeader(resp.StatusCode)
	if !chat {
		io.Copy(w, resp.Body)
		return got, false
	}
	if resp.StatusCode >= 400 {
		u.Failed = 1
		io.Copy(w, resp.Body)
		a.add(*u)
		return got, false
	}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		return relayStream(w, resp.Body), true
	}
	data, _ := io.ReadAll(resp.Body)
	w.Write(data)
	return parseUsage(data), true
}

// sampling says which sampling parameters a request sets.
func sampling(body []byte) string {
	var req map[string]json.RawMessage
	if json.Unmarshal(body, &req) != nil {
		return ""
	}
	var set []string
	for _, k := range []string{"temperature", "top_p", "top_k", "seed"} {
		if v, ok := req[k]; ok && string(v) != "null" {
			set = append(set, k+"="+string(v))
		}
	}
	if len(set) == 0 {
		return "server default"
	}
	return strings.Join(set, " ")
}

// chatRequest is the part of a request the token estimate reads.
type chatRequest struct {
	Model    string `json:"model"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
}

// flattenContent rewrites a chat request whose messages have a content
// that is a list of text parts into one whose content is their texts
// joined by newlines, and returns how many messages it changed. A list
// holding anything but text (an image) is left as it is: it cannot be a
// string.
func flattenContent(body []byte) ([]byte, int, error) {
	var req map[string]json.RawMessage
	if err := json.Unmarshal(body, &req); err != nil {
		return body, 0, err
	}
	var msgs []map[string]json.RawMessage
	if err := json.Unmarshal(req["messages"], &msgs); err != nil {
		return body, 0, err
	}
	n := 0
	for _, m := range msgs {
		c := bytes.TrimSpace(m["content"])
		if len(c) == 0 || c[0] != '[' {
			continue
		}
		var parts []struct {
			Type string  `json:"type"`
			Text *string `json:"text"`
		}
		if json.Unmarshal(c, &parts) != nil {
			continue
		}
		texts := make([]string, 0, len(parts))
		for _, p := range parts {
			if p.Type != "text" || p.Text == nil {
				texts = nil
				break
			}
			texts = append(texts, *p.Text)
		}
		if texts == nil {
			continue
		}
		s, _ := json.Marshal(strings.Join(texts, "\n"))
		m["content"] = s
		n++
	}
	if n == 0 {
		return body, 0, nil
	}
	raw, err := json.Marshal(msgs)
	if err != nil {
		return body, 0, err
	}
	req["messages"] = raw
	out, err := json.Marshal(req)
	if err != nil {
		return body, 0, err
	}
	return out, n, nil
}

type replyUsage struct {
	usage  *struct{ PromptTokens, CompletionTokens int }
	chunks int // streamed chunks that carried text or a tool call
}

// relayStream copies server-sent events to w as they come, flushing each,
// and reads the usage of the chunk that carries one.
func relayStream(w http.ResponseWriter, body io.Reader) replyUsage {
	var got replyUsage
	flusher, _ := w.(http.Flusher)
	rd := bufio.NewReaderSize(body, 64<<10)
	for {
		line, err := rd.ReadBytes('\n')
		if len(line) > 0 {
			w.Write(line)
			if data, ok := bytes.CutPrefix(bytes.TrimSpace(line), []byte("data:")); ok {
				readChunk(bytes.TrimSpace(data), &got)
			}
			if flusher != nil && len(bytes.TrimSpace(line)) == 0 {
				flusher.Flush() // the end of an event
			}
		}
		if err != nil {
			if flusher != nil {
				flusher.Flush()
			}
			return got
		}
	}
}

// wireChunk is the part of a chunk or a reply the counts read.
type wireChunk struct {
	Choices []struct {
		Delta struct {
			Content   string            `json:"content"`
			Reasoning string            `json:"reasoning_content"`
			ToolCalls []json.RawMessage `json:"tool_calls"`
		} `json:"delta"`
	} `json:"choices"`
	Usage *struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
	} `json:"usage"`
}

func readChunk(data []byte, got *replyUsage) {
	if len(data) == 0 || data[0] != '{' {
		return // [DONE]
	}
	var c wireChunk
	if json.Unmarshal(data, &c) != nil {
		return
	}
	if c.Usage != nil {
		got.usage = &struct{ PromptTokens, CompletionTokens int }{c.Usage.PromptTokens, c.Usage.CompletionTokens}
	}
	for _, ch := range c.Choices {
		if ch.Delta.Content != "" || ch.Delta.Reasoning != "" || len(ch.Delta.ToolCalls) > 0 {
			got.chunks++
		}
	}
}

func parseUsage(data []byte) replyUsage {
	var got replyUsage
	var c wireChunk
	if json.Unmarshal(data, &c) == nil && c.Usage != nil {
		got.usage = &struct{ PromptTokens, CompletionTokens int }{c.Usage.PromptTokens, c.Usage.CompletionTokens}
	}
	return got
}

// countPrompt asks the endpoint's tokenizer for the tokens of the
// request's messages rendered in ChatML, the template of the Qwen models
// measured here: llama-cpp-python's /extras/tokenize/count, else
// llama.cpp's own server's /tokenize; 0 when the endpoint has neither.
func (a *adapter) countPrompt(ctx context.Context, req chatRequest, auth string) int {
	var sb strings.Builder
	for _, m := range req.Messages {
		var s string
		if json.Unmarshal(m.Content, &s) != nil {
			s = string(m.Content) // parts left as they were: their JSON is near their size
		}
		fmt.Fprintf(&sb, "<|im_start|>%s\n%s<|im_end|>\n", m.Role, s)
	}
	sb.WriteString("<|im_start|>assistant\n")
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	var count struct {
		Count int `json:"count"`
	}
	if a.tokenizer(ctx, "/extras/tokenize/count", map[string]string{"model": req.Model, "input": sb.String()}, auth, &count) {
		return count.Count
	}
	var tokens struct {
		Tokens []json.RawMessage `json:"tokens"`
	}
	if a.tokenizer(ctx, "/tokenize", map[string]any{"content": sb.String(), "add_special": false}, auth, &tokens) {
		return len(tokens.Tokens)
	}
	return 0
}

// tokenizer posts body to the route beside the endpoint's /v1 and decodes
// a 200 answer into out; false when the route is missing or fails.
func (a *adapter) tokenizer(ctx context.Context, route string, body any, auth string, out any) bool {
	data, err := json.Marshal(body)
	if err != nil {
		return false
	}
	root := *a.upstream
	root.Path = strings.TrimSuffix(strings.TrimRight(a.upstream.Path, "/"), "/v1") + route
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, root.String(), bytes.NewReader(data))
	if err != nil {
		return false
	}
	hr.Header.Set("Content-Type", "application/json")
	if auth != "" {
		hr.Header.Set("Authorization", auth)
	}
	resp, err := a.client.Do(hr)
	if err != nil {
		return false
	}
	defer resp.Body.Close()
	return resp.StatusCode == http.StatusOK && json.NewDecoder(resp.Body).Decode(out) == nil
}
