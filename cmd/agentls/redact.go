package main

import (
	"bytes"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/agentls/agentls/agent"
)

// A redactingWriter writes what it is given with every secret replaced by
// [redacted]. The server's log holds model text and command lines, either
// of which may quote a key the model was tricked into printing; the log
// file outlives the session.
type redactingWriter struct {
	w       io.Writer
	secrets [][]byte
}

// Shorter values are too likely to be ordinary words to replace.
const minSecretLen = 8

// newRedactingWriter redacts the values of environment variables that look
// like secrets (…KEY…, …TOKEN…, …SECRET…, …PASSWORD…, …CREDENTIAL…) and
// of the variable the user's settings name as the API key.
func newRedactingWriter(w io.Writer, environ []string, getenv func(string) string) *redactingWriter {
	keyEnv := agent.LoadSettings(getenv, "").Settings.APIKeyEnv
	r := &redactingWriter{w: w}
	for _, kv := range environ {
		name, value, ok := strings.Cut(kv, "=")
		if !ok || len(value) < minSecretLen {
			continue
		}
		if name == keyEnv || looksSecret(name) {
			r.secrets = append(r.secrets, []byte(value))
		}
	}
	// Longest first, so a secret holding another is replaced whole.
	slices.SortFunc(r.secrets, func(a, b []byte) int { return len(b) - len(a) })
	return r
}

func looksSecret(name string) bool {
	upper := strings.ToUpper(name)
	for _, w := range []string{"KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL"} {
		if strings.Contains(upper, w) {
			return true
		}
	}
	return false
}

func (r *redactingWriter) Write(p []byte) (int, error) {
	out := p
	for _, s := range r.secrets {
		if bytes.Contains(out, s) {
			out = bytes.ReplaceAll(out, s, []byte("[redacted]"))
		}
	}
	if _, err := r.w.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}

// openLog opens the server's log file for appending, readable by the user
// only (an existing file is narrowed to that too).
func openLog(name string) (*os.File, error) {
	f, err := os.OpenFile(name, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return nil, err
	}
	if err := f.Chmod(0o600); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}
