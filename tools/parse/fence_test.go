package parse

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

type wantBlock struct{ Lang, Content string }

func blocksOf(bs []Block) []wantBlock {
	out := []wantBlock{}
	for _, b := range bs {
		out = append(out, wantBlock{b.Lang, b.Content})
	}
	return out
}

func TestFenceRules(t *testing.T) {
	for _, tc := range []struct {
		name  string
		reply string
		opts  Options
		want  []wantBlock
	}{
		{"basic", "Run this:\n```python\nprint(1)\n```\n\nok", nil2(), []wantBlock{{"python", "print(1)"}}},
		{"two blocks and prose", "a\n```sh\nls\n```\n\nthen\n```sh\npwd\n```\n", nil2(), []wantBlock{{"sh", "ls"}, {"sh", "pwd"}}},
		{"empty block", "```a\n```", nil2(), []wantBlock{{"a", ""}}},
		{"no lang", "```\nx\n```", nil2(), []wantBlock{{"", "x"}}},
		{"internal blank lines kept", "```a\n\nx\n\n\ny\n\n```", nil2(), []wantBlock{{"a", "\nx\n\n\ny\n"}}},
		{"lang trimmed", "```   patch  a.go  \nx\n```", nil2(), []wantBlock{{"patch  a.go", "x"}}},
		{"unclosed block dropped", "```a\nx\n", nil2(), []wantBlock{}},
		{"unclosed block swallows the rest", "```a\nx\n\n```b\ny\n", nil2(), []wantBlock{}},
		{"opener at the very end", "text\n```a", nil2(), []wantBlock{}},
		{"nested block with lang", "```markdown\n# x\n```python\nprint()\n```\n```", nil2(),
			[]wantBlock{{"markdown", "# x\n```python\nprint()\n```"}}},
		{"nested bare opener confirmed by lookahead in a document", "```md\nText\n```\ncode\n```\nmore\n```", nil2(),
			[]wantBlock{{"md", "Text\n```\ncode\n```\nmore"}}},
		{"longer fence holds shorter", "````md\n```go\nx\n```\n````", nil2(), []wantBlock{{"md", "```go\nx\n```"}}},
		{"bare fence of another length is content", "````a\n```\nx\n````", nil2(), []wantBlock{{"a", "```\nx"}}},
		{"five backticks", "`````a\n````\n```\n`````\n", nil2(), []wantBlock{{"a", "````\n```"}}},
		{"close then text closes", "```sh\nls\n```\nDone.", nil2(), []wantBlock{{"sh", "ls"}}},
		{"close then text closes, the later fence opens", "```a\nx\n```\ny\n```", nil2(), []wantBlock{{"a", "x"}}},
		{"document: close then text without evidence closes", "```md\nx\n```\ny\n```", nil2(), []wantBlock{{"md", "x"}}},
		{"close, blank, text", "```sh\nls\n```\n\nDone.", nil2(), []wantBlock{{"sh", "ls"}}},
		{"close then fence", "```a\nx\n```\n```b\ny\n```", nil2(), []wantBlock{{"a", "x"}, {"b", "y"}}},
		{"close with trailing spaces", "```a\nx\n```  \t\n", nil2(), []wantBlock{{"a", "x"}}},
		{"glued fences", "```a\nx\n``````b\ny\n```", nil2(), []wantBlock{{"a", "x"}, {"b", "y"}}},
		{"glued fence at the start repaired", "``````patch b.py\nx\n```", nil2(), []wantBlock{{"patch b.py", "x"}}},
		{"six bare backticks are content", "```a\n``````\n```", nil2(), []wantBlock{{"a", "``````"}}},
		{"indented fence is text", "  ```a\nx\n  ```\n", nil2(), []wantBlock{}},
		{"tilde fence is text", "~~~a\nx\n~~~\n", nil2(), []wantBlock{}},
		{"fence mid-line is text", "see ```a\nx\n```\n", nil2(), []wantBlock{}},
		{"quote after backticks does not nest", "```a\n```\"x\n```", nil2(), []wantBlock{{"a", "```\"x"}}},
		{"unfinished nesting dropped", "```md\n```sh\nls\n```", nil2(), []wantBlock{}},
		{"nested close of any length", "```md\n```sh\nls\n`````\n```", nil2(), []wantBlock{{"md", "```sh\nls\n`````"}}},
		{"lookahead stops at a tagged fence", "```md\nx\n```\ny\n```go\nz\n```\n\n", nil2(), []wantBlock{{"md", "x"}, {"go", "z"}}},
		{"crlf kept in content", "```a\r\nx\r\ny\r\n```\r\n", nil2(), []wantBlock{{"a", "x\r\ny"}}},
		{"unicode", "```go\nfmt.Println(\"héllo 🌍\")\n```", nil2(), []wantBlock{{"go", "fmt.Println(\"héllo 🌍\")"}}},

		// Thinking sections.
		{"think section skipped", "<think>\n```shell\nrm -rf /\n```\n</think>\n```shell\nls\n```", nil2(), []wantBlock{{"shell", "ls"}}},
		{"thinking tag", "<thinking>\n```shell\nrm\n```\n</thinking>\n```shell\nls\n```", nil2(), []wantBlock{{"shell", "ls"}}},
		{"think closes only with its own tag", "<thinking>\n</think>\n```shell\nrm\n```\n</thinking>\n```shell\nls\n```", nil2(), []wantBlock{{"shell", "ls"}}},
		{"second think section skipped too", "<think>a</think>\n```shell\nls\n```\n\n<think>\n```shell\nrm\n```\n</think>", nil2(), []wantBlock{{"shell", "ls"}}},
		{"stray </think> in code is code", "```shell\necho '</think>'\n```\n\n```shell\nls\n```", nil2(), []wantBlock{{"shell", "echo '</think>'"}, {"shell", "ls"}}},
		{"blocks before a think section kept", "```shell\nls\n```\n<think>\nhmm\n</think>\n```shell\npwd\n```", nil2(), []wantBlock{{"shell", "ls"}, {"shell", "pwd"}}},
		{"unclosed think hides only what follows", "```shell\nls\n```\n<think>\n```shell\nrm\n```", nil2(), []wantBlock{{"shell", "ls"}}},
		{"glued think closes the block", "```shell\nls\n```<think>\nfoo\n</think>\n```shell\npwd\n```", nil2(), []wantBlock{{"shell", "ls"}, {"shell", "pwd"}}},
		{"think mid-line is text", "text <think>\n```a\nx\n```", nil2(), []wantBlock{{"a", "x"}}},
		{"text after </think> starts a line", "<think>hmm</think>```shell\nls\n```", nil2(), []wantBlock{{"shell", "ls"}}},
		{"headless </think> ends thinking begun without its tag", "```shell\nls\n```\n\n</think>\n```shell\npwd\n```", nil2(), []wantBlock{{"shell", "pwd"}}},
		{"headless </think> is text with TaggedThinking", "```shell\nls\n```\n\n</think>\n```shell\npwd\n```", Options{TaggedThinking: true}, []wantBlock{{"shell", "ls"}, {"shell", "pwd"}}},
		{"reply that starts in thinking", "so ```shell\n```shell\nrm\n```\n</think>\n```shell\nls\n```", Options{StartInThinking: true}, []wantBlock{{"shell", "ls"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := parseChecked(t, tc.reply, tc.opts)
			if diff := cmp.Diff(tc.want, blocksOf(p.Blocks())); diff != "" {
				t.Errorf("blocks (-want +got):\n%s", diff)
			}
			for _, b := range p.Blocks() {
				if got := tc.reply[b.ContentStart:b.ContentEnd]; got != b.Content {
					t.Errorf("content %q is not reply[%d:%d] = %q", b.Content, b.ContentStart, b.ContentEnd, got)
				}
				if !strings.HasPrefix(tc.reply[b.Start:], "```") {
					t.Errorf("block start %d does not point at a fence: %q", b.Start, tc.reply[b.Start:])
				}
			}
		})
	}
}

func nil2() Options { return Options{} }

// TestFenceStreaming checks when a block becomes certain while the reply
// streams: only once no later text can change it.
func TestFenceStreaming(t *testing.T) {
	for _, tc := range []struct {
		name  string
		reply string
		want  int // blocks certain before Finish
	}{
		{"closing fence at the end", "```a\nx\n```", 0},
		{"closing fence and newline", "```sh\nx\n```\n", 1},
		// A block that runs nothing waits for the line after its fence:
		// text there may be a nested block's.
		{"plain block: closing fence and newline", "```a\nx\n```\n", 0},
		{"closing fence, line not ended", "```a\nx\n```", 0},
		{"document: closing fence and newline", "```md\nx\n```\n", 0},
		{"document: closing fence and text line", "```md\nx\n```\nDone.\n", 0},
		{"closing fence and blank line", "```a\nx\n```\n\n", 1},
		{"closing fence and text line", "```sh\nx\n```\nDone.\n", 1},
		{"plain block: closing fence and text line, lookahead pending", "```a\nx\n```\nDone.\n", 0},
		{"closing fence and another fence", "```a\nx\n```\n```b\n", 1},
		{"closing fence, partial next line", "```sh\nx\n```\nDo", 1},
		{"document: closing fence, partial next line", "```md\nx\n```\nDo", 0},
		{"nested opener confirmed, outer still open", "```md\nT\n```\ncode\n```\nmore\n```\n\n", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := NewParser(Options{KeepBlocks: true, TaggedThinking: true})
			p.WriteString(tc.reply)
			if got := len(p.Blocks()); got != tc.want {
				t.Errorf("streaming: %d blocks, want %d", got, tc.want)
			}
		})
	}
}

