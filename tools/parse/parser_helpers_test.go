package parse

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// parseChecked parses reply whole and in chunks of several sizes, fails the
// test unless every way gives the same result and streaming never reports
// what the whole parse does not, and returns the whole parse.
func parseChecked(t *testing.T, reply string, opts Options) *Parser {
	t.Helper()
	opts.KeepBlocks = true
	whole := NewParser(opts)
	whole.WriteString(reply)
	whole.Finish()
	for _, size := range []int{1, 2, 3, 7, 16, 64} {
		p := NewParser(opts)
		for i := 0; i < len(reply); i += size {
			p.WriteString(reply[i:min(i+size, len(reply))])
			assertPrefix(t, size, "blocks", p.Blocks(), whole.Blocks())
			assertPrefix(t, size, "tool uses", p.ToolUses(), whole.ToolUses())
		}
		p.Finish()
		if diff := cmp.Diff(whole.Blocks(), p.Blocks()); diff != "" {
			t.Fatalf("blocks fed in %d-byte chunks differ from the whole parse (-whole +chunked):\n%s", size, diff)
		}
		if diff := cmp.Diff(whole.ToolUses(), p.ToolUses()); diff != "" {
			t.Fatalf("tool uses fed in %d-byte chunks differ from the whole parse (-whole +chunked):\n%s", size, diff)
		}
		if diff := cmp.Diff(whole.Problems(), p.Problems()); diff != "" {
			t.Fatalf("problems fed in %d-byte chunks differ from the whole parse (-whole +chunked):\n%s", size, diff)
		}
	}
	return whole
}

// assertPrefix fails unless got (a streaming result) is a prefix of want
// (the final one): what streaming reports is never retracted.
func assertPrefix[T any](t *testing.T, size int, what string, got, want []T) {
	t.Helper()
	if len(got) > len(want) {
		t.Fatalf("streaming in %d-byte chunks reported %d %s, the whole parse only %d:\n%s", size, len(got), what, len(want), cmp.Diff(want, got))
	}
	if diff := cmp.Diff(want[:len(got)], got, cmpopts.EquateEmpty()); diff != "" {
		t.Fatalf("streaming in %d-byte chunks reported %s that the whole parse does not (-whole +streaming):\n%s", size, what, diff)
	}
}
