package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// keyedHosts are the hosted APIs that answer nothing without a key. A
// request to one of them with no key is not sent: it could only fail,
// and offline it fails as "unreachable", which says nothing of the key.
// Local servers (Ollama, llama.cpp, vLLM) and unknown hosts need none.
var keyedHosts = []string{
	"api.openai.com", "openrouter.ai", "api.anthropic.com", "api.groq.com",
	"api.mistral.ai", "api.deepseek.com", "api.together.xyz", "api.fireworks.ai",
	"generativelanguage.googleapis.com", "api.x.ai", "api.perplexity.ai",
	"api.cerebras.ai", "router.huggingface.co", "api-inference.huggingface.co",
	"openai.azure.com", "models.inference.ai.azure.com", "models.github.ai",
}

// needsKey is the error for cfg when its base URL is a hosted API that
// needs a key and none is set: which variable to set, or how to use a
// local model instead.
func needsKey(cfg ModelConfig) error {
	u, err := url.Parse(cfg.BaseURL)
	if err != nil {
		return nil // the request says what is wrong with the URL
	}
	host := u.Hostname()
	keyed := slices.ContainsFunc(keyedHosts, func(h string) bool { return host == h || strings.HasSuffix(host, "."+h) })
	if !keyed {
		return nil
	}
	return &Error{Kind: Unauthorized, Message: fmt.Sprintf(
		"model %s at %s needs an API key, and $%s is empty: set it in the environment the editor (or agentls) starts from, e.g. export %s=…; or use a local model: set baseUrl to http://localhost:11434/v1 (Ollama) or http://localhost:8080/v1 (llama.cpp), which need no key",
		cfg.Model, cfg.BaseURL, cfg.APIKeyEnv, cfg.APIKeyEnv)}
}

// refusedStreamOptions reports whether err is a server refusing the
// stream_options field (a 400 or 422 that names it).
func refusedStreamOptions(err error) bool { return refusedField(err, "stream_options") }

// refusedField reports whether err is a server refusing a field of the
// request (a 400 or 422 whose message names it).
func refusedField(err error, field string) bool {
	var api *openai.APIError
	if errors.As(err, &api) && (api.HTTPStatusCode == 400 || api.HTTPStatusCode == 422) {
		return strings.Contains(api.Message, field)
	}
	var req *openai.RequestError
	if errors.As(err, &req) && (req.HTTPStatusCode == 400 || req.HTTPStatusCode == 422) {
		return strings.Contains(fmt.Sprint(req.Err), field)
	}
	return false
}

// listTimeout bounds the request for the server's models that explains a
// 404.
const listTimeout = 5 * time.Second

// explain404 says why the chat endpoint answered 404, after asking the
// server for its models: a server that lists models does not know this
// one (name a few it has); one that has no models endpoint either is not
// an OpenAI-compatible API at this base URL.
func (m *Model) explain404(detail string) string {
	base := strings.TrimRight(m.cfg.BaseURL, "/")
	chat := base + "/chat/completions"
	ids, status, err := m.listModels(base)
	switch {
	case err == nil && len(ids) > 0 && !slices.Contains(ids, m.cfg.Model):
		shown := ids
		if len(shown) > 12 {
			shown = shown[:12]
		}
		more := ""
		if len(ids) > len(shown) {
			more = fmt.Sprintf(" and %d more", len(ids)-len(shown))
		}
		return fmt.Sprintf("the server at %s has no model %q (%s); it serves %s%s: set the model setting (or AGENTLS_MODEL) to one of them", base, m.cfg.Model, detail, strings.Join(shown, ", "), more)
	case err == nil:
		return fmt.Sprintf("%s answered 404 for model %q (%s): check the model name; GET %s/models lists what the server has", chat, m.cfg.Model, detail, base)
	case status == http.StatusNotFound:
		return fmt.Sprintf("%s and %s/models both answered 404 (%s): %s is not the base URL of an OpenAI-compatible API; it usually ends in /v1 (OpenAI https://api.openai.com/v1, Ollama http://localhost:11434/v1, llama.cpp http://localhost:8080/v1)", chat, base, detail, base)
	default:
		return fmt.Sprintf("%s answered 404 (%s): check the model name %q and the base URL %s (it usually ends in /v1); listing the models failed too: %v", chat, detail, m.cfg.Model, base, err)
	}
}

// listModels asks the server for its models (GET base/models): their ids,
// or the HTTP status of a refusal.
func (m *Model) listModels(base string) (ids []string, status int, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), listTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/models", nil)
	if err != nil {
		return nil, 0, err
	}
	if m.key != "" {
		req.Header.Set("Authorization", "Bearer "+m.key)
	}
	resp, err := (&http.Client{Transport: m.transport}).Do(req)
	if err != nil {
		return nil, 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, resp.StatusCode, fmt.Errorf("GET %s/models: %s", base, resp.Status)
	}
	var list struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&list); err != nil {
		return nil, resp.StatusCode, fmt.Errorf("GET %s/models: %w", base, err)
	}
	for _, d := range list.Data {
		ids = append(ids, d.ID)
	}
	return ids, resp.StatusCode, nil
}
