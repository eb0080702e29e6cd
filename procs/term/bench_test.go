package term

import (
	"fmt"
	"strings"
	"testing"
)

// ansiOutput is about size bytes of what a build or test run prints to a
// terminal: coloured lines, bold words, a progress line redrawn with \r and
// erase-in-line every few lines, some UTF-8.
func ansiOutput(size int) []byte {
	var b strings.Builder
	for i := 0; b.Len() < size; i++ {
		fmt.Fprintf(&b, "\x1b[32mok\x1b[0m  \x1b[1mgithub.com/agentls/pkg%d\x1b[0m\t0.%03ds  coverage: %d.%d%% of statements — ✓\r\n", i, i%1000, i%100, i%10)
		if i%8 == 0 {
			fmt.Fprintf(&b, "\x1b[2K\rbuilding [%-20s] %d%%\r", strings.Repeat("=", i%21), i%100)
		}
	}
	return []byte(b.String())
}

// BenchmarkTerminalWrite feeds 10 MB of coloured output through a 120×40
// terminal with 10000 lines of history, in 32 KB reads as the pty reader
// does.
func BenchmarkTerminalWrite(b *testing.B) {
	in := ansiOutput(10 << 20)
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		term := NewTerminal(120, 40, 10_000)
		for p := in; len(p) > 0; {
			n := min(len(p), 32<<10)
			term.Write(p[:n])
			p = p[n:]
		}
	}
}

// BenchmarkTerminalCapture renders a full history (10000 lines) and screen.
func BenchmarkTerminalCapture(b *testing.B) {
	term := NewTerminal(120, 40, 10_000)
	term.Write(ansiOutput(2 << 20))
	b.ReportAllocs()
	for b.Loop() {
		_ = term.Capture()
	}
}

// BenchmarkTerminalScreen renders the visible screen, what WaitStable
// compares on every change.
func BenchmarkTerminalScreen(b *testing.B) {
	term := NewTerminal(120, 40, 10_000)
	term.Write(ansiOutput(1 << 20))
	b.ReportAllocs()
	for b.Loop() {
		_ = term.Screen()
	}
}
