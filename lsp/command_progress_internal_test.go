package lsp

import (
	"strings"
	"testing"

	"github.com/agentls/agentls/tools"
)

// TestLastLine: a running command's progress shows its output's last line
// that says something, as a status line can hold it.
func TestLastLine(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"ok  \tgithub.com/a/b\t0.1s\n", "ok   github.com/a/b 0.1s"},
		{"one\ntwo\n\n  \n", "two"},
		{"downloading 10%\rdownloading 90%\r\n", "downloading 90%"},
		{"\n\n", ""},
		{strings.Repeat("x", 200) + "\n", strings.Repeat("x", 80) + "…"},
	} {
		if got := lastLine(tc.text); got != tc.want {
			t.Errorf("lastLine(%q) = %q, want %q", tc.text, got, tc.want)
		}
	}
}

// TestCommandOf: what a shell call's progress names: its first line, "…"
// when more follow; no command for other tools.
func TestCommandOf(t *testing.T) {
	for _, tc := range []struct {
		use  tools.ToolUse
		want string
	}{
		{tools.ToolUse{Tool: "shell", Content: "go test ./...\n"}, "go test ./..."},
		{tools.ToolUse{Tool: "shell", Content: "go vet ./...\ngo test ./...\n"}, "go vet ./... …"},
		{tools.ToolUse{Tool: "shell", Kwargs: map[string]any{"command": "make"}}, "make"},
		{tools.ToolUse{Tool: "read", Args: []string{"a.go"}}, ""},
		{tools.ToolUse{Tool: "shell"}, ""},
	} {
		if got := commandOf(tc.use); got != tc.want {
			t.Errorf("commandOf(%+v) = %q, want %q", tc.use, got, tc.want)
		}
	}
}
