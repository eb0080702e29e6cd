package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentls/agentls/agent/modeltest"
)

// startAdapter runs an adapter in front of upstream for the test.
func startAdapter(t *testing.T, upstream string) (*adapter, string) {
	t.Helper()
	a, err := newAdapter(upstream)
	if err != nil {
		t.Fatal(err)
	}
	url, err := a.serve(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return a, url
}

func post(t *testing.T, url, body string) *http.Response {
	t.Helper()
	resp, err := http.Post(url+"/chat/completions", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// TestAdapterFlattensListContent sends what gptme 0.35.1 sends (a system
// message whose content is a list of text parts) and checks that the
// endpoint gets one string, and that other messages and fields pass
// unchanged, an image part included.
func TestAdapterFlattensListContent(t *testing.T) {
	var mu sync.Mutex
	var got []byte
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got, _ = io.ReadAll(r.Body)
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"choices":[{"message":{"role":"assistant","content":"ok"}}],"usage":{"prompt_tokens":7,"completion_tokens":2,"total_tokens":9}}`)
	}))
	defer up.Close()
	a, url := startAdapter(t, up.URL+"/v1")

	req := `{"model":"m","temperature":0.5,"messages":[
	  {"role":"system","content":[{"type":"text","text":"You are gptme."},{"type":"text","text":"Tools: save","cache_control":{"type":"ephemeral"}}]},
	  {"role":"user","content":"fix it"},
	  {"role":"user","content":[{"type":"text","text":"look"},{"type":"image_url","image_url":{"url":"data:image/png;base64,AA=="}}]}]}`
	resp := post(t, url, req)
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("status %d", resp.StatusCode)
	}
	var sent struct {
		Model       string
		Temperature float64
		Messages    []struct {
			Role    string
			Content json.RawMessage
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if err := json.Unmarshal(got, &sent); err != nil {
		t.Fatalf("the endpoint got %s: %v", got, err)
	}
	if sent.Model != "m" || sent.Temperature != 0.5 || len(sent.Messages) != 3 {
		t.Fatalf("the request changed: %s", got)
	}
	if c := string(sent.Messages[0].Content); c != `"You are gptme.\nTools: save"` {
		t.Errorf("system content %s, want one string", c)
	}
	if c := string(sent.Messages[1].Content); c != `"fix it"` {
		t.Errorf("user content %s", c)
	}
	if c := string(sent.Messages[2].Content); !strings.HasPrefix(c, "[") || !strings.Contains(c, "image_url") {
		t.Errorf("a list with an image was changed: %s", c)
	}
	u := a.take()
	if u != (Usage{Calls: 1, Flattened: 1, PromptTokens: 7, CompletionTokens: 2, Sampling: "temperature=0.5"}) {
		t.Errorf("usage %+v", u)
	}
	if u := a.take(); u != (Usage{}) {
		t.Errorf("take did not start a new count: %+v", u)
	}
}

// TestAdapterStreamsThrough checks that a stream reaches the tool event
// by event (the endpoint sends its second event only once the tool has
// read the first), and that a stream without usage is counted as
// llama-cpp-python's is: its chunks, and the prompt from the endpoint's
// tokenizer.
func TestAdapterStreamsThrough(t *testing.T) {
	firstRead := make(chan struct{})
	var tokenized string
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/extras/tokenize/count" {
			var body struct{ Input string }
			json.NewDecoder(r.Body).Decode(&body)
			tokenized = body.Input
			io.WriteString(w, `{"count":42}`)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		f := w.(http.Flusher)
		io.WriteString(w, "data: {\"choices\":[{\"delta\":{\"role\":\"assistant\",\"content\":\"\"}}]}\n\n")
		io.WriteString(w, "data: {\"choices\":[{\"delta\":{\"content\":\"Hel\"}}]}\n\n")
		f.Flush()
		select {
		case <-firstRead:
		case <-r.Context().Done():
			return
		}
		io.WriteString(w, "data: {\"choices\":[{\"delta\":{\"content\":\"lo\"}}]}\n\n")
		io.WriteString(w, "data: {\"choices\":[{\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
	}))
	defer up.Close()
	a, url := startAdapter(t, up.URL+"/v1")

	resp := post(t, url, `{"model":"m","stream":true,"messages":[{"role":"system","content":"S"},{"role":"user","content":"U"}]}`)
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Errorf("content type %q", ct)
	}
	rd := bufio.NewReader(resp.Body)
	var seen []string
	for {
		line, err := rd.ReadString('\n')
		if strings.Contains(line, `"Hel"`) {
			close(firstRead) // the endpoint is still holding the rest
		}
		if strings.HasPrefix(line, "data: ") {
			seen = append(seen, strings.TrimSpace(line))
		}
		if err != nil {
			break
		}
	}
	if len(seen) != 5 || seen[4] != "data: [DONE]" {
		t.Errorf("events %q", seen)
	}
	u := a.take()
	if u != (Usage{Calls: 1, PromptTokens: 42, CompletionTokens: 2, Estimated: 1, Sampling: "server default"}) {
		t.Errorf("usage %+v", u)
	}
	if want := "<|im_start|>system\nS<|im_end|>\n<|im_start|>user\nU<|im_end|>\n<|im_start|>assistant\n"; tokenized != want {
		t.Errorf("tokenized %q, want %q", tokenized, want)
	}
}

// TestAdapterCountsUsage counts the usage chunk of a stream that has one
// (the fake model server sends it when asked, as OpenAI does), and an
// error reply as a failed call.
func TestAdapterCountsUsage(t *testing.T) {
	srv := modeltest.New(
		modeltest.Reply{Chunks: modeltest.Text("Done.", 2).Chunks, Usage: &modeltest.Usage{PromptTokens: 100, CompletionTokens: 3, TotalTokens: 103}},
		modeltest.Reply{Status: 500, Message: "boom", Type: "server_error"},
	)
	defer srv.Close()
	a, url := startAdapter(t, srv.URL)
	for range 2 {
		resp := post(t, url, `{"model":"m","stream":true,"stream_options":{"include_usage":true},"messages":[{"role":"user","content":"hi"}]}`)
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode == 200 && !bytes.Contains(body, []byte(`"ne"`)) {
			t.Errorf("reply %s", body)
		}
	}
	if u := a.take(); u != (Usage{Calls: 2, Failed: 1, PromptTokens: 100, CompletionTokens: 3, Sampling: "server default"}) {
		t.Errorf("usage %+v", u)
	}
	// A route that is not a chat completion passes through uncounted.
	resp, err := http.Get(url + "/models")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("GET /models: %d", resp.StatusCode)
	}
	if u := a.take(); u != (Usage{}) {
		t.Errorf("GET /models counted: %+v", u)
	}
}

func TestFlattenContentLeavesOthers(t *testing.T) {
	for _, body := range []string{
		`{"messages":[{"role":"user","content":"plain"}]}`,
		`{"messages":[{"role":"assistant","content":null,"tool_calls":[]}]}`,
	} {
		out, n, err := flattenContent([]byte(body))
		if err != nil || n != 0 || string(out) != body {
			t.Errorf("flattenContent(%s) = %s, %d, %v; want it unchanged", body, out, n, err)
		}
	}
	if _, _, err := flattenContent([]byte("{not json")); err == nil {
		t.Error("broken JSON: no error")
	}
}

// TestAdapterCountsAlone: the adapter's token count of one reply never
// reaches the endpoint while a tool's next request is upstream, since
// llama-cpp-python's server cuts the stream it is serving when another
// request arrives (the evaluation saw agentls's turns end "the connection
// was cut"). The endpoint's tokenizer takes a while, and a chat request
// that arrives meanwhile is the overlap.
func TestAdapterCountsAlone(t *testing.T) {
	var counting, overlapped atomic.Bool
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/extras/tokenize/count" {
			counting.Store(true)
			time.Sleep(100 * time.Millisecond) // a slow tokenizer: the window a request could fall in
			counting.Store(false)
			io.WriteString(w, `{"count":7}`)
			return
		}
		if counting.Load() {
			overlapped.Store(true)
		}
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "data: {\"choices\":[{\"delta\":{\"content\":\"ok\"}}]}\n\n")
		io.WriteString(w, "data: {\"choices\":[{\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
	}))
	defer up.Close()
	_, url := startAdapter(t, up.URL+"/v1")
	for range 3 {
		// As a streaming client does: read up to [DONE], close, and send
		// the next request at once (the adapter may still be counting).
		resp := post(t, url, `{"model":"m","stream":true,"messages":[{"role":"user","content":"U"}]}`)
		rd := bufio.NewReader(resp.Body)
		for {
			line, err := rd.ReadString('\n')
			if err != nil || strings.HasPrefix(line, "data: [DONE]") {
				break
			}
		}
		resp.Body.Close()
	}
	if overlapped.Load() {
		t.Error("a chat request reached the endpoint while the adapter's token count was upstream")
	}
}

// TestAdapterCountsWithEitherTokenizer counts a prompt with
// llama-cpp-python's /extras/tokenize/count, or, when the endpoint has no
// such route, with llama.cpp's own server's /tokenize; 0 when it has
// neither.
func TestAdapterCountsWithEitherTokenizer(t *testing.T) {
	for _, tc := range []struct {
		name   string
		routes map[string]string
		want   int
	}{
		{"llama-cpp-python", map[string]string{"/extras/tokenize/count": `{"count":42}`}, 42},
		{"llama.cpp server", map[string]string{"/tokenize": `{"tokens":[1,2,3,4,5,6,7]}`}, 7},
		{"neither", nil, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				answer, ok := tc.routes[r.URL.Path]
				if !ok {
					http.NotFound(w, r)
					return
				}
				io.WriteString(w, answer)
			}))
			defer up.Close()
			a, err := newAdapter(up.URL + "/v1")
			if err != nil {
				t.Fatal(err)
			}
			var req chatRequest
			if err := json.Unmarshal([]byte(`{"model":"m","messages":[{"role":"user","content":"hi"}]}`), &req); err != nil {
				t.Fatal(err)
			}
			if got := a.countPrompt(context.Background(), req, ""); got != tc.want {
				t.Errorf("countPrompt = %d, want %d", got, tc.want)
			}
		})
	}
}
