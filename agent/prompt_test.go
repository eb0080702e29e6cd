package agent

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/builtin"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// TestPromptGolden keeps the opening messages of a turn, in every tool
// format, in testdata/prompt-<format>.golden (-update rewrites them).
func TestPromptGolden(t *testing.T) {
	req := Request{
		Prompt:    "  make Load return an error instead of panicking  ",
		Root:      "/home/me/project",
		OpenFiles: []string{"config/load.go", "main.go"},
		Selection: &Selection{Path: "config/load.go", StartLine: 12, EndLine: 15, Language: "go",
			Text: "func Load(path string) Config {\n\tdata := must(os.ReadFile(path))\n\treturn parse(data)\n}"},
		Diagnostics: []Diagnostic{{Path: "config/load.go", Line: 13, Severity: "warning", Source: "staticcheck", Message: "must panics on error"}},
	}
	for _, format := range tools.AllFormats() {
		t.Run(string(format), func(t *testing.T) {
			var b strings.Builder
			for _, m := range Messages(builtin.Registry(), format, req) {
				b.WriteString("=== " + m.Role + " ===\n" + m.Content + "\n")
			}
			if nt := NativeTools(builtin.Registry(), format); nt != nil {
				data, err := json.MarshalIndent(nt, "", "  ")
				if err != nil {
					t.Fatal(err)
				}
				b.WriteString("=== native tools ===\n" + string(data) + "\n")
			}
			golden := filepath.Join("testdata", "prompt-"+string(format)+".golden")
			if *update {
				os.MkdirAll("testdata", 0o755)
				if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(want), b.String()); diff != "" {
				t.Errorf("prompt differs from %s (-want +got):\n%s", golden, diff)
			}
		})
	}
}

// TestUserMessageFence: a selection holding a fence is wrapped in a
// longer one, so the model sees it whole.
func TestUserMessageFence(t *testing.T) {
	msg := UserMessage(Request{Prompt: "explain", Selection: &Selection{Path: "README.md", StartLine: 1, EndLine: 3, Language: "markdown", Text: "```go\nx := 1\n```\n"}})
	if !strings.Contains(msg, "````markdown\n```go\nx := 1\n```\n````\n") {
		t.Errorf("message = %q", msg)
	}
}

// TestMessagesHistory: a chat's earlier exchanges come between the system
// prompt and the new request, in order and with their roles.
func TestMessagesHistory(t *testing.T) {
	req := Request{Prompt: "and now b", Root: "/w", History: []ChatMessage{
		{Role: "user", Content: "rename a"}, {Role: "assistant", Content: "Renamed a."},
	}}
	msgs := Messages(builtin.Registry(), tools.FormatMarkdown, req)
	var got []string
	for _, m := range msgs[1:] {
		got = append(got, m.Role+": "+m.Content)
	}
	want := []string{"user: rename a", "assistant: Renamed a.", "user: " + UserMessage(req)}
	if !slices.Equal(got, want) || msgs[0].Role != "system" {
		t.Errorf("messages = %q", got)
	}
}
