package agent

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/parse"
)

// Offered native tools, a small model may write its calls as text: the
// JSON a chat template would have wrapped in <tool_call> tags, in a
// ```json block or in the tags themselves ({"name": "save", "arguments":
// {...}}), which the server then streams as text, not as a call.
// Qwen2.5-Coder-1.5B did so on llama-server for every call of the tool
// format's evaluation. In the tool format such a reply is read as the calls
// it spells, each checked as a native call's arguments are; the results go
// back as user messages, since no call id was sent.

// jsonCallRe finds the JSON of a call written as text: a ```json block or
// a <tool_call> element.
var jsonCallRe = regexp.MustCompile("(?s)```(?:json)?[ \\t]*\\n(\\{.*?\\})[ \\t]*\\n```|<tool_call>\\s*(\\{.*?\\})\\s*</tool_call>")

// textCalls returns the calls a tool-format reply writes as JSON text, and
// a note for the model; none when it writes none, or any is not a call of
// an offered tool.
func textCalls(reply string, reg *tools.Registry) ([]tools.ToolUse, string) {
	var uses []tools.ToolUse
	for i, m := range jsonCallRe.FindAllStringSubmatch(reply, -1) {
		body := m[1] + m[2]
		var call struct {
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		}
		if err := json.Unmarshal([]byte(body), &call); err != nil || call.Name == "" {
			return nil, ""
		}
		if _, ok := reg.Get(call.Name); !ok {
			return nil, ""
		}
		args := strings.TrimSpace(string(call.Arguments))
		var quoted string
		if json.Unmarshal(call.Arguments, &quoted) == nil {
			args = quoted // the arguments as a JSON string, as the wire sends them
		}
		// The tool format's text form gives the same ToolUse a native
		// call does (streamStep), lenient JSON included.
		p := parse.NewParser(parse.Options{Format: tools.FormatTool, Lookup: reg.Lookup})
		p.WriteString(fmt.Sprintf("@%s(text_%d): %s", call.Name, i+1, args))
		p.Finish()
		got := p.ToolUses()
		if len(got) != 1 || len(p.Problems()) > 0 {
			return nil, ""
		}
		got[0].CallID = "" // none was sent: the result is a user message
		uses = append(uses, got[0])
	}
	if len(uses) == 0 {
		return nil, ""
	}
	return uses, "(Your reply wrote its calls as JSON text; they were run as calls. Next time call the tools through the tool-calling interface.)\n"
}
