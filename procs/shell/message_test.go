package shell

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// TestMessageGolden keeps the text the model reads about commands under
// review, one case per common shape, in testdata/messages.golden.
// go test ./procs/shell -run Golden -update rewrites it.
func TestMessageGolden(t *testing.T) {
	lines := func(from, to int) string {
		var b strings.Builder
		for i := from; i <= to; i++ {
			fmt.Fprintf(&b, "line %d\n", i)
		}
		return b.String()
	}
	small := Limits{StdoutHead: 30, StdoutTail: 30, StderrHead: 20, StderrTail: 20}
	cases := []struct {
		name   string
		result Result
		limits Limits
	}{
		{"one line", Result{Commands: []Command{{Text: "echo hello", Stdout: "hello\n"}}}, Limits{}},
		{"no output", Result{Commands: []Command{{Text: "mkdir -p build"}}}, Limits{}},
		{"failure with both streams", Result{Commands: []Command{{
			Text:     "go test ./...",
			Stdout:   "--- FAIL: TestX (0.00s)\n    x_test.go:12: got 1, want 2\nFAIL\n",
			Stderr:   "exit status 1\n",
			ExitCode: 1,
		}}}, Limits{}},
		{"multi-line command", Result{Commands: []Command{{
			Text:   "cat > notes.txt <<EOF\nfirst\nEOF",
			Stdout: "",
		}}}, Limits{}},
		{"long command", Result{Commands: []Command{{
			Text:   "python3 - <<'EOF'\nimport sys\nfor i in range(3):\n    print(i)\nEOF",
			Stdout: "0\n1\n2\n",
		}}}, Limits{}},
		{"long one-line command", Result{Commands: []Command{{
			Text: "find . -name '*.go' -not -path './vendor/*' -not -path './testdata/*' -exec grep -l 'TODO' {} +",
		}}}, Limits{}},
		{"timed out", Result{Commands: []Command{{
			Text: "go test -run TestSlow", Stdout: "=== RUN   TestSlow\n", ExitCode: ExitTimedOut,
			TimedOut: true, Restarted: true, Duration: 1200*time.Second + 3*time.Millisecond,
		}}}, Limits{}},
		{"interrupted without output", Result{Commands: []Command{{
			Text: "sleep 300", ExitCode: ExitInterrupted, Interrupted: true, Restarted: true,
		}}}, Limits{}},
		{"shell exited", Result{Commands: []Command{{Text: "exit 3", ExitCode: 3, Restarted: true}}}, Limits{}},
		{"cut", Result{Commands: []Command{{
			Text: "seq 1 100 | sed 's/^/line /'", Stdout: lines(1, 100), LogPath: "/state/shell/cmd-7.log",
		}}}, small},
		{"cut, middle not kept in memory", Result{Commands: []Command{{
			Text:      "yes | head -c 200000000",
			Stdout:    lines(1, 5) + lines(99995, 100000),
			StdoutGap: Gap{At: len(lines(1, 5)), Bytes: 199_999_000},
			LogPath:   "/state/shell/cmd-8.log",
		}}}, small},
		{"cut without a log", Result{Commands: []Command{{
			Text: "seq 1 100", Stdout: lines(1, 100), Stderr: strings.Repeat("warning: deprecated\n", 20),
		}}}, small},
		{"cut, log failed", Result{Commands: []Command{{
			Text: "seq 1 100", Stdout: lines(1, 100), LogError: errors.New("command log: no space left on device"),
		}}}, small},
		{"colours and blank edges", Result{Commands: []Command{{
			Text:   "ls --color=always",
			Stdout: "\n\n  \x1b[01;34mdir\x1b[0m\n  \x1b[01;32mrun.sh\x1b[0m\n\n \n",
		}}}, Limits{}},
		{"backticks and fences in output", Result{Commands: []Command{{
			Text:   "cat README.md",
			Stdout: "# Title\n```go\nfmt.Println(`hi`)\n```\n",
			Stderr: "warning: `x` unused\n",
		}}}, Limits{}},
		{"skipped after a failure", Result{
			Commands: []Command{{Text: "cd build", Stdout: ""}, {Text: "make", Stderr: "make: *** No rule to make target.  Stop.\n", ExitCode: 2}},
			Skipped:  []string{"./run", "echo done"},
		}, Limits{}},
		{"skipped after a timeout", Result{
			Commands: []Command{{Text: "make", TimedOut: true, ExitCode: ExitTimedOut, Restarted: true, Duration: 3 * time.Second}},
			Skipped:  []string{"./run"},
		}, Limits{}},
		{"skipped after cancel between commands", Result{
			Commands: []Command{{Text: "echo a", Stdout: "a\n"}},
			Skipped:  []string{"echo b"},
		}, Limits{}},
		{"nothing", Result{}, Limits{}},
	}
	var b strings.Builder
	for _, c := range cases {
		fmt.Fprintf(&b, "== %s ==\n%s\n\n", c.name, c.result.Message(c.limits))
	}
	golden := filepath.Join("testdata", "messages.golden")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update)", err)
	}
	if diff := cmp.Diff(string(want), b.String()); diff != "" {
		t.Errorf("messages differ from %s (-want +got):\n%s", golden, diff)
	}
}

func TestExcerpt(t *testing.T) {
	tests := []struct {
		name       string
		s          string
		gap        Gap
		head, tail int
		h, t       string
		cut        int64
	}{
		{"fits", "abc\ndef\n", Gap{}, 4, 4, "abc\ndef\n", "", 0},
		{"bytes", "abcdefghij", Gap{}, 3, 2, "abc", "ij", 5},
		{"on line breaks", "aa\nbb\ncc\ndd\nee\n", Gap{}, 5, 5, "aa\n", "ee\n", 9},
		{"a far line break is ignored", "a\nbcdefgh", Gap{}, 6, 0, "a\nbcde", "", 3},
		{"utf-8 kept whole", "ééééé", Gap{}, 3, 3, "é", "é", 6},
		{"gap limits the head", "ab" + "yz", Gap{At: 2, Bytes: 100}, 10, 1, "ab", "z", 101},
		{"gap limits the tail", "ab" + "yz", Gap{At: 2, Bytes: 100}, 1, 10, "a", "yz", 101},
		{"zero limits", "abc", Gap{}, 0, 0, "", "", 3},
	}
	for _, tt := range tests {
		h, tl, cut := excerpt(tt.s, tt.gap, tt.head, tt.tail)
		if h != tt.h || tl != tt.t || cut != tt.cut {
			t.Errorf("%s: got %q %q %d, want %q %q %d", tt.name, h, tl, cut, tt.h, tt.t, tt.cut)
		}
	}
}
