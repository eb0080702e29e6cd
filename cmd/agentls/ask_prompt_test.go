package main

import (
	"testing"
	"time"
)

// TestCompactPrompt: --prompt auto sends the compact prompt to an API on
// this machine only; full and compact are as asked; anything else is a
// usage error. A local API also gets the long chunk timeout.
func TestCompactPrompt(t *testing.T) {
	for _, tc := range []struct {
		style, url string
		want       bool
		wantErr    bool
		timeout    time.Duration
	}{
		{"auto", "http://127.0.0.1:8765/v1", true, false, 10 * time.Minute},
		{"auto", "http://localhost:11434/v1", true, false, 10 * time.Minute},
		{"auto", "http://[::1]:8080/v1", true, false, 10 * time.Minute},
		{"auto", "https://api.openai.com/v1", false, false, 0},
		{"auto", "", false, false, 0},
		{"full", "http://127.0.0.1:8765/v1", false, false, 10 * time.Minute},
		{"compact", "https://api.openai.com/v1", true, false, 0},
		{"tiny", "", false, true, 0},
	} {
		got, err := compactPrompt(tc.style, tc.url)
		if got != tc.want || (err != nil) != tc.wantErr {
			t.Errorf("compactPrompt(%q, %q) = %v, %v", tc.style, tc.url, got, err)
		}
		if d := chunkTimeout(tc.url); d != tc.timeout {
			t.Errorf("chunkTimeout(%q) = %s", tc.url, d)
		}
	}
}
