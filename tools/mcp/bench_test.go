package mcp

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/agentls/agentls/tools"
)

// BenchmarkCallRoundTrip: one MCP call as a turn makes it (arguments
// read, the allowlist checked, tools/call over a real stdio pipe to a
// running server, the result read back and clipped), by the size of the
// text echoed.
func BenchmarkCallRoundTrip(b *testing.B) {
	f := newFixture(b, nil)
	ctx := context.Background()
	spec, ok := f.registry(b, ctx).Get("t.echo")
	if !ok {
		b.Fatal("no t.echo")
	}
	for _, size := range []int{16, 16 << 10, 1 << 20} {
		b.Run(fmt.Sprintf("%dB", size), func(b *testing.B) {
			use := tools.ToolUse{Tool: spec.Name, Kwargs: map[string]any{"text": strings.Repeat("x", size)}, Format: tools.FormatTool}
			b.SetBytes(int64(size))
			for b.Loop() {
				if _, err := spec.Run(ctx, use); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkSelectTurn: a turn's registry with a running server's tools:
// what each turn pays once its servers run.
func BenchmarkSelectTurn(b *testing.B) {
	f := newFixture(b, nil)
	ctx := context.Background()
	f.registry(b, ctx) // started
	for b.Loop() {
		if _, _, err := f.m.SelectTurn(ctx, f.cfg, empty(b), nil, false, f.turn.Turn()); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCallRoundTripNode: the same call to the MCP project's
// reference server (server-everything's echo, Node), where installed.
func BenchmarkCallRoundTripNode(b *testing.B) {
	everything := npmServer(b, "mcp-server-everything")
	m := NewManager(Options{Dir: b.TempDir()})
	defer m.Close()
	cfg := Config{Servers: map[string]ServerConfig{"ev": {Command: everything, Args: []string{"stdio"}}}, Allowlist: []string{"ev.*"}}
	ctx := context.Background()
	reg, _, err := m.SelectTurn(ctx, cfg, empty(b), nil, false, Turn{})
	if err != nil {
		b.Fatal(err)
	}
	spec, ok := reg.Get("ev.echo")
	if !ok {
		b.Fatal("no ev.echo")
	}
	use := tools.ToolUse{Tool: spec.Name, Kwargs: map[string]any{"message": "hello"}, Format: tools.FormatTool}
	for b.Loop() {
		if _, err := spec.Run(ctx, use); err != nil {
			b.Fatal(err)
		}
	}
}
