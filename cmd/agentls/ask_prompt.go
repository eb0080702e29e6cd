package main

import (
	"fmt"
	"net"
	"net/url"
	"time"
)

// compactPrompt decides whether a terminal turn sends the compact system
// prompt (agent.Turn.Compact): as asked, or, for "auto", when the API is
// on this machine — where small models with small context windows run
// (llama.cpp, Ollama), and every token of prompt is read on the user's
// own cores.
func compactPrompt(style, baseURL string) (bool, error) {
	switch style {
	case "full":
		return false, nil
	case "compact":
		return true, nil
	case "auto", "":
		return isLoopbackURL(baseURL), nil
	}
	return false, fmt.Errorf("--prompt %q: want full, compact or auto", style)
}

// isLoopbackURL reports whether u's host is this machine.
func isLoopbackURL(u string) bool {
	parsed, err := url.Parse(u)
	if err != nil || parsed.Hostname() == "" {
		return false
	}
	if parsed.Hostname() == "localhost" {
		return true
	}
	ip := net.ParseIP(parsed.Hostname())
	return ip != nil && ip.IsLoopback()
}

// chunkTimeout is how long a terminal turn waits for the model's next
// chunk: the default (0) for a remote API; 10 minutes for one on this
// machine, which reads a long prompt on the user's own cores before its
// first token, minutes on a busy laptop (issue 30: a 1.5B model on two
// shared cores took over the default 2 minutes) — and is not a network
// that stalls.
func chunkTimeout(baseURL string) time.Duration {
	if isLoopbackURL(baseURL) {
		return 10 * time.Minute
	}
	return 0
}