func TestLookaheadLimits(t *testing.T) {
	// In a document, a later bare fence more than 19 lines away is no
	// evidence of nesting: the fence closes the document.
	far := "```md\nx\n```\ntext\n" + strings.Repeat("filler\n", 19) + "```\nmore\n```"
	p := parseChecked(t, far, Options{})
	if diff := cmp.Diff([]wantBlock{{"md", "x"}, {"", "more"}}, blocksOf(p.Blocks())); diff != "" {
		t.Errorf("far fence (-want +got):\n%s", diff)
	}
	// Within 19 lines it is.
	near := "```md\nx\n```\ntext\n" + strings.Repeat("filler\n", 17) + "```\nmore\n```"
	p = parseChecked(t, near, Options{})
	if diff := cmp.Diff([]wantBlock{{"md", "x\n```\ntext\n" + strings.Repeat("filler\n", 17) + "```\nmore"}}, blocksOf(p.Blocks())); diff != "" {
		t.Errorf("near fence (-want +got):\n%s", diff)
	}
	// A bare fence followed by five blank lines then text is not evidence.
	blank := "```md\nx\n```\ntext\n```\n\n\n\n\nmore\n```"
	p = parseChecked(t, blank, Options{})
	if diff := cmp.Diff([]wantBlock{{"md", "x"}, {"", "\n\n\n\nmore"}}, blocksOf(p.Blocks())); diff != "" {
		t.Errorf("blank-separated fence (-want +got):\n%s", diff)
	}
}
