package parse

import (
	"strings"
	"testing"

	"github.com/agentls/agentls/tools"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// TestFenceClosesBeforeText is the attack of gptme issue #3697: a shell
// block closed by a fence with prose right after it, then a bare output
// block. Read gptme's way, the fence opened a nested block, and the prose
// and the output became part of the command.
func TestFenceClosesBeforeText(t *testing.T) {
	md := Options{Lookup: testLookup}
	for _, tc := range []struct {
		name  string
		reply string
		want  []use
	}{
		{"gptme #3697", "```shell\necho hello\n```\nThe exact output is:\n\n```\nhello\n```",
			[]use{{Tool: "shell", Args: []string{}, Content: "echo hello"}}},
		{"prose then a bare block then a command", "```shell\nls\n```\nIt printed:\n```\na.txt\n```\nso now\n```shell\nrm a.txt\n```\n",
			[]use{{Tool: "shell", Args: []string{}, Content: "ls"}, {Tool: "shell", Args: []string{}, Content: "rm a.txt"}}},
		{"the output block names a destructive command", "```shell\ngit status\n```\nExpected output:\n```\nrm -rf / # would be run as part of the command\n```\n",
			[]use{{Tool: "shell", Args: []string{}, Content: "git status"}}},
		{"ipython then output", "```ipython\nprint(1)\n```\nOutput:\n```\n1\n```\n",
			[]use{{Tool: "ipython", Args: []string{}, Content: "print(1)"}}},
		{"patch then prose", "```patch a.go\n<<<<<<< ORIGINAL\nx\n=======\ny\n>>>>>>> UPDATED\n```\nThen the tests:\n```\nok\n```\n",
			[]use{{Tool: "patch", Args: []string{"a.go"}, Content: "<<<<<<< ORIGINAL\nx\n=======\ny\n>>>>>>> UPDATED"}}},
		{"save of code then prose", "```save a.py\nprint(1)\n```\nSaved. It prints:\n```\n1\n```",
			[]use{{Tool: "save", Args: []string{"a.py"}, Content: "print(1)"}}},
		{"a shell tag ending in .md is no document", "```shell cat README.md\n```\nThe README says:\n```\n# T\n```\n",
			[]use{{Tool: "shell", Args: []string{"cat", "README.md"}, Content: ""}}},
		{"close with trailing spaces before text", "```shell\nls\n```  \nDone.",
			[]use{{Tool: "shell", Args: []string{}, Content: "ls"}}},
		{"crlf", "```shell\r\nls\r\n```\r\nDone.\r\n",
			[]use{{Tool: "shell", Args: []string{}, Content: "ls"}}},
		{"tagged nesting still holds in a command", "```shell\ncat > a.md <<'EOF'\n```go\nx\n```\nEOF\n```\nDone.",
			[]use{{Tool: "shell", Args: []string{}, Content: "cat > a.md <<'EOF'\n```go\nx\n```\nEOF"}}},

		// Markdown documents keep their nested bare blocks.
		{"save README.md with a bare block", "```save README.md\n# T\n\nRun:\n```\nmake\n```\n\nDone.\n```\n\nSaved.",
			[]use{{Tool: "save", Args: []string{"README.md"}, Content: "# T\n\nRun:\n```\nmake\n```\n\nDone."}}},
		{"save README.md, bare block right after a heading", "```save README.md\n# T\n```\nmake\n```\nmore\n```\n",
			[]use{{Tool: "save", Args: []string{"README.md"}, Content: "# T\n```\nmake\n```\nmore"}}},
		{"append to a .markdown file", "```append docs/notes.markdown\nSee:\n```\nx\n```\nend\n```\n",
			[]use{{Tool: "append", Args: []string{"docs/notes.markdown"}, Content: "See:\n```\nx\n```\nend"}}},
		{"patch of README.md with bare blocks", "```patch README.md\n<<<<<<< ORIGINAL\n```\nmake\n```\n=======\n```\nmake test\n```\n>>>>>>> UPDATED\n```\n",
			[]use{{Tool: "patch", Args: []string{"README.md"}, Content: "<<<<<<< ORIGINAL\n```\nmake\n```\n=======\n```\nmake test\n```\n>>>>>>> UPDATED"}}},
		{"extension in any case", "```save A.MD\nx\n```\ny\n```\nz\n```\n",
			[]use{{Tool: "save", Args: []string{"A.MD"}, Content: "x\n```\ny\n```\nz"}}},
		{"document closed by a fence before prose, no evidence", "```save README.md\n# T\n```\nI saved the README.\n```shell\nls\n```\n",
			[]use{{Tool: "save", Args: []string{"README.md"}, Content: "# T"}, {Tool: "shell", Args: []string{}, Content: "ls"}}},
		{"save of a .py file does not nest bare fences", "```save a.py\nx = 1\n```\nNow:\n```\nout\n```\n",
			[]use{{Tool: "save", Args: []string{"a.py"}, Content: "x = 1"}}},

		// A longer fence holds shorter ones as content.
		{"four-backtick save holds bare blocks", "````save README.md\n# T\n```\nmake\n```\nDone.\n````\nSaved.",
			[]use{{Tool: "save", Args: []string{"README.md"}, Content: "# T\n```\nmake\n```\nDone."}}},
		{"four-backtick save of code holds bare fences followed by text", "````save a.txt\n```\nliteral\n```\ntext\n````\n",
			[]use{{Tool: "save", Args: []string{"a.txt"}, Content: "```\nliteral\n```\ntext"}}},
		{"shorter tagged fence in a long block is content", "````save a.md\n```go\nx\n````\nthen\n```shell\nls\n```\n",
			[]use{{Tool: "save", Args: []string{"a.md"}, Content: "```go\nx"}, {Tool: "shell", Args: []string{}, Content: "ls"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := parseChecked(t, tc.reply, md)
			if diff := cmp.Diff(tc.want, usesOf(p.ToolUses()), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("tool uses (-want +got):\n%s", diff)
			}
		})
	}
}

// TestBareBlocks checks the blocks, calls or not, around the new close rule.
func TestBareBlocks(t *testing.T) {
	for _, tc := range []struct {
		name  string
		reply string
		want  []wantBlock
	}{
		{"gptme #3697", "```shell\necho hello\n```\nThe exact output is:\n\n```\nhello\n```", []wantBlock{{"shell", "echo hello"}, {"", "hello"}}},
		{"markdown block keeps its nested bare block", "```markdown\nText\n```\ncode\n```\nmore\n```\n", []wantBlock{{"markdown", "Text\n```\ncode\n```\nmore"}}},
		{"a block named by a .md file is a document", "```README.md\nText\n```\ncode\n```\nmore\n```\n", []wantBlock{{"README.md", "Text\n```\ncode\n```\nmore"}}},
		{"python block closes before text", "```python\nprint(1)\n```\nwhich prints\n```\n1\n```\n", []wantBlock{{"python", "print(1)"}, {"", "1"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := parseChecked(t, tc.reply, Options{})
			if diff := cmp.Diff(tc.want, blocksOf(p.Blocks())); diff != "" {
				t.Errorf("blocks (-want +got):\n%s", diff)
			}
		})
	}
}

// TestUnclosedBlockProblem: a block that never closes is named in a
// Problem when it was a call or swallowed one, never lost in silence.
func TestUnclosedBlockProblem(t *testing.T) {
	for _, tc := range []struct {
		name, reply string
		format      tools.Format
		want        []string // substrings of the one Problem; nil for none
	}{
		{"xml: an unclosed block swallows a call", "```\noutput\n<tool-use><shell>ls</shell></tool-use>\n", tools.FormatXML, []string{"<tool-use> call", "not even"}},
		{"xml: fenced calls are no calls", "```text\n```shell\nls\n```\n", tools.FormatXML, nil},
		{"tool: an unclosed block swallows a call", "```\nout\n@shell(c1): {\"command\": \"ls\"}\n", tools.FormatTool, []string{"@shell(c1) call"}},
		{"tool: a decorator is no call", "```python\n@property\ndef f(self): pass\n", tools.FormatTool, nil},
		{"unclosed call", "```shell\nls -la\n", "", []string{"```shell", "never closes", "nothing in it was run"}},
		{"opener at the end", "Running:\n```shell", "", []string{"```shell", "never closes"}},
		{"unclosed block swallows a call", "```\nsome output\n\n```save b.txt\nhi\n```\n", "", []string{"```", "```save b.txt", "not even"}},
		{"unclosed document", "```save README.md\n# T\n```\nx\n```\nmore\n", "", []string{"```save README.md", "never closes"}},
		{"four backticks", "````save a.txt\nx\n```\n", "", []string{"line of 4 backticks"}},
		{"unclosed plain block is no problem", "```text\nhi\n", "", nil},
		{"unclosed python block with a decorator is no problem", "```python\n@property\ndef f(self): pass\n", "", nil},
		{"closed blocks are no problem", "```shell\nls\n```\nDone.", "", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := parseChecked(t, tc.reply, Options{Format: tc.format, Lookup: testLookup})
			if tc.want == nil {
				if len(p.Problems()) != 0 {
					t.Errorf("problems = %+v, want none", p.Problems())
				}
				return
			}
			if len(p.Problems()) != 1 {
				t.Fatalf("problems = %+v, want one", p.Problems())
			}
			for _, w := range tc.want {
				if !strings.Contains(p.Problems()[0].Message, w) {
					t.Errorf("problem %q does not say %q", p.Problems()[0].Message, w)
				}
			}
			if got := p.Problems()[0].Start; !strings.HasPrefix(tc.reply[got:], "```") {
				t.Errorf("problem start %d does not point at the opening fence", got)
			}
		})
	}
}
