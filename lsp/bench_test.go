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
	root := writeFiles(b, map[string]string{"big.go": bigGo(50_000)})
	e := lsptest.Start(b, root, lsptest.VSCode())
	e.OpenFile("big.go", "go")
	r := protocol.Range{Start: protocol.Position{Line: 25_000}, End: protocol.Position{Line: 25_004}}
	var lat []time.Duration
	for b.Loop() {
		start := time.Now()
		e.CodeActions("big.go", r)
		lat = append(lat, time.Since(start))
	}
	b.ReportMetric(float64(p99(lat).Microseconds()), "p99-µs")
}

func p99(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	sorted := slices.Sorted(slices.Values(ds))
	return sorted[len(sorted)*99/100]
}
