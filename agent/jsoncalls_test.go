package agent

import (
	"context"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/modeltest"
	"github.com/agentls/agentls/tools"
)

// TestTextCallsInToolFormat: offered native tools on llama-server,
// Qwen2.5-Coder-1.5B wrote every call as a ```json block of the name and
// arguments (recorded in the evaluation's go-add-func); the tool format
// reads it as the call, and the <tool_call> form too. JSON that is not a
// call of an offered tool is left as text.
func TestTextCallsInToolFormat(t *testing.T) {
	mathx := "package mathx\n\n// Min returns the smaller of a and b.\nfunc Min(a, b int) int {\n\tif a < b {\n\t\treturn a\n\t}\n\treturn b\n}\n"
	want := mathx + "\n// Max returns the larger of a and b.\nfunc Max(a, b int) int {\n\tif a > b {\n\t\treturn a\n\t}\n\treturn b\n}\n"
	real := "```json\n{\"name\": \"save\", \"arguments\": {\"path\": \"mathx.go\", \"content\": \"package mathx\\n\\n// Min returns the smaller of a and b.\\nfunc Min(a, b int) int {\\n\\tif a < b {\\n\\t\\treturn a\\n\\t}\\n\\treturn b\\n}\\n\\n// Max returns the larger of a and b.\\nfunc Max(a, b int) int {\\n\\tif a > b {\\n\\t\\treturn a\\n\\t}\\n\\treturn b\\n}\\n\"}}\n```"
	for _, tc := range []struct {
		name, reply, want string
		notes             string // notes.txt afterwards
	}{
		{"a json block", real, want, ""},
		{"tool_call tags, arguments as a string", "<tool_call>\n{\"name\": \"save\", \"arguments\": \"{\\\"path\\\": \\\"notes.txt\\\", \\\"content\\\": \\\"Max added\\\\n\\\"}\"}\n</tool_call>", mathx, "Max added\n"},
		// A native call's save is held to the compact turn's checks too:
		// this one would keep one line of mathx.go.
		{"a shrinking save", "```json\n{\"name\": \"save\", \"arguments\": {\"path\": \"mathx.go\", \"content\": \"package mathx\\n\"}}\n```", mathx, ""},
		{"not a tool", "```json\n{\"name\": \"deploy\", \"arguments\": {}}\n```", mathx, ""},
		{"plain json", "```json\n{\"path\": \"mathx.go\"}\n```", mathx, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := modeltest.New(modeltest.Text(tc.reply, 50), modeltest.Text("Added Max.", 50), modeltest.Text("Added Max.", 50))
			defer srv.Close()
			ws := &memWorkspace{files: map[string]string{"mathx.go": mathx}}
			turn := boundTurn(t, srv, ws, tools.FormatTool)
			turn.Compact = true
			turn.Run(context.Background(), Request{Prompt: "In mathx.go, add a function Max(a, b int) int that returns the larger of a and b.", Root: "/ws"})
			if ws.files["mathx.go"] != tc.want || ws.files["notes.txt"] != tc.notes {
				t.Errorf("mathx.go = %q, notes.txt = %q", ws.files["mathx.go"], ws.files["notes.txt"])
			}
			if tc.want != mathx || tc.notes != "" {
				msgs := srv.Requests()[1].Body.Messages
				if told := msgs[len(msgs)-1]; told.Role != "user" || !strings.Contains(told.Content, "wrote its calls as JSON text") {
					t.Errorf("the model was told %s: %q", told.Role, told.Content)
				}
			}
		})
	}
}
