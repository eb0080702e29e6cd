package modeltest_test

import (
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/modeltest"
)

// complete posts one chat-completions request with the user message
// prompt and returns the text the stream carried.
func complete(t *testing.T, baseURL, prompt string) string {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"model": "m", "stream": true, "messages": []any{map[string]string{"role": "user", "content": prompt}}})
	resp, err := http.Post(baseURL+"/chat/completions", "application/json", strings.NewReader(string(body)))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	var text strings.Builder
	for _, line := range strings.Split(string(data), "\n") {
		payload, ok := strings.CutPrefix(line, "data: ")
		if !ok || payload == "[DONE]" {
			continue
		}
		var chunk struct {
			Choices []struct {
				Delta struct {
					Content string `json:"content"`
				} `json:"delta"`
			} `json:"choices"`
		}
		if err := json.Unmarshal([]byte(payload), &chunk); err != nil {
			t.Fatalf("chunk %q: %v", payload, err)
		}
		for _, c := range chunk.Choices {
			text.WriteString(c.Delta.Content)
		}
	}
	return text.String()
}

// echo answers with what it was asked last, so a test sees that the reply
// comes from the request and not from an order.
func echo(req modeltest.Request) modeltest.Reply {
	msgs := req.Body.Messages
	return modeltest.Text("you said: "+msgs[len(msgs)-1].Content, 4)
}

// TestNewFunc: each reply is made from its own request, in whatever order
// the requests come, and every request is recorded.
func TestNewFunc(t *testing.T) {
	srv := modeltest.NewFunc(echo)
	defer srv.Close()
	for _, prompt := range []string{"b", "a", "b"} {
		if got, want := complete(t, srv.URL, prompt), "you said: "+prompt; got != want {
			t.Errorf("asked %q: got %q, want %q", prompt, got, want)
		}
	}
	if n := len(srv.Requests()); n != 3 {
		t.Errorf("%d requests recorded, want 3", n)
	}
}

// TestServe: the server answers on the caller's listener, at its address,
// and Close closes it (the port is free again).
func TestServe(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	srv := modeltest.Serve(ln, echo)
	if want := "http://" + addr + "/v1"; srv.URL != want {
		t.Errorf("URL %q, want %q", srv.URL, want)
	}
	if got := complete(t, srv.URL, "hi"); got != "you said: hi" {
		t.Errorf("got %q", got)
	}
	srv.Close()
	if c, err := net.Dial("tcp", addr); err == nil {
		c.Close()
		t.Errorf("%s still accepts connections after Close", addr)
	}
}
