package parse

import (
	"strings"
	"testing"

	"github.com/agentls/agentls/tools"
)

// TestRenderedCallWithIndentedFence: a rendered call's fence is longer
// than every backtick run in its content (text.Fence), not only the runs
// that start a line: CommonMark closes a fence indented by up to three
// spaces, so a fenced block in a Markdown list would end a three-backtick
// call early wherever the reply is shown as Markdown. The call still
// parses back whole.
func TestRenderedCallWithIndentedFence(t *testing.T) {
	s := &tools.ToolSpec{Name: "save", BlockTypes: []string{"save"}, PathArg: true, Description: "d"}
	r, _ := tools.NewRegistry(s)
	for _, content := range []string{
		"- step:\n  ```sh\n  make\n  ```\n- done",
		"1. run\n   ```\n   go test\n   ```",
		"inline ```code``` and more",
	} {
		text := s.RenderCall(tools.ToolUse{Tool: "save", Args: []string{"README.md"}, Content: content}, tools.FormatMarkdown, "")
		if !strings.HasPrefix(text, "````save") {
			t.Errorf("the call holding %q is fenced with three backticks:\n%s", content, text)
		}
		uses := ToolUses(text, Options{Lookup: r.Lookup})
		if len(uses) != 1 || uses[0].Content != content {
			t.Errorf("round trip of %q through\n%s\ngave %+v", content, text, uses)
		}
	}
}
