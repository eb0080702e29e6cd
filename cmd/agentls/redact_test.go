package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

func TestRedactingWriter(t *testing.T) {
	env := []string{"OPENAI_API_KEY=sk-live-1234567890", "MY_LLM=llm-secret-value", "GITHUB_TOKEN=ghp_abcdefghij", "SHORT_KEY=abc", "PATH=/usr/bin:/bin"}
	config := t.TempDir()
	os.MkdirAll(filepath.Join(config, "agentls"), 0o755)
	os.WriteFile(filepath.Join(config, "agentls", "settings.json"), []byte(`{"apiKeyEnv": "MY_LLM"}`), 0o644)
	getenv := func(k string) string {
		if k == "XDG_CONFIG_HOME" {
			return config
		}
		return ""
	}
	var out bytes.Buffer
	w := newRedactingWriter(&out, env, getenv)
	line := "model said: sk-live-1234567890 and llm-secret-value and ghp_abcdefghij; abc stays; /usr/bin:/bin stays\n"
	if n, err := w.Write([]byte(line)); err != nil || n != len(line) {
		t.Fatalf("Write = %d, %v", n, err)
	}
	if got, want := out.String(), "model said: [redacted] and [redacted] and [redacted]; abc stays; /usr/bin:/bin stays\n"; got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
}

// TestLogFileIsPrivate: --log's file is readable by the user only, an
// existing one too.
func TestLogFileIsPrivate(t *testing.T) {
	name := filepath.Join(t.TempDir(), "agentls.log")
	os.WriteFile(name, nil, 0o644)
	f, err := openLog(name)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	if fi, _ := os.Stat(name); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v", fi.Mode().Perm())
	}
}
