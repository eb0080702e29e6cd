package parse

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/agentls/agentls/tools"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// testLookup knows the block types of a few tools, as the registry would.
func testLookup(blockType string) (tools.ToolRef, bool) {
	switch blockType {
	case "save", "append", "patch":
		return tools.ToolRef{Name: blockType, PathArg: true}, true
	case "shell", "patch_many", "apply_patch":
		return tools.ToolRef{Name: blockType}, true
	case "ipython", "py":
		return tools.ToolRef{Name: "ipython"}, true
	}
	return tools.ToolRef{}, false
}

// use is a tools.ToolUse without positions, for comparing.
type use struct {
	Tool    string
	Args    []string
	Kwargs  map[string]any
	Content string
	CallID  string
}

func usesOf(us []tools.ToolUse) []use {
	out := []use{}
	for _, u := range us {
		out = append(out, use{u.Tool, u.Args, u.Kwargs, u.Content, u.CallID})
	}
	return out
}

func num(s string) json.Number { return json.Number(s) }

func TestToolUses(t *testing.T) {
	md := Options{Format: tools.FormatMarkdown, Lookup: testLookup}
	xml := Options{Format: tools.FormatXML, Lookup: testLookup}
	tool := Options{Format: tools.FormatTool, Lookup: testLookup}
	for _, tc := range []struct {
		name  string
		opts  Options
		reply string
		want  []use
	}{
		// markdown
		{"save path", md, "```save hello.py\nprint(1)\n```", []use{{Tool: "save", Args: []string{"hello.py"}, Content: "print(1)"}}},
		{"path with spaces", md, "```save my dir/a b.txt\nx\n```", []use{{Tool: "save", Args: []string{"my dir/a b.txt"}, Content: "x"}}},
		{"bare save has no path", md, "```save\nx\n```", []use{{Tool: "save", Args: []string{}, Content: "x"}}},
		{"other tools split words", md, "```patch_many a.py  b.py\nx\n```", []use{{Tool: "patch_many", Args: []string{"a.py", "b.py"}, Content: "x"}}},
		{"block type alias", md, "```py\n1+1\n```", []use{{Tool: "ipython", Args: []string{}, Content: "1+1"}}},
		{"not a tool", md, "```python\nx\n```\n\n```bash\nls\n```\n\n```hello.py\nx\n```", []use{}},
		{"case-sensitive", md, "```Shell\nls\n```", []use{}},
		{"tab after block type", md, "```save\ta.txt\nx\n```", []use{{Tool: "save", Args: []string{"a.txt"}, Content: "x"}}},
		{"markdown ignores xml and @", md, "<tool-use><shell>ls</shell></tool-use>\n@shell(1): {\"command\": \"ls\"}\n", []use{}},
		{"patch with nested fences", md, "```patch README.md\n<<<<<<< ORIGINAL\n```sh\nmake\n```\n=======\n```sh\nmake test\n```\n>>>>>>> UPDATED\n```\n",
			[]use{{Tool: "patch", Args: []string{"README.md"}, Content: "<<<<<<< ORIGINAL\n```sh\nmake\n```\n=======\n```sh\nmake test\n```\n>>>>>>> UPDATED"}}},

		// xml, gptme's form
		{"xml tool-use", xml, "<tool-use>\n<save path=\"a.py\">\nprint(1)\n</save>\n</tool-use>", []use{{Tool: "save", Args: []string{"a.py"}, Content: "print(1)"}}},
		{"xml attribute names ignored", xml, "<tool-use><save args=\"a.py\">x</save></tool-use>", []use{{Tool: "save", Args: []string{"a.py"}, Content: "x"}}},
		{"xml keeps < and &", xml, "<tool-use>\n<shell>\nif [ 1 < 2 ] && true; then echo a&b; fi\n</shell>\n</tool-use>", []use{{Tool: "shell", Args: []string{}, Content: "if [ 1 < 2 ] && true; then echo a&b; fi"}}},
		{"xml keeps first-line indentation", xml, "<tool-use>\n<save path=\"a.py\">\n    x = 1\n    y = 2\n</save>\n</tool-use>", []use{{Tool: "save", Args: []string{"a.py"}, Content: "    x = 1\n    y = 2"}}},
		{"xml attribute entities decoded", xml, "<tool-use><save path=\"a&amp;b &quot;c&quot;.txt\">x</save></tool-use>", []use{{Tool: "save", Args: []string{"a&b \"c\".txt"}, Content: "x"}}},
		{"xml cdata unwrapped", xml, "<tool-use><save path=\"a\"><![CDATA[x </save> y]]></save></tool-use>", []use{{Tool: "save", Args: []string{"a"}, Content: "x </save> y"}}},
		{"xml several calls in order", xml, "<tool-use>\n<shell>ls</shell>\n<save path=\"a\">x</save>\n<shell>pwd</shell>\n</tool-use>",
			[]use{{Tool: "shell", Args: []string{}, Content: "ls"}, {Tool: "save", Args: []string{"a"}, Content: "x"}, {Tool: "shell", Args: []string{}, Content: "pwd"}}},
		{"xml self-closing", xml, "<tool-use><jobs/></tool-use>", []use{{Tool: "jobs", Args: []string{}}}},
		{"xml tag lower-cased", xml, "<tool-use><Shell>ls</Shell></tool-use>", []use{{Tool: "shell", Args: []string{}, Content: "ls"}}},
		{"xml inside a fence is not run", xml, "```xml\n<tool-use><shell>rm -rf /</shell></tool-use>\n```\n\n<tool-use><shell>ls</shell></tool-use>", []use{{Tool: "shell", Args: []string{}, Content: "ls"}}},
		{"xml inside inline code is not run", xml, "use `<tool-use>` tags\n<tool-use><shell>ls</shell></tool-use>", []use{{Tool: "shell", Args: []string{}, Content: "ls"}}},
		{"xml inside thinking is not run", xml, "<think>\n<tool-use><shell>rm</shell></tool-use>\n</think>\n<tool-use><shell>ls</shell></tool-use>", []use{{Tool: "shell", Args: []string{}, Content: "ls"}}},
		{"xml ignores markdown blocks", xml, "```shell\nls\n```\n", []use{}},
		{"xml content may hold fences", xml, "<tool-use>\n<save path=\"R.md\">\n```sh\nmake\n```\n</save>\n</tool-use>", []use{{Tool: "save", Args: []string{"R.md"}, Content: "```sh\nmake\n```"}}},
		{"xml unclosed call dropped", xml, "<tool-use><shell>ls", []use{}},
		{"xml call counts before the root closes", xml, "<tool-use><shell>ls</shell>", []use{{Tool: "shell", Args: []string{}, Content: "ls"}}},
		{"xml text after the root", xml, "<tool-use><shell>ls</shell></tool-use> then <tool-use><shell>pwd</shell></tool-use>",
			[]use{{Tool: "shell", Args: []string{}, Content: "ls"}, {Tool: "shell", Args: []string{}, Content: "pwd"}}},
		{"xml stray < in root", xml, "<tool-use> a < b <shell>ls</shell></tool-use>", []use{{Tool: "shell", Args: []string{}, Content: "ls"}}},

		// xml, function_calls form
		{"invoke with parameters", xml, "<function_calls>\n<invoke name=\"save\">\n<parameter name=\"path\">a.py</parameter>\n<parameter name=\"content\">x = 1\ny < 2</parameter>\n</invoke>\n</function_calls>",
			[]use{{Tool: "save", Args: []string{}, Kwargs: map[string]any{"path": "a.py", "content": "x = 1\ny < 2"}}}},
		{"invoke text and other attributes", xml, "<function_calls><invoke name=\"shell\" mode=\"x\">ls -l</invoke></function_calls>",
			[]use{{Tool: "shell", Args: []string{"x"}, Content: "ls -l"}}},
		{"invoke without a name skipped", xml, "<function_calls><invoke>ls</invoke><invoke name=\"shell\">pwd</invoke></function_calls>",
			[]use{{Tool: "shell", Args: []string{}, Content: "pwd"}}},
		{"repeated tools keep text order", xml, "<function_calls><invoke name=\"a\">1</invoke><invoke name=\"b\">2</invoke><invoke name=\"a\">3</invoke></function_calls>",
			[]use{{Tool: "a", Args: []string{}, Content: "1"}, {Tool: "b", Args: []string{}, Content: "2"}, {Tool: "a", Args: []string{}, Content: "3"}}},

		// tool format
		{"@ call", tool, "@save(call_1): {\"path\": \"a.py\", \"content\": \"x\"}", []use{{Tool: "save", Kwargs: map[string]any{"path": "a.py", "content": "x"}, CallID: "call_1"}}},
		{"@ call json on next line", tool, "@shell(t-1:2.3):\n  {\"command\": \"ls\"}\n", []use{{Tool: "shell", Kwargs: map[string]any{"command": "ls"}, CallID: "t-1:2.3"}}},
		{"@ braces in strings", tool, "@save(1): {\"content\": \"func() { return \\\"}\\\" }\", \"n\": 3}", []use{{Tool: "save", Kwargs: map[string]any{"content": "func() { return \"}\" }", "n": num("3")}, CallID: "1"}}},
		{"@ python dict", tool, "@save(1): {'path': 'a.py', 'ok': True, 'x': None, 'n': [1, 2,],}", []use{{Tool: "save", Kwargs: map[string]any{"path": "a.py", "ok": true, "x": nil, "n": []any{num("1"), num("2")}}, CallID: "1"}}},
		{"@ single-quoted brace", tool, "@save(1): {'content': '}'}", []use{{Tool: "save", Kwargs: map[string]any{"content": "}"}, CallID: "1"}}},
		{"@ needs an id", tool, "@save: {\"a\": 1}\n@save(): {\"a\": 1}\n@save(a/b): {\"a\": 1}", []use{}},
		{"@ needs line start", tool, " @save(1): {\"a\": 1}\nx @save(1): {\"a\": 1}", []use{}},
		{"@ inside a fence skipped", tool, "```text\n@shell(1): {\"command\": \"rm\"}\n```\n\n@shell(2): {\"command\": \"ls\"}", []use{{Tool: "shell", Kwargs: map[string]any{"command": "ls"}, CallID: "2"}}},
		{"@ not an object", tool, "@shell(1): {1: 2}\n@shell(2): {\"command\": \"ls\"}", []use{{Tool: "shell", Kwargs: map[string]any{"command": "ls"}, CallID: "2"}}},
		{"@ and blocks in text order", tool, "@shell(1): {\"command\": \"ls\"}\n```save a.txt\nx\n```\n\n@shell(2): {\"command\": \"pwd\"}",
			[]use{{Tool: "shell", Kwargs: map[string]any{"command": "ls"}, CallID: "1"}, {Tool: "save", Args: []string{"a.txt"}, Content: "x"}, {Tool: "shell", Kwargs: map[string]any{"command": "pwd"}, CallID: "2"}}},
		{"@ several on one line", tool, "@a(1): {}@b(2): {}\n@c(3): {\"k\": \"v\"} trailing", []use{{Tool: "a", Kwargs: map[string]any{}, CallID: "1"}, {Tool: "c", Kwargs: map[string]any{"k": "v"}, CallID: "3"}}},
		{"@ unterminated", tool, "@shell(1): {\"command\": \"ls}\n@shell(2): {\"command\": \"pwd\"}", []use{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := parseChecked(t, tc.reply, tc.opts)
			if diff := cmp.Diff(tc.want, usesOf(p.ToolUses()), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("tool uses (-want +got):\n%s", diff)
			}
			last := -1
			for _, u := range p.ToolUses() {
				if u.Start <= last || u.End <= u.Start || u.End > len(tc.reply) {
					t.Errorf("positions out of order or range: %+v", u)
				}
				last = u.Start
				if u.Format == tools.FormatMarkdown && !strings.HasPrefix(tc.reply[u.Start:], "```") ||
					u.Format == tools.FormatTool && tc.reply[u.Start] != '@' ||
					u.Format == tools.FormatXML && tc.reply[u.Start] != '<' {
					t.Errorf("start %d of %s call does not point at it: %q", u.Start, u.Format, tc.reply[u.Start:])
				}
			}
		})
	}
}

func TestProblems(t *testing.T) {
	for _, tc := range []struct {
		name, reply string
		format      tools.Format
		want        string
	}{
		{"unterminated @", "@shell(1): {\"command\": \"ls}", tools.FormatTool, "never end"},
		{"bad json", "@shell(1): {\"command\" \"ls\" ::}", tools.FormatTool, "not valid JSON"},
		{"not an object", "@shell(1): {1: 2}", tools.FormatTool, "not valid JSON"},
		{"unclosed xml call", "<tool-use><shell>ls", tools.FormatXML, "not closed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := parseChecked(t, tc.reply, Options{Format: tc.format, Lookup: testLookup})
			if len(p.Problems()) != 1 || !strings.Contains(p.Problems()[0].Message, tc.want) {
				t.Errorf("problems = %+v, want one containing %q", p.Problems(), tc.want)
			}
		})
	}
}
