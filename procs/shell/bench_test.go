package shell

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// BenchmarkRoundTrip is the cost of one command in the persistent shell:
// split, frame, write, bash runs `true`, both sentinels read back.
func BenchmarkRoundTrip(b *testing.B) {
	s := startSession(b, Options{})
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		res, err := s.Run(ctx, "true")
		if err != nil || res.Commands[0].ExitCode != 0 {
			b.Fatal(res, err)
		}
	}
}

// BenchmarkThroughput streams 64 MB of output through a command, the path
// a flood takes (demultiplexing and the bounded keeper).
func BenchmarkThroughput(b *testing.B) {
	const size = 64 << 20
	s := startSession(b, Options{})
	ctx := context.Background()
	b.SetBytes(size)
	for b.Loop() {
		if _, err := s.Run(ctx, fmt.Sprintf("head -c %d /dev/zero", size)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSplit100 splits a 100-line script of mixed statements.
func BenchmarkSplit100(b *testing.B) {
	var script strings.Builder
	for i := 0; i < 10; i++ {
		fmt.Fprintf(&script, "# step %d\ncd dir%d && ls -la | grep go\nexport X%d=1; echo $X%d\n", i, i, i, i)
		fmt.Fprintf(&script, "cat > f%d.txt <<'EOF'\nline one $HOME\nline two\nEOF\n", i)
		fmt.Fprintf(&script, "for f in *.go; do\n  gofmt -l \"$f\"\ndone\n")
	}
	if n := strings.Count(script.String(), "\n"); n != 100 {
		b.Fatalf("script has %d lines", n)
	}
	b.SetBytes(int64(script.Len()))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Split(script.String()); err != nil {
			b.Fatal(err)
		}
	}
}
