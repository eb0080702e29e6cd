package agent

import (
	"context"
	"math"
	"testing"

	"github.com/agentls/agentls/agent/modeltest"
	"github.com/agentls/agentls/settings"
)

// TestPreparedTemperature: the temperature setting is sent with every
// request, 0 exactly; without one, DefaultTemperature (0, as aider and
// gptme send).
func TestPreparedTemperature(t *testing.T) {
	for _, tc := range []struct {
		name, raw string
		want      *float64 // nil: none sent
	}{
		{"compact: agentls's default", `{"prompt": "compact"}`, ptr(DefaultTemperature)},
		{"full: agentls's default", `{"prompt": "full"}`, ptr(DefaultTemperature)},
		{"set", `{"prompt": "full", "temperature": 0.3}`, ptr(0.3)},
		{"set with compact", `{"prompt": "compact", "temperature": 0.7}`, ptr(0.7)},
		// Exactly 0, which go-openai leaves out (temperature.go): the
		// 1e-45 sent before made llama.cpp's server sample at random.
		{"zero", `{"prompt": "compact", "temperature": 0}`, ptr(0.0)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := modeltest.New(modeltest.Text("Nothing to do.", 4))
			defer srv.Close()
			set, problems := settings.Defaults(func(string) string { return "" }).Apply([]byte(tc.raw), settings.Source{Name: "test", Trusted: true}, SettingChecks())
			if len(problems) > 0 {
				t.Fatal(problems)
			}
			set.Model, set.BaseURL, set.Tools = "m", srv.URL, []string{"read"}
			state := t.TempDir()
			p, err := Prepare(Setup{Settings: set, Getenv: func(k string) string {
				if k == "XDG_STATE_HOME" {
					return state
				}
				return ""
			}, Workspace: &memWorkspace{files: map[string]string{}}})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := p.Run(context.Background(), Request{Prompt: "hi"}); err != nil {
				t.Fatal(err)
			}
			got := srv.Requests()[0].Body.Temperature
			switch {
			case tc.want == nil && got != nil:
				t.Errorf("temperature %v sent, want none", *got)
			case tc.want != nil && (got == nil || *tc.want == 0 && *got != 0 || math.Abs(*got-*tc.want) > 1e-6):
				t.Errorf("temperature %v, want %v", got, *tc.want)
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }

// TestCompactPrompt: the prompt style "auto" sends the compact prompt to
// an API on this machine only; full and compact are as asked; anything
// else is an error. A local API also gets the long chunk timeout.
func TestCompactPrompt(t *testing.T) {
	for _, tc := range []struct {
		style, url string
		want       bool
		wantErr    bool
		local      bool
	}{
		{"auto", "http://127.0.0.1:8765/v1", true, false, true},
		{"auto", "http://localhost:11434/v1", true, false, true},
		{"auto", "http://[::1]:8080/v1", true, false, true},
		{"auto", "https://api.openai.com/v1", false, false, false},
		{"auto", "", false, false, false},
		{"full", "http://127.0.0.1:8765/v1", false, false, true},
		{"compact", "https://api.openai.com/v1", true, false, false},
		{"tiny", "", false, true, false},
	} {
		got, err := compactPrompt(tc.style, tc.url)
		if got != tc.want || (err != nil) != tc.wantErr {
			t.Errorf("compactPrompt(%q, %q) = %v, %v", tc.style, tc.url, got, err)
		}
		if isLoopbackURL(tc.url) != tc.local {
			t.Errorf("isLoopbackURL(%q) = %v", tc.url, !tc.local)
		}
	}
}
