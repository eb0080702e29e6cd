package parse

import (
	"strings"
	"testing"
)

// TestCutShortReported: a content block whose only pairing reading keeps
// a bare fence as a line of its text, and ends at the reply's last fence
// with text after it, is read that way — the fences pair — but named in a
// Problem: the reply may have been cut short inside a nested block, which
// gptme's parser reads as no block at all (its test_codeblock.py's three
// prefixes of test_save_with_structure_header_and_bare_backticks), and
// then the file would be cut short unsaid. With nothing after the last
// fence the block is complete and nothing is said.
func TestCutShortReported(t *testing.T) {
	for _, tc := range []struct {
		name, reply string
		reported    bool
	}{
		{"cut inside the nested block", "Let's call save:\n\n```save notes.txt\n# Title\n\n## Structure\n\n```\ntree listing\n", false},
		{"cut after the nested block", "Let's call save:\n\n```save notes.txt\n# Title\n\n## Structure\n\n```\ntree listing\n```\n\n## Last section\n", true},
		{"cut after more text", "```save notes.txt\n# Title\n\n## Structure\n\n```\ntree listing\n```\n\n## Last section\nThat's all\n", true},
		{"prose after the save", "```save a.txt\n# T\n```\nmore\n```\nSaved.\n", true},
		{"nothing after the last fence", "```save a.txt\n# T\n**Structure:**\n```\nmore\n## End\n```", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := parseChecked(t, tc.reply, Options{Lookup: testLookup})
			var said []Problem
			for _, pr := range p.Problems() {
				if strings.Contains(pr.Message, "with text after it") {
					said = append(said, pr)
				}
			}
			if tc.reported != (len(said) == 1) {
				t.Fatalf("problems = %+v, want reported %v", p.Problems(), tc.reported)
			}
			if tc.reported && !strings.HasPrefix(tc.reply[said[0].Start:], "```save") {
				t.Errorf("the problem starts at %d, not at the block's fence", said[0].Start)
			}
		})
	}
}
