package parse

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentls/agentls/tools"
	"github.com/google/go-cmp/cmp"
)

// streamCorpus returns the replies the streaming tests feed in chunks: the
// fixtures of testdata/replies, and generated replies long enough that the
// parser's buffer fills, is reused and grows many times, with blocks,
// calls and lines cut at every chunk boundary.
func streamCorpus(t *testing.T) map[string]string {
	t.Helper()
	corpus := map[string]string{}
	paths, err := filepath.Glob(filepath.Join("testdata", "replies", "*.txt"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	for _, path := range paths {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		corpus[filepath.Base(path)] = string(b)
	}
	for _, format := range tools.AllFormats() {
		corpus[fmt.Sprintf("bench-%s", format)] = benchReply(format, 64<<10)
	}
	corpus["realistic"] = realisticReply(256 << 10)
	// A block longer than the buffer's first size, CRLF line endings, and a
	// long line without a newline: the line search resumes across writes.
	long := "Saving it:\r\n```save big.txt\r\n"
	for i := range 3000 {
		long += fmt.Sprintf("line %d of a block the parser must hold whole\r\n", i)
	}
	long += "```\r\n\r\n```shell\r\n"
	for range 2000 {
		long += "echo one long line "
	}
	corpus["long-block-crlf"] = long + "\r\n```\r\nDone."
	return corpus
}

// TestChunkedParseMatchesWhole feeds every reply of streamCorpus in chunks
// of 1, 3, 16 and 4096 bytes and in one piece, through Write and through WriteString (which
// shares a chunk's memory when the parser holds nothing else), in every
// format and thinking mode, and requires exactly the whole parse's blocks,
// tool uses and problems — and, after each chunk, nothing the whole parse
// does not report.
func TestChunkedParseMatchesWhole(t *testing.T) {
	corpus := streamCorpus(t)
	thinking := map[string]Options{
		"headless-possible": {},
		"start-in-thinking": {StartInThinking: true},
		"tagged-thinking":   {TaggedThinking: true},
	}
	for name, reply := range corpus {
		for _, format := range tools.AllFormats() {
			for mode, th := range thinking {
				opts := th
				opts.Format, opts.Lookup, opts.KeepBlocks = format, testLookup, true
				whole := NewParser(opts)
				whole.WriteString(reply)
				whole.Finish()
				for _, size := range []int{1, 3, 16, 4096, len(reply)} {
					if size == 1 && len(reply) > 100_000 && mode != "headless-possible" {
						continue // the same byte-at-a-time path, three times slower under -race
					}
					chunks := fmt.Sprint(size)
					if size == len(reply) {
						chunks = "one-piece"
					}
					for _, viaString := range []bool{false, true} {
						t.Run(fmt.Sprintf("%s/%s/%s/%s/string=%v", name, format, mode, chunks, viaString), func(t *testing.T) {
							p := NewParser(opts)
							for i := 0; i < len(reply); i += size {
								chunk := reply[i:min(i+size, len(reply))]
								if viaString {
									p.WriteString(chunk)
								} else {
									p.Write([]byte(chunk))
								}
								if len(p.Blocks()) > len(whole.Blocks()) || len(p.ToolUses()) > len(whole.ToolUses()) {
									t.Fatalf("after %d bytes streaming reported %d blocks and %d tool uses, the whole parse only %d and %d", i+len(chunk), len(p.Blocks()), len(p.ToolUses()), len(whole.Blocks()), len(whole.ToolUses()))
								}
							}
							p.Finish()
							if diff := cmp.Diff(whole.Blocks(), p.Blocks()); diff != "" {
								t.Fatalf("blocks differ from the whole parse (-whole +chunked):\n%s", diff)
							}
							if diff := cmp.Diff(whole.ToolUses(), p.ToolUses()); diff != "" {
								t.Fatalf("tool uses differ from the whole parse (-whole +chunked):\n%s", diff)
							}
							if diff := cmp.Diff(whole.Problems(), p.Problems()); diff != "" {
								t.Fatalf("problems differ from the whole parse (-whole +chunked):\n%s", diff)
							}
						})
					}
				}
			}
		}
	}
}
