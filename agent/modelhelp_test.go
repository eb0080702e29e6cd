package agent

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/modeltest"
)

// TestNoKeyForAHostedAPI: with no key for a hosted API that needs one,
// the model is not made and no request is sent; the error names the
// variable to set and the way to a local model. Local and unknown hosts
// need no key.
func TestNoKeyForAHostedAPI(t *testing.T) {
	noKey := func(string) string { return "" }
	for _, tc := range []struct {
		baseURL, keyEnv string
		refused         bool
	}{
		{"https://api.openai.com/v1", "", true},
		{"https://openrouter.ai/api/v1", "OPENROUTER_API_KEY", true},
		{"https://myres.openai.azure.com/openai/v1", "AZURE_KEY", true},
		{"http://localhost:11434/v1", "", false},
		{"http://127.0.0.1:8080/v1", "", false},
		{"https://llm.internal.example/v1", "", false},
	} {
		t.Run(tc.baseURL, func(t *testing.T) {
			_, err := NewModel(ModelConfig{Model: "gpt-4.1", BaseURL: tc.baseURL, APIKeyEnv: tc.keyEnv}, noKey)
			if !tc.refused {
				if err != nil {
					t.Fatalf("a host that may need no key was refused: %v", err)
				}
				return
			}
			want := "$" + tc.keyEnv + " is empty"
			if tc.keyEnv == "" {
				want = "$OPENAI_API_KEY is empty"
			}
			var e *Error
			if !errors.As(err, &e) || e.Kind != Unauthorized || !strings.Contains(e.Message, want) || !strings.Contains(e.Message, tc.baseURL) || !strings.Contains(e.Message, "localhost:11434") {
				t.Errorf("error %v; want an Unauthorized error saying %q, naming %s and a local model", err, want, tc.baseURL)
			}
		})
	}
}

// TestModel404 tells the two 404s apart by asking the server for its
// models: a model the server does not have (it lists what it has) and a
// base URL that is no OpenAI-compatible API (naming the URLs tried).
func TestModel404(t *testing.T) {
	ctx := context.Background()
	t.Run("unknown model", func(t *testing.T) {
		srv := modeltest.New(modeltest.Reply{Status: 404, Message: "model 'test-model' not found", Code: "model_not_found"})
		defer srv.Close()
		srv.SetModels("qwen2.5-coder:1.5b", "llama3.2")
		_, err := testModel(t, srv.URL, ModelConfig{}).Stream(ctx, user("x"), nil)
		var e *Error
		if !errors.As(err, &e) || e.Kind != UnknownModel || !strings.Contains(e.Message, `has no model "test-model"`) || !strings.Contains(e.Message, "qwen2.5-coder:1.5b, llama3.2") {
			t.Errorf("error %v; want the model named and the server's models listed", err)
		}
		if strings.Contains(err.Error(), testKey) {
			t.Errorf("the key leaked: %v", err)
		}
	})
	t.Run("wrong base URL", func(t *testing.T) {
		srv := modeltest.New()
		defer srv.Close()
		base := strings.TrimSuffix(srv.URL, "/v1") // the /v1 left out, as people do
		_, err := testModel(t, base, ModelConfig{}).Stream(ctx, user("x"), nil)
		var e *Error
		if !errors.As(err, &e) || e.Kind != UnknownModel || !strings.Contains(e.Message, base+"/chat/completions and "+base+"/models both answered 404") || !strings.Contains(e.Message, "ends in /v1") {
			t.Errorf("error %v; want the URLs tried and the /v1 hint", err)
		}
	})
}

// TestStreamUsage: the server's count when it sends one (asked for with
// stream_options.include_usage), else an estimate marked as one.
func TestStreamUsage(t *testing.T) {
	ctx := context.Background()
	srv := modeltest.New(
		modeltest.Reply{Chunks: []modeltest.Chunk{{Text: "Done."}}, Usage: &modeltest.Usage{PromptTokens: 1200, CompletionTokens: 34}},
		modeltest.Text(strings.Repeat("word ", 100), 50),
	)
	defer srv.Close()
	m := testModel(t, srv.URL, ModelConfig{})
	st, err := m.Stream(ctx, user("say done"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := drain(st); err != nil {
		t.Fatal(err)
	}
	st.Close()
	if got := st.Usage(); got != (Usage{Prompt: 1200, Completion: 34}) || got.String() != "1,234 tokens" {
		t.Errorf("counted usage %+v (%s), want 1200 + 34 = 1,234 tokens", got, got)
	}
	if so := srv.Requests()[0].Body.StreamOptions; so == nil || !so.IncludeUsage {
		t.Errorf("stream_options not asked for: %+v", so)
	}
	st, err = m.Stream(ctx, user(strings.Repeat("x", 400)), nil)
	if err != nil {
		t.Fatal(err)
	}
	drain(st)
	st.Close()
	got := st.Usage()
	if !got.Estimated || got.Completion != 125 || got.Prompt < 100 || !strings.HasPrefix(got.String(), "~") {
		t.Errorf("estimated usage %+v (%s); want ~125 completion tokens for 500 characters, ≥ 100 prompt", got, got)
	}
}

// TestStreamOptionsRefused: a server that refuses the stream_options
// field gets the request again without it, and later requests go without.
func TestStreamOptionsRefused(t *testing.T) {
	srv := modeltest.New(
		modeltest.Reply{Status: 400, Message: "Unrecognized request argument supplied: stream_options", Type: "invalid_request_error"},
		modeltest.Text("one", 10),
		modeltest.Text("two", 10),
	)
	defer srv.Close()
	m := testModel(t, srv.URL, ModelConfig{})
	streamEach(t, m, "one", "two")
	reqs := srv.Requests()
	if len(reqs) != 3 || reqs[0].Body.StreamOptions == nil || reqs[1].Body.StreamOptions != nil || reqs[2].Body.StreamOptions != nil {
		t.Errorf("requests' stream_options: %d requests", len(reqs))
	}
}

// streamEach streams one completion for each of wants from m, each
// expected to read as that text.
func streamEach(t *testing.T, m *Model, wants ...string) {
	t.Helper()
	for _, want := range wants {
		st, err := m.Stream(context.Background(), user("x"), nil)
		if err != nil {
			t.Fatal(err)
		}
		text, err := drain(st)
		st.Close()
		if err != nil || text != want {
			t.Fatalf("text %q, %v; want %q", text, err, want)
		}
	}
}

func TestThousands(t *testing.T) {
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 1234567: "1,234,567", -4321: "-4,321"} {
		if got := Thousands(n); got != want {
			t.Errorf("Thousands(%d) = %q, want %q", n, got, want)
		}
	}
}
