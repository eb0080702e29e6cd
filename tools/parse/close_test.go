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
// and the output became part of the command. A content block (save,
// append, patch) instead keeps the blocks it holds when the fences after
// it pair up only so; where they pair either way, it holds the lines
// before the fence and a Problem names it (ambiguous).
func TestFenceClosesBeforeText(t *testing.T) {
	md := Options{Lookup: testLookup}
	for _, tc := range []struct {
		name      string
		reply     string
		want      []use
		ambiguous bool // one Problem says the block may be cut short
	}{
		{"gptme #3697", "```shell\necho hello\n```\nThe exact output is:\n\n```\nhello\n```",
			[]use{{Tool: "shell", Args: []string{}, Content: "echo hello"}}, false},
		{"prose then a bare block then a command", "```shell\nls\n```\nIt printed:\n```\na.txt\n```\nso now\n```shell\nrm a.txt\n```\n",
			[]use{{Tool: "shell", Args: []string{}, Content: "ls"}, {Tool: "shell", Args: []string{}, Content: "rm a.txt"}}, false},
		{"the output block names a destructive command", "```shell\ngit status\n```\nExpected output:\n```\nrm -rf / # would be run as part of the command\n```\n",
			[]use{{Tool: "shell", Args: []string{}, Content: "git status"}}, false},
		{"ipython then output", "```ipython\nprint(1)\n```\nOutput:\n```\n1\n```\n",
			[]use{{Tool: "ipython", Args: []string{}, Content: "print(1)"}}, false},
		{"patch then prose", "```patch a.go\n<<<<<<< ORIGINAL\nx\n=======\ny\n>>>>>>> UPDATED\n```\nThen the tests:\n```\nok\n```\n",
			[]use{{Tool: "patch", Args: []string{"a.go"}, Content: "<<<<<<< ORIGINAL\nx\n=======\ny\n>>>>>>> UPDATED"}}, false},
		// The fences pair whether the fence closes the save or opens a
		// block in it: only the lines before it are written, and the model
		// is told.
		{"save of code then prose", "```save a.py\nprint(1)\n```\nSaved. It prints:\n```\n1\n```",
			[]use{{Tool: "save", Args: []string{"a.py"}, Content: "print(1)"}}, true},
		{"a shell tag ending in .md is no document", "```shell cat README.md\n```\nThe README says:\n```\n# T\n```\n",
			[]use{{Tool: "shell", Args: []string{"cat", "README.md"}, Content: ""}}, false},
		{"close with trailing spaces before text", "```shell\nls\n```  \nDone.",
			[]use{{Tool: "shell", Args: []string{}, Content: "ls"}}, false},
		{"crlf", "```shell\r\nls\r\n```\r\nDone.\r\n",
			[]use{{Tool: "shell", Args: []string{}, Content: "ls"}}, false},
		{"tagged nesting still holds in a command", "```shell\ncat > a.md <<'EOF'\n```go\nx\n```\nEOF\n```\nDone.",
			[]use{{Tool: "shell", Args: []string{}, Content: "cat > a.md <<'EOF'\n```go\nx\n```\nEOF"}}, false},

		// Content blocks keep the bare blocks they hold when the fences
		// after them pair up only so, whatever the extension.
		{"save README.md with a bare block", "```save README.md\n# T\n\nRun:\n```\nmake\n```\n\nDone.\n```\n\nSaved.",
			[]use{{Tool: "save", Args: []string{"README.md"}, Content: "# T\n\nRun:\n```\nmake\n```\n\nDone."}}, false},
		// The same shape as "save of code then prose", but a heading or a
		// label right before the fence announces a block: nested, as
		// gptme's lookahead reads it, whatever the extension.
		{"save README.md, bare block right after a heading", "```save README.md\n# T\n```\nmake\n```\nmore\n```\n",
			[]use{{Tool: "save", Args: []string{"README.md"}, Content: "# T\n```\nmake\n```\nmore"}}, false},
		{"append to a .markdown file", "```append docs/notes.markdown\nSee:\n```\nx\n```\nend\n```\n",
			[]use{{Tool: "append", Args: []string{"docs/notes.markdown"}, Content: "See:\n```\nx\n```\nend"}}, false},
		{"append to a .txt file after a label", "```append notes.txt\n**Output:**\n```\nx\n```\nend\n```\n",
			[]use{{Tool: "append", Args: []string{"notes.txt"}, Content: "**Output:**\n```\nx\n```\nend"}}, false},
		{"append, the nested block's close followed by a blank line", "```append docs/notes.txt\nSee:\n```\nx\n```\n\nend\n```\n",
			[]use{{Tool: "append", Args: []string{"docs/notes.txt"}, Content: "See:\n```\nx\n```\n\nend"}}, false},
		{"patch of README.md with bare blocks", "```patch README.md\n<<<<<<< ORIGINAL\n```\nmake\n```\n=======\n```\nmake test\n```\n>>>>>>> UPDATED\n```\n",
			[]use{{Tool: "patch", Args: []string{"README.md"}, Content: "<<<<<<< ORIGINAL\n```\nmake\n```\n=======\n```\nmake test\n```\n>>>>>>> UPDATED"}}, false},
		{"a lone bare fence in a save of any extension", "```save a.txt\n# T\n**Structure:**\n```\nmore\n## End\n```",
			[]use{{Tool: "save", Args: []string{"a.txt"}, Content: "# T\n**Structure:**\n```\nmore\n## End"}}, false},
		// Its only pairing keeps the fence as text and ends at the last
		// fence with text after it: the reply may have been cut inside a
		// nested block, so nothing is run (TestCutShortReported).
		{"a lone bare fence, then prose after the save", "```save a.txt\n# T\n```\nmore\n```\nSaved.\n",
			nil, false},
		{"save then prose then a call", "```save a.py\nx\n```\nNow run it:\n```shell\npython a.py\n```\n",
			[]use{{Tool: "save", Args: []string{"a.py"}, Content: "x"}, {Tool: "shell", Args: []string{}, Content: "python a.py"}}, false},
		{"save holds a tagged block after a lone bare fence", "```save notes.txt\nA\n```\nB\n```go\nx\n```\n\nC\n```\n",
			[]use{{Tool: "save", Args: []string{"notes.txt"}, Content: "A\n```\nB\n```go\nx\n```\n\nC"}}, false},
		{"patch then prose is complete at its fence", "```patch a.go\n<<<<<<< ORIGINAL\nx\n=======\ny\n>>>>>>> UPDATED\n```\nIt prints:\n```\nok\n```\n",
			[]use{{Tool: "patch", Args: []string{"a.go"}, Content: "<<<<<<< ORIGINAL\nx\n=======\ny\n>>>>>>> UPDATED"}}, false},
		{"apply_patch is complete at its End Patch", "```apply_patch\n*** Begin Patch\n*** Update File: a.md\n@@\n-```\n+```text\n*** End Patch\n```\nDone:\n```\nok\n```\n",
			[]use{{Tool: "apply_patch", Args: []string{}, Content: "*** Begin Patch\n*** Update File: a.md\n@@\n-```\n+```text\n*** End Patch"}}, false},
		{"document closed by a fence before prose, no evidence", "```save README.md\n# T\n```\nI saved the README.\n```shell\nls\n```\n",
			[]use{{Tool: "save", Args: []string{"README.md"}, Content: "# T"}, {Tool: "shell", Args: []string{}, Content: "ls"}}, false},
		{"save of a .py file then prose and output", "```save a.py\nx = 1\n```\nNow:\n```\nout\n```\n",
			[]use{{Tool: "save", Args: []string{"a.py"}, Content: "x = 1"}}, true},

		// A longer fence holds shorter ones as content.
		{"four-backtick save holds bare blocks", "````save README.md\n# T\n```\nmake\n```\nDone.\n````\nSaved.",
			[]use{{Tool: "save", Args: []string{"README.md"}, Content: "# T\n```\nmake\n```\nDone."}}, false},
		{"four-backtick save of code holds bare fences followed by text", "````save a.txt\n```\nliteral\n```\ntext\n````\n",
			[]use{{Tool: "save", Args: []string{"a.txt"}, Content: "```\nliteral\n```\ntext"}}, false},
		{"shorter tagged fence in a long block is content", "````save a.md\n```go\nx\n````\nthen\n```shell\nls\n```\n",
			[]use{{Tool: "save", Args: []string{"a.md"}, Content: "```go\nx"}, {Tool: "shell", Args: []string{}, Content: "ls"}}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := parseChecked(t, tc.reply, md)
			if diff := cmp.Diff(tc.want, usesOf(p.ToolUses()), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("tool uses (-want +got):\n%s", diff)
			}
			checkAmbiguity(t, tc.reply, p.Problems(), tc.ambiguous)
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
		// python is no command here (ipython and py are): a block that runs
		// nothing reads a bare fence followed by text as gptme does, which
		// keeps a Python string holding fences in its block.
		{"python block: the lookahead finds a nested block", "```python\nprint(1)\n```\nwhich prints\n```\n1\n```\n", []wantBlock{{"python", "print(1)\n```\nwhich prints\n```\n1"}}},
		{"sh block closes before text", "```sh\nls\n```\nwhich prints\n```\na\n```\n", []wantBlock{{"sh", "ls"}, {"", "a"}}},
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
		{"unclosed document", "```save README.md\n# T\n\n```go\nx\n", "", []string{"```save README.md", "never closes"}},
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

// checkAmbiguity fails unless problems hold exactly one Problem saying a
// block may be cut short, pointing at its opening fence, when ambiguous,
// and none otherwise.
func checkAmbiguity(t *testing.T, reply string, problems []Problem, ambiguous bool) {
	t.Helper()
	var got []Problem
	for _, pr := range problems {
		if strings.Contains(pr.Message, "may end at the bare fence") {
			got = append(got, pr)
		}
	}
	switch {
	case !ambiguous && len(got) > 0:
		t.Errorf("unexpected ambiguity problem: %+v", got)
	case ambiguous && len(got) != 1:
		t.Errorf("ambiguity problems = %+v, want one", problems)
	case ambiguous && !strings.HasPrefix(reply[got[0].Start:], "```"):
		t.Errorf("problem start %d does not point at a fence", got[0].Start)
	}
}

// TestContentFenceWaitsForEnd: a content block's bare fence followed by
// text is read only once the reply has ended (the fences after it decide),
// so nothing after it is reported while it streams; a fence followed by a
// blank line still closes at once, and so does a command's.
func TestContentFenceWaitsForEnd(t *testing.T) {
	for _, tc := range []struct {
		name   string
		reply  string
		before int // tool uses reported before Finish
		after  []use
	}{
		{"save, fence then text", "```save a.txt\nx\n```\nDone.\n\n```shell\nls\n```\n\n", 0,
			[]use{{Tool: "save", Args: []string{"a.txt"}, Content: "x"}, {Tool: "shell", Args: []string{}, Content: "ls"}}},
		{"save, fence then a blank line", "```save a.txt\nx\n```\n\nDone.\n```shell\nls\n```\n\n", 2,
			[]use{{Tool: "save", Args: []string{"a.txt"}, Content: "x"}, {Tool: "shell", Args: []string{}, Content: "ls"}}},
		{"shell, fence then text", "```shell\nls\n```\nDone.\n", 1,
			[]use{{Tool: "shell", Args: []string{}, Content: "ls"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := NewParser(Options{Lookup: testLookup, TaggedThinking: true})
			p.WriteString(tc.reply)
			if got := len(p.ToolUses()); got != tc.before {
				t.Errorf("%d uses before Finish, want %d", got, tc.before)
			}
			p.Finish()
			if diff := cmp.Diff(tc.after, usesOf(p.ToolUses()), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("tool uses (-want +got):\n%s", diff)
			}
		})
	}
}

// TestGluedMarkerClose: a patch whose last marker has the closing fence
// glued to it (">>>>>>> UPDATED```") ends there, as the marker does in
// edits; anywhere else such a line is content.
func TestGluedMarkerClose(t *testing.T) {
	const hunk = "<<<<<<< ORIGINAL\na\n=======\nb\n>>>>>>> UPDATED"
	for _, tc := range []struct {
		name  string
		reply string
		want  []use
	}{
		{"patch", "```patch a.go\n" + hunk + "```\n\nDone.\n```shell\nls\n```\n",
			[]use{{Tool: "patch", Args: []string{"a.go"}, Content: hunk}, {Tool: "shell", Args: []string{}, Content: "ls"}}},
		{"crlf and trailing spaces", "```patch a.go\r\n<<<<<<< ORIGINAL\r\na\r\n=======\r\nb\r\n>>>>>>> UPDATED```  \r\nDone.",
			[]use{{Tool: "patch", Args: []string{"a.go"}, Content: "<<<<<<< ORIGINAL\r\na\r\n=======\r\nb\r\n>>>>>>> UPDATED"}}},
		{"the marker with noise", "```patch a.go\n" + hunk + " (1)```\n",
			[]use{{Tool: "patch", Args: []string{"a.go"}, Content: hunk + " (1)"}}},
		{"a longer fence is no close of a 3-fence", "```patch a.go\n" + hunk + "````\n```\n",
			[]use{{Tool: "patch", Args: []string{"a.go"}, Content: hunk + "````"}}},
		{"in a save it is content", "```save a.txt\n>>>>>>> UPDATED```\n```\n",
			[]use{{Tool: "save", Args: []string{"a.txt"}, Content: ">>>>>>> UPDATED```"}}},
		{"a quoted line is content", "```patch a.go\n<<<<<<< ORIGINAL\n>>>>> quoted```\n=======\nb\n>>>>>>> UPDATED\n```\n",
			[]use{{Tool: "patch", Args: []string{"a.go"}, Content: "<<<<<<< ORIGINAL\n>>>>> quoted```\n=======\nb\n>>>>>>> UPDATED"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := parseChecked(t, tc.reply, Options{Lookup: testLookup})
			if diff := cmp.Diff(tc.want, usesOf(p.ToolUses()), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("tool uses (-want +got):\n%s", diff)
			}
		})
	}
}
