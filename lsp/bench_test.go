package lsp_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/lsp/lsptest"
)

func bigGo(lines int) string {
	var b strings.Builder
	b.WriteString("package p\n\n")
	for i := range lines {
		fmt.Fprintf(&b, "func f%d() int { return %d }\n", i, i)
	}
	return b.String()
}

// BenchmarkCodeAction measures a code-action request on a 50,000-line
// document end to end (pipe, JSON, server), with a selection of a few
// lines; it reports the p99 latency too.
func BenchmarkCodeAction(b *testing.B) {
	// A 50k-line reply pasted into a Markdown buffer: with an empty range
	// the whole document is the reply, so it is what codeAction reads.
	var reply strings.Builder
	for i := 0; reply.Len() < 2<<20 && i < 50_000/12; i++ {
		fmt.Fprintf(&reply, "Step %d.\n\n```patch f%d.go\n<<<<<<< ORIGINAL\nvar x = %d\n=======\nvar x = %d\n>>>>>>> UPDATED\n```\n\n", i, i%7, i, i+1)
	}
	cases := []struct {
		name, file, lang, text string
		r                      protocol.Range
		typeFirst              bool // a keystroke before each request
	}{
		{"go-50k-lines-selection", "big.go", "go", bigGo(50_000), protocol.Range{Start: protocol.Position{Line: 25_000}, End: protocol.Position{Line: 25_004}}, false},
		{"markdown-reply-50k-lines", "reply.md", "markdown", reply.String(), protocol.Range{}, false},
		{"markdown-reply-50k-lines-after-keystroke", "reply.md", "markdown", reply.String(), protocol.Range{}, true},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			root := writeFiles(b, map[string]string{c.file: c.text})
			e := lsptest.Start(b, root, lsptest.VSCode())
			e.OpenFile(c.file, c.lang)
			var lat []time.Duration
			for i := 0; b.Loop(); i++ {
				if c.typeFirst {
					e.TypeAt(c.file, 0, 0, "x")
				}
				start := time.Now()
				e.CodeActions(c.file, c.r)
				lat = append(lat, time.Since(start))
			}
			b.ReportMetric(float64(p99(lat).Microseconds()), "p99-µs")
		})
	}
}

func p99(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	sorted := slices.Sorted(slices.Values(ds))
	return sorted[len(sorted)*99/100]
}

// pendingReply is a reply changing hunks lines of bigGo(lines), evenly
// spread: in review mode each becomes one pending hunk.
func pendingReply(lines, hunks int) string {
	var b strings.Builder
	for i := range hunks {
		n := (i*lines/hunks + lines/(2*hunks)) % lines
		fmt.Fprintf(&b, "```patch big.go\n<<<<<<< ORIGINAL\nfunc f%d() int { return %d }\n=======\nfunc f%d() int { return %d + 1 }\n>>>>>>> UPDATED\n```\n\n", n, n, n, n)
	}
	return b.String()
}

// BenchmarkCodeActionPendingHunks measures a code-action request end to
// end on a Go file holding 100 pending review hunks, with a selection of
// a few lines around one of them, in files of growing size: the hunks
// there are found in the review store's line index, so it should not grow
// with the file. It reports the p99 latency too.
func BenchmarkCodeActionPendingHunks(b *testing.B) {
	const hunks = 100
	for _, lines := range []int{1_000, 10_000, 50_000} {
		b.Run(fmt.Sprintf("%dlines", lines), func(b *testing.B) {
			root := writeFiles(b, map[string]string{"big.go": bigGo(lines)})
			e := lsptest.Start(b, root, lsptest.VSCode(), lsptest.InitOptions(map[string]any{"applyMode": "review"}))
			e.OpenFile("big.go", "go")
			e.ExecuteCommand("agentls.applyReply", map[string]any{"text": pendingReply(lines, hunks)})
			e.Await(lsptest.DiagnosticsCount(hunks, lsptest.ForFile("big.go"), lsptest.WithCode("pending-edit")))
			middle := e.Diagnostics("big.go")[hunks/2].Range
			r := protocol.Range{Start: protocol.Position{Line: middle.Start.Line - 2}, End: protocol.Position{Line: middle.End.Line + 2}}
			if findAction(e.CodeActions("big.go", r), "Accept agent edit") == nil {
				b.Fatal("no accept action on the pending hunk")
			}
			var lat []time.Duration
			for b.Loop() {
				start := time.Now()
				e.CodeActions("big.go", r)
				lat = append(lat, time.Since(start))
			}
			b.ReportMetric(float64(p99(lat).Microseconds()), "p99-µs")
		})
	}
}
