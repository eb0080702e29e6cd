package computer

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/computer/xvfbtest"
)

// BenchmarkActions measures a call of each kind on Xvfb: one xdotool run
// (a move, a key), typing as it grows with the text, and a screenshot
// (import, then vision.Fit's decode and re-encode).
func BenchmarkActions(b *testing.B) {
	display := xvfbtest.Start(b, "import")
	run := New(nil, Options{Display: display, Allowlist: []string{"*"}}).Run
	ctx := tools.WithImageAttacher(context.Background(), &images{})
	cases := []struct {
		name string
		use  tools.ToolUse
	}{
		{"mouse_move", md("mouse_move", "10", "10")},
		{"key", md("key", "shift")},
		{"screenshot", md("screenshot")},
	}
	for _, n := range []int{16, 256, 4096} {
		cases = append(cases, struct {
			name string
			use  tools.ToolUse
		}{fmt.Sprintf("type/%d", n), tools.ToolUse{Args: []string{"type"}, Content: strings.Repeat("a", n)}})
	}
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := run(ctx, tc.use); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
