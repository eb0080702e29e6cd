package agent

import (
	"context"
	"encoding/json"
	"strings"
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

// TestDefaultTemperatureRefused: a server that refuses agentls's default
// temperature (OpenAI's reasoning models: "Unsupported value:
// 'temperature' does not support 0 with this model") gets the request
// again without it, and later requests go without; a temperature the
// user set is sent, and its refusal is the error.
func TestDefaultTemperatureRefused(t *testing.T) {
	refusal := modeltest.Reply{Status: 400, Message: "Unsupported value: 'temperature' does not support 0 with this model. Only the default (1) value is supported.", Type: "invalid_request_error"}
	srv := modeltest.New(refusal, modeltest.Text("one", 10), modeltest.Text("two", 10))
	defer srv.Close()
	zero := 0.0
	m := testModel(t, srv.URL, ModelConfig{Temperature: &zero, TemperatureIsDefault: true})
	streamEach(t, m, "one", "two")
	reqs := srv.Requests()
	if len(reqs) != 3 || reqs[0].Body.Temperature == nil || reqs[1].Body.Temperature != nil || reqs[2].Body.Temperature != nil {
		t.Errorf("requests' temperatures: %d requests", len(reqs))
	}

	set := 0.2
	srv2 := modeltest.New(modeltest.Reply{Status: 400, Message: "Unsupported value: 'temperature' does not support 0.2 with this model.", Type: "invalid_request_error"})
	defer srv2.Close()
	m2 := testModel(t, srv2.URL, ModelConfig{Temperature: &set})
	if _, err := m2.Stream(context.Background(), user("x"), nil); err == nil || !strings.Contains(err.Error(), "temperature") {
		t.Errorf("the user's temperature refused: %v, want the server's refusal", err)
	}
	if n := len(srv2.Requests()); n != 1 {
		t.Errorf("%d requests, want 1", n)
	}
}
