package parse

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestNestedFenceShapes parses replies whose blocks hold fenced blocks
// (testdata/nested, written for agentls) and requires the blocks gptme
// extracts from the same fence layout, whole: a save or append keeps a
// bare block it holds whatever its path's extension, and a block that runs
// nothing (```outer, a Python string holding fences) keeps its nested
// blocks. Each fixture has the fence layout of one of gptme's tests in
// tests/test_codeblock.py (named in the case's comment): the same fences,
// nesting and blank lines, in words of our own. Only a reply's complete
// parse is compared: gptme's streaming variants ask for no block until a
// blank line follows the last fence, where agentls reports a block as soon
// as nothing later can change it (stream_test.go).
func TestNestedFenceShapes(t *testing.T) {
	for _, tc := range []struct {
		name string // the fixture's name
		want []wantBlock
	}{
		// The eight of issue 25.
		// gptme: test_save_with_structure_header_and_bare_backticks
		{"save-label-bare-fence-as-text", []wantBlock{{"save plan.txt",
			"A plan for the garden, split into parts.\n\nSeeds go in during the first week of April.\n\n**Layout:**\n```\nTomatoes along the south wall, beans beside them.\n\n## Watering\nTwice a week unless it rains."}}},
		// gptme: test_append_with_markdown_header_and_bare_backticks
		{"append-heading-bare-fence-as-text", []wantBlock{{"append diary.md",
			"# Tuesday\n\nThe build went green at last.\n\n## Notes\n```\nThe flaky test now waits on a channel instead of a timer.\n\n## Next\nReview the cache change."}}},
		// gptme: test_save_with_bold_text_and_bare_backticks
		{"save-label-bare-fence-then-python", []wantBlock{{"save recipe.md",
			"# Pancakes\n\nServes four.\n\n**Batter:**\n```\nWhisk the flour, milk and two eggs.\n\n**Scaling Helper:**\n```python\n# double the amounts\ndef scale(n):\n    return n * 2\n```\n\nServe warm."}}},
		// gptme: test_bare_backticks_in_string_literals
		{"python-string-holding-fences", []wantBlock{{"python",
			"doc = '''\n```\nOnly text inside a string literal\n```\n'''"}}},
		// gptme closes at the fence a fence follows and drops the last,
		// an opener at the end; so does agentls (a bare block is no call).
		// gptme: test_consecutive_bare_nested_blocks
		{"plain-bare-fences-back-to-back", []wantBlock{{"outer",
			"```\nAlpha part (bare)\n```\nBeta part (bare)"}}},
		// gptme: test_bare_backticks_open_nested_at_depth_1
		{"plain-text-then-bare-nested", []wantBlock{{"outer",
			"A line or two first\n```\nA bare block opened one level down\n```\nTrailing text"}}},
		// gptme: test_mixed_nested_blocks
		{"plain-python-then-bare-nested", []wantBlock{{"outer",
			"```python\nprint(\"hi there\")\n```\nMiddle\n```\nPlain nested lines\n```\nEnd"}}},
		// gptme: test_bare_backticks_followed_by_content_opens_nested
		{"plain-bare-fence-right-after-text", []wantBlock{{"outer",
			"Lead-in line\n```\nNested text with no blank line above it\n```\nClosing line"}}},

		// A save or append whose nested block's close a blank line follows
		// (the issue's own example is this shape).
		// gptme: test_save_with_nested_bare_backtick_block
		{"save-heading-blank-bare-block", []wantBlock{{"save outline.txt",
			"# Outline\n\nDraft\n\n## Diagram\n\n```\n[box sketch of the modules - a block with no language tag]\n```\n\n## Closing part\nNothing more"}}},
		// gptme: test_extract_codeblocks_nested_without_lang
		{"append-label-bare-block", []wantBlock{{"append notes/day.md",
			"# Daily Log\n\n**Result Shape:**\n```\nname: count\n```\n\nFinished!"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			reply := readFixture(t, filepath.Join("testdata", "nested", tc.name+".md"))
			p := parseChecked(t, reply, Options{Lookup: testLookup})
			if diff := cmp.Diff(tc.want, blocksOf(p.Blocks())); diff != "" {
				t.Errorf("blocks (-gptme's reading +agentls):\n%s", diff)
			}
			if len(p.Problems()) != 0 {
				t.Errorf("problems: %+v", p.Problems())
			}
		})
	}
}

// TestNestedFenceReplies parses two longer replies with the fence layout
// of gptme's recorded replies (tests/data/example-interrupted.txt and
// example-patch-codeblock.txt): an append cut off by an interruption after
// a bare fence, which gptme's complete parse extracts up to that fence, and
// a patch whose hunks hold ```text blocks.
func TestNestedFenceReplies(t *testing.T) {
	t.Run("append-interrupted-after-bare-fence", func(t *testing.T) {
		reply := readFixture(t, filepath.Join("testdata", "nested", "append-interrupted-after-bare-fence.txt"))
		reply = reply[strings.Index(reply, "```append"):] // as gptme's test cuts its reply
		p := parseChecked(t, reply, Options{Lookup: testLookup})
		uses := p.ToolUses()
		if len(uses) != 1 || uses[0].Tool != "append" || !strings.Contains(uses[0].Content, "Log Entry") ||
			!strings.HasSuffix(uses[0].Content, "**Sample Output:**") {
			t.Errorf("uses = %+v", uses)
		}
	})
	t.Run("patch-hunks-holding-text-blocks", func(t *testing.T) {
		reply := readFixture(t, filepath.Join("testdata", "nested", "patch-hunks-holding-text-blocks.txt"))
		p := parseChecked(t, reply, Options{Lookup: testLookup})
		uses := p.ToolUses()
		if len(uses) != 1 || uses[0].Tool != "patch" || strings.Count(uses[0].Content, "```text") != 2 ||
			!strings.HasSuffix(uses[0].Content, ">>>>>>> UPDATED") {
			t.Errorf("uses = %+v", uses)
		}
	})
}

func readFixture(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
