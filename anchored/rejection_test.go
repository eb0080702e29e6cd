package anchored

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// numberedLines returns a text of n distinct lines.
func numberedLines(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "\tvalue%d := compute(%d)\n", i, i)
	}
	return b.String()
}

// hugeBatches are hostile batches of n ops on text: each op alone is a
// small problem, and together they once made a message as large as the
// batch (140 MB for a million ops), and a pass over every anchor per
// mistyped token.
func hugeBatches(t testing.TB, text string, n int, only string) map[string][]Op {
	t.Helper()
	good := anchorOfLine(t, text, 1)
	long := strings.Repeat("y", 1<<20)
	batches := map[string][]Op{}
	add := func(name string, op func(i int) Op) {
		if only != "" && name != only {
			return
		}
		ops := make([]Op, n)
		if name == "long tokens" {
			// Each costs its length to clean up: 50 such are 50 MB of
			// input, as large a batch as the others.
			ops = ops[:50]
		}
		for i := range ops {
			ops[i] = op(i)
		}
		batches[name] = ops
	}
	// Unknown 4-character tokens go through the search for shortened
	// anchors; with expected text, through the guess of the meant line.
	add("unknown anchors", func(i int) Op {
		return Op{Anchor: fmt.Sprintf("Z%03d", i%1000), Op: "delete", Expected: str(fmt.Sprintf("\tvalue%d := compute(%d)", i, i))}
	})
	add("failed guards", func(i int) Op {
		return Op{Anchor: good, Op: "replace", Text: str("x"), Expected: str(long)}
	})
	add("one line, every op", func(i int) Op { return Op{Anchor: good, Op: "insert_after", Text: str("x")} })
	add("long tokens", func(i int) Op { return Op{Anchor: long, Op: "delete"} })
	return batches
}

// anchorOfLine returns the anchor of line i (0-based) of text.
func anchorOfLine(t testing.TB, text string, i int) string {
	t.Helper()
	v, err := View(text, i+1, i+1, Options{})
	if err != nil || len(v) != 1 {
		t.Fatalf("view of line %d: %v", i+1, err)
	}
	return v[0].Anchor
}

// TestHugeBatchRejectionIsBounded sends batches of 100,000 bad ops: the
// rejection lists the first problems, counts the rest, shows at most
// maxViewLines lines of fresh anchors, and stays a few KB.
func TestHugeBatchRejectionIsBounded(t *testing.T) {
	text := numberedLines(5000)
	for name, ops := range hugeBatches(t, text, 100_000, "") {
		t.Run(name, func(t *testing.T) {
			_, err := Apply(text, ops, Options{})
			rej, ok := err.(*Rejection)
			if !ok {
				t.Fatalf("err = %v", err)
			}
			msg := err.Error()
			if len(msg) > 24<<10 {
				t.Errorf("the rejection is %d bytes; want at most 24 KB:\n%.2000s", len(msg), msg)
			}
			// Every op is a problem; ops all on one line make one problem
			// per pair of neighbours.
			want := len(ops)
			if name == "one line, every op" {
				want--
			}
			if len(rej.Problems) != maxProblems || len(rej.Problems)+rej.More != want {
				t.Errorf("%d problems listed, %d more; want %d and %d", len(rej.Problems), rej.More, maxProblems, want-maxProblems)
			}
			if !strings.Contains(msg, "more problems, not listed: fix the ones above, then send the batch again") || !strings.Contains(msg, "nothing changed") {
				t.Errorf("the rejection does not say how to recover:\n%.2000s", msg)
			}
			if n := strings.Count(rej.View, "│"); n == 0 || n > maxViewLines {
				t.Errorf("the view shows %d anchored lines; want 1 to %d:\n%s", n, maxViewLines, rej.View)
			}
		})
	}
}

// TestRejectionViewKeepsFirstProblems checks that with more affected
// lines than fit, the view shows those of the first problems and says
// how many it left out.
func TestRejectionViewKeepsFirstProblems(t *testing.T) {
	text := numberedLines(1000)
	var ops []Op
	for i := 0; i < 1000; i += 50 {
		ops = append(ops, Op{Anchor: anchorOfLine(t, text, i), Op: "replace", Text: str("x"), Expected: str("stale")})
	}
	_, err := Apply(text, ops, Options{})
	rej := err.(*Rejection)
	if !strings.Contains(rej.View, "│ \tvalue0 := compute(0)\n") || strings.Contains(rej.View, "value950 ") {
		t.Errorf("the view does not keep the first problems' lines:\n%s", rej.View)
	}
	if !strings.Contains(rej.View, "more affected lines are not shown here: view_anchored shows any range") {
		t.Errorf("the view does not say what it left out:\n%s", rej.View)
	}
}

// TestShortenedAnchorInABatch checks that a shortened anchor still names
// its line when many tokens are looked up together.
func TestShortenedAnchorInABatch(t *testing.T) {
	text := numberedLines(200)
	var ops []Op
	for i := range 50 {
		a := anchorOfLine(t, text, i)
		ops = append(ops, Op{Anchor: a[:len(a)-1], Op: "replace", Text: str(fmt.Sprintf("line %d", i))})
	}
	res, err := Apply(text, ops, Options{})
	// A 5-character prefix of a 6-character anchor may be shared by two
	// lines: then the op is refused and names them; else it applies.
	if err != nil {
		if !strings.Contains(err.Error(), "the anchor names 2 lines") {
			t.Fatal(err)
		}
		return
	}
	if !strings.HasPrefix(res.Text, "line 0\nline 1\n") {
		t.Errorf("result starts %.100q", res.Text)
	}
}

// BenchmarkRejectHugeBatch measures refusing a batch of 10k to 1M bad ops
// on a 5,000-line file: time and allocation (B/op, an upper bound on how
// much the heap grows) should grow with the batch, whose every op is
// checked, and the message not at all; retained-bytes is what the
// rejection keeps once garbage is collected.
func BenchmarkRejectHugeBatch(b *testing.B) {
	text := numberedLines(5000)
	for _, name := range []string{"unknown anchors", "failed guards"} {
		for _, n := range []int{10_000, 100_000, 1_000_000} {
			ops := hugeBatches(b, text, n, name)[name]
			b.Run(fmt.Sprintf("%s/%dops", strings.ReplaceAll(name, " ", "_"), n), func(b *testing.B) {
				b.ReportAllocs()
				var before, after runtime.MemStats
				var msg int
				for b.Loop() {
					b.StopTimer()
					runtime.GC()
					runtime.ReadMemStats(&before)
					b.StartTimer()
					_, err := Apply(text, ops, Options{})
					b.StopTimer()
					runtime.GC()
					runtime.ReadMemStats(&after)
					msg = len(err.Error())
					b.StartTimer()
				}
				b.ReportMetric(float64(msg), "msg-bytes")
				b.ReportMetric(float64(int64(after.HeapAlloc)-int64(before.HeapAlloc)), "retained-bytes")
			})
		}
	}
}
