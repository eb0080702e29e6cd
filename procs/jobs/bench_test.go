package jobs

import (
	"context"
	"fmt"
	"testing"
)

// benchmarkRing writes chunks of size bytes into a 1 MiB ring (the
// default per stream) and reports GB/s.
func benchmarkRing(b *testing.B, size int) {
	r := NewRing(defaultKeepBytes)
	p := make([]byte, size)
	for i := range p {
		p[i] = 'x'
	}
	b.SetBytes(int64(size))
	b.ReportAllocs()
	for b.Loop() {
		r.Write(p)
	}
	b.ReportMetric(float64(b.N)*float64(size)/b.Elapsed().Seconds()/1e9, "GB/s")
}

// A fast job's reads come in 64 KiB chunks; a slow one's in lines.
func BenchmarkRingWrite64K(b *testing.B)  { benchmarkRing(b, readSize) }
func BenchmarkRingWriteLine(b *testing.B) { benchmarkRing(b, 80) }
func BenchmarkRingWrite3M(b *testing.B)   { benchmarkRing(b, 3<<20) }

// BenchmarkJobOutput measures a whole job's output path (pipe, ring, log
// file, live callback) against a job printing 256 MB as fast as it can;
// the baseline is the same command into /dev/null.
func BenchmarkJobOutput(b *testing.B) {
	const size = 256 << 20
	command := fmt.Sprintf("yes xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx | head -c %d", size)
	for _, bc := range []struct {
		name    string
		command string
		opts    func(b *testing.B) Options
	}{
		{"baseline-devnull", command + " >/dev/null", func(*testing.B) Options { return Options{} }},
		{"ring", command, func(*testing.B) Options { return Options{} }},
		{"ring+log", command, func(b *testing.B) Options { return Options{LogDir: b.TempDir()} }},
		{"ring+log+callback", command, func(b *testing.B) Options {
			return Options{LogDir: b.TempDir(), Output: func(int, string, []byte) {}}
		}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			m := NewManager(bc.opts(b))
			defer m.Close()
			b.SetBytes(size)
			for b.Loop() {
				info, err := m.Start(context.Background(), bc.command, "")
				if err != nil {
					b.Fatal(err)
				}
				if info, _ = m.Wait(context.Background(), info.ID, 0); info.ExitCode != 0 {
					b.Fatalf("exit code %d", info.ExitCode)
				}
				m.Forget(info.ID)
			}
			b.ReportMetric(float64(b.N)*size/b.Elapsed().Seconds()/1e9, "GB/s")
		})
	}
}

// BenchmarkJobTrue is the fixed cost of one job, start to end, for a job
// that does nothing: fork and exec of bash, the supervisor, and the
// session's end (a scan of /proc for what is left of it, two lines to the
// watchdog).
func BenchmarkJobTrue(b *testing.B) {
	m := NewManager(Options{})
	defer m.Close()
	ctx := context.Background()
	for b.Loop() {
		info, err := m.Start(ctx, "true", "")
		if err != nil {
			b.Fatal(err)
		}
		if info, _ = m.Wait(ctx, info.ID, 0); info.ExitCode != 0 {
			b.Fatalf("exit code %d", info.ExitCode)
		}
		m.Forget(info.ID)
	}
}
