package parse

import (
	"strings"
	"testing"
)

// TestCutShortReported: a content block that one reading of its fences
// holds a nested block the reply never finished — the fence is announced
// by a heading or a label and never closes, or the block's only pairing
// ends at the reply's last fence with text after it — is withheld: not
// run, not listed, and named in a Problem telling the model to write it
// again between longer fences. gptme's parser reads these replies as
// holding no block (its test_codeblock.py's three prefixes of
// test_save_with_structure_header_and_bare_backticks), and a file is
// never written cut short. A bare fence with prose right after it that
// nothing announced closes the block, the most common reply there is.
func TestCutShortReported(t *testing.T) {
	for _, tc := range []struct {
		name, reply string
		cut         bool   // withheld with a Problem
		content     string // else: the save's content
	}{
		{"cut inside the nested block", "Let's call save:\n\n```save notes.txt\n# Title\n\n## Structure\n\n```\ntree listing\n", true, ""},
		{"cut inside the nested block after a label", "```save notes.txt\nIntro\n\n**Tree:**\n\n```\nsrc/\n", true, ""},
		{"cut after the nested block", "Let's call save:\n\n```save notes.txt\n# Title\n\n## Structure\n\n```\ntree listing\n```\n\n## Last section\n", true, ""},
		{"cut after more text", "```save notes.txt\n# Title\n\n## Structure\n\n```\ntree listing\n```\n\n## Last section\nThat's all\n", true, ""},
		{"prose after the save", "```save a.txt\n# T\n```\nmore\n```\nSaved.\n", true, ""},
		{"nothing after the last fence", "```save a.txt\n# T\n**Structure:**\n```\nmore\n## End\n```", false, "# T\n**Structure:**\n```\nmore\n## End"},
		{"prose right after the close", "```save a.py\nprint(1)\n```\nDone! I saved it.\n", false, "print(1)"},
		{"a heading-only file, prose right after", "```save README.md\n# Project\n```\nDone.\n", false, "# Project"},
		{"code ending in a blank line, prose after", "```save a.py\nx = 1\n\n```\nDone.\n", false, "x = 1\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := parseChecked(t, tc.reply, Options{Lookup: testLookup, KeepBlocks: true})
			var said []Problem
			for _, pr := range p.Problems() {
				if strings.Contains(pr.Message, "was not run") {
					said = append(said, pr)
				}
			}
			if tc.cut != (len(said) == 1) {
				t.Fatalf("problems = %+v, want withheld %v", p.Problems(), tc.cut)
			}
			uses := p.ToolUses()
			if tc.cut {
				if len(uses) != 0 || len(p.Blocks()) != 0 {
					t.Errorf("a withheld block was run or listed: uses %+v, blocks %+v", uses, p.Blocks())
				}
				if !strings.HasPrefix(tc.reply[said[0].Start:], "```save") {
					t.Errorf("the problem starts at %d, not at the block's fence", said[0].Start)
				}
				if !strings.Contains(said[0].Message, "````save") {
					t.Errorf("the problem does not say how to write it again: %s", said[0].Message)
				}
				return
			}
			if len(uses) != 1 || uses[0].Content != tc.content {
				t.Errorf("uses = %+v, want one save of %q", uses, tc.content)
			}
		})
	}
}
