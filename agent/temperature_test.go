package agent

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/agentls/agentls/agent/modeltest"
)

// TestZeroTemperatureSent: a Model asked for temperature 0 sends exactly
// 0 in every request, a retried one included, and keeps the rest of the
// body as go-openai wrote it.
func TestZeroTemperatureSent(t *testing.T) {
	srv := modeltest.New(modeltest.Reply{Status: 500, Message: "busy"}, modeltest.Text("hi", 10))
	defer srv.Close()
	zero := 0.0
	m := testModel(t, srv.URL, ModelConfig{Temperature: &zero})
	st, err := m.Stream(context.Background(), user("x"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if text, err := drain(st); err != nil || text != "hi" {
		t.Fatalf("%q, %v", text, err)
	}
	st.Close()
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2 (one retried)", len(reqs))
	}
	for i, r := range reqs {
		if got := r.Body.Temperature; got == nil || *got != 0 {
			t.Errorf("request %d: temperature %v, want 0", i, got)
		}
		if len(r.Body.Messages) != 1 || r.Body.Messages[0].Content != "x" || !r.Body.Stream {
			t.Errorf("request %d: body %+v", i, r.Body)
		}
	}
}

func TestWithZeroTemperature(t *testing.T) {
	got, err := withZeroTemperature([]byte(`{"model":"m","messages":[{"role":"user","content":"\"temperature\":1"}],"stream":true}`))
	if err != nil {
		t.Fatal(err)
	}
	var fields map[string]any
	if err := json.Unmarshal(got, &fields); err != nil {
		t.Fatal(err)
	}
	if fields["temperature"] != 0.0 || fields["model"] != "m" || fields["stream"] != true || len(fields["messages"].([]any)) != 1 {
		t.Errorf("body %s", got)
	}
	if _, err := withZeroTemperature([]byte(`[1]`)); err == nil {
		t.Error("a body that is not an object: no error")
	}
}
