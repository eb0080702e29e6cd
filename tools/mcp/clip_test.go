package mcp

import (
	"strings"
	"testing"
	"unicode/utf8"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestLongSchemaShownWholeCharacters: a schema longer than the prompt
// shows is cut before a character, never inside it (the old cut took
// exactly maxSchemaPrompt bytes).
func TestLongSchemaShownWholeCharacters(t *testing.T) {
	schema := map[string]any{"description": "x" + strings.Repeat("é", maxSchemaPrompt), "type": "object"}
	spec := toolSpec("srv", &sdk.Tool{Name: "t", InputSchema: schema})
	for format, instr := range spec.FormatInstructions {
		if !utf8.ValidString(instr) {
			t.Errorf("format %v: the schema is cut inside a character", format)
		}
		if !strings.Contains(instr, "é…") {
			t.Errorf("format %v: the schema is not cut with a mark: ...%s", format, instr[max(len(instr)-40, 0):])
		}
	}
}
