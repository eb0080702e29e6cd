package lsp

import (
	"fmt"
	"strings"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/edits"
	"github.com/agentls/agentls/lsp/internal/documents"
)

// BenchmarkReplyAround measures what a cursor-sized code-action range
// (no whole block in it) costs beyond the range itself, without the pipe:
// Go code with no fence (a scan for "```"; "new version" has a keystroke
// before each request, so the request joins the new version's text), and the last block of a Markdown
// reply of 10 to 1,000 blocks (the reply parsed to find it).
func BenchmarkReplyAround(b *testing.B) {
	r := func(line int) protocol.Range {
		return protocol.Range{Start: protocol.Position{Line: uint32(line), Character: 4}, End: protocol.Position{Line: uint32(line), Character: 5}}
	}
	for _, lines := range []int{1_000, 10_000, 100_000} {
		var code strings.Builder
		code.WriteString("package p\n\n")
		for i := range lines {
			fmt.Fprintf(&code, "func f%d() int { return %d }\n", i, i)
		}
		text := code.String()
		b.Run(fmt.Sprintf("go/lines=%d/same-version", lines), func(b *testing.B) {
			d := documents.Document{URI: "file:///big.go", Language: "go", Buf: edits.NewBuffer(text)}
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				if got, _ := replyAround(d, r(lines/2), edits.UTF16); got != "" {
					b.Fatal(got)
				}
			}
		})
		b.Run(fmt.Sprintf("go/lines=%d/new-version", lines), func(b *testing.B) {
			// A keystroke before each request: the new version's text is
			// joined once, by this request.
			d := documents.Document{URI: "file:///big.go", Language: "go", Buf: edits.NewBuffer(text)}
			b.SetBytes(int64(len(text)))
			for i := 0; b.Loop(); i++ {
				buf, err := d.Buf.Replace(len(text)/2, len(text)/2+1, string("01"[i%2]))
				if err != nil {
					b.Fatal(err)
				}
				d.Buf = buf
				replyAround(d, r(lines/2), edits.UTF16)
			}
		})
	}
	for _, blocks := range []int{10, 100, 1_000} {
		var reply strings.Builder
		for i := range blocks {
			fmt.Fprintf(&reply, "Step %d.\n\n```patch f%d.go\n<<<<<<< ORIGINAL\nvar x%d = 1\n=======\nvar x%d = 2\n>>>>>>> UPDATED\n```\n\n", i, i, i, i)
		}
		text := reply.String()
		b.Run(fmt.Sprintf("markdown/blocks=%d", blocks), func(b *testing.B) {
			d := documents.Document{URI: "file:///reply.md", Language: "markdown", Buf: edits.NewBuffer(text)}
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				if got, _ := replyAround(d, r(blocks*10-6), edits.UTF16); !strings.HasPrefix(got, "```patch") {
					b.Fatalf("%q", got)
				}
			}
		})
	}
}
