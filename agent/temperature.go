package agent

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
)

// go-openai leaves a zero temperature out of a request (its field is
// `omitempty`), and the server's default (llama.cpp's: 0.8) applies.
// agentls used to send the smallest float32 above zero instead, 1e-45:
// llama.cpp's server divides the logits by it, they overflow, and the
// model samples at random among its top 40 tokens — a 1.5B model asked
// for temperature 0 wrote "isNaN(isNaN(maxNumber))" into a TypeScript
// file. A Model asked for 0 sends the request through zeroTemperature,
// which writes "temperature": 0 into the body.

// zeroTemperature sets "temperature" to 0 in the JSON body of every chat
// completion request it sends through base, until off is set (the server
// refused agentls's default temperature).
type zeroTemperature struct {
	base http.RoundTripper
	off  *atomic.Bool
}

func (z zeroTemperature) RoundTrip(req *http.Request) (*http.Response, error) {
	if z.off.Load() || req.Method != http.MethodPost || !strings.HasSuffix(req.URL.Path, "/chat/completions") || req.Body == nil {
		return z.base.RoundTrip(req)
	}
	body, err := io.ReadAll(req.Body)
	req.Body.Close()
	if err != nil {
		return nil, fmt.Errorf("read the request body: %w", err)
	}
	if body, err = withZeroTemperature(body); err != nil {
		return nil, err
	}
	out := req.Clone(req.Context())
	out.Body = io.NopCloser(bytes.NewReader(body))
	out.ContentLength = int64(len(body))
	out.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	return z.base.RoundTrip(out)
}

// withZeroTemperature is the JSON object body with its "temperature" set
// to 0; the other fields are kept as they are.
func withZeroTemperature(body []byte) ([]byte, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(body, &fields); err != nil {
		return nil, fmt.Errorf("the chat request is not a JSON object: %w", err)
	}
	fields["temperature"] = json.RawMessage("0")
	return json.Marshal(fields)
}
