package parse

import (
	"testing"

	"github.com/agentls/agentls/tools"
)

// The parser finds the tools a Registry knows, and only those: these
// round trips tie the registry's Lookup and RenderCall to the parser.

func TestSelectionParsesOnlyItsTools(t *testing.T) {
	r, err := tools.NewRegistry(
		&tools.ToolSpec{Name: "shell", BlockTypes: []string{"shell"}, Description: "d"},
		&tools.ToolSpec{Name: "save", BlockTypes: []string{"save"}, PathArg: true, Description: "d"},
	)
	if err != nil {
		t.Fatal(err)
	}
	sel, _, _ := r.Select([]string{"save"})
	uses := ToolUses("```shell\nls\n```\n\n```save a\nx\n```\n", Options{Lookup: sel.Lookup})
	if len(uses) != 1 || uses[0].Tool != "save" {
		t.Errorf("uses = %+v", uses)
	}
}

func TestRenderedCallParsesBack(t *testing.T) {
	s := &tools.ToolSpec{Name: "save", BlockTypes: []string{"save"}, PathArg: true, Description: "d"}
	content := "# Title\n```sh\nmake\n```\n````\nx\n````"
	text := s.RenderCall(tools.ToolUse{Tool: "save", Args: []string{"README.md"}, Content: content}, tools.FormatMarkdown, "")
	r, _ := tools.NewRegistry(s)
	uses := ToolUses(text, Options{Lookup: r.Lookup})
	if len(uses) != 1 || uses[0].Content != content {
		t.Errorf("round trip: %+v", uses)
	}
}
