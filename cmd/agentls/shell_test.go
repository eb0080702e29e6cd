package main

import (
	"bufio"
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/agentls/agentls/tools/approval"
)

// TestTerminalConfirmer: the terminal's answers, an unknown one asked
// again, "always" only where there is a pattern, and the end of input as
// a no.
func TestTerminalConfirmer(t *testing.T) {
	tests := []struct {
		input   string
		pattern string
		want    approval.Answer
		asked   int
	}{
		{"y\n", "go test", approval.Run, 1},
		{"YES\n", "", approval.Run, 1},
		{"maybe\nn\n", "go test", approval.Skip, 2},
		{"a\n", "go test", approval.Always, 1},
		{"a\ns\n", "", approval.StopTurn, 2},
		{"", "go test", approval.Skip, 1},
	}
	for _, tt := range tests {
		var out bytes.Buffer
		c := &terminalConfirmer{in: bufio.NewReader(strings.NewReader(tt.input)), out: &out}
		got, err := c.Confirm(context.Background(), approval.Question{Action: "go test ./...", Reason: "not on the allowlist", Pattern: tt.pattern})
		if err != nil || got != tt.want || strings.Count(out.String(), "run `go test ./...`?") != tt.asked {
			t.Errorf("input %q: %v, %v; asked:\n%s", tt.input, got, err, out.String())
		}
		if tt.pattern != "" && !strings.Contains(out.String(), "[a]lways `go test`") {
			t.Errorf("input %q: no always offered:\n%s", tt.input, out.String())
		}
	}
}
