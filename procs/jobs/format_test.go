package jobs

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/agentls/agentls/internal/text"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// checkGolden compares got with testdata/name.golden;
// go test ./procs/jobs -run Golden -update rewrites them.
func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	golden := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s differs (-want +got):\n%s", golden, diff)
	}
}

var (
	running = Info{ID: 3, Command: "go test ./...", Running: true, Duration: 12345 * time.Millisecond, LogPath: "/state/jobs/job-3.log"}
	failed  = Info{ID: 4, Command: "make build", ExitCode: 2, Duration: 90 * time.Second}
	killed  = Info{ID: 5, Command: "npm run dev -- --port 3000 --host 0.0.0.0 --open false --verbose", ExitCode: 143, Signal: "SIGTERM", Killed: true, Duration: 2*time.Hour + 30*time.Minute}
	script  = Info{ID: 6, Command: "cd web\nnpm ci\nnpm test", Duration: 3 * time.Second}
	ticks   = Info{ID: 7, Command: "echo `date` ``", Running: true, Duration: 0}
)

func TestFormatOutputGolden(t *testing.T) {
	tests := []struct {
		name string
		info Info
		out  Output
	}{
		{"no-output-yet", running, Output{}},
		{"no-output", failed, Output{}},
		{"stdout-only", running, Output{Stdout: "ok  \tpkg/a\t0.1s\n--- FAIL: TestB\n"}},
		{"both-streams", failed, Output{Stdout: "cc -c main.c\n", Stderr: "main.c:3:1: error: expected ';'\nmake: *** [build] Error 1\n"}},
		{"dropped-with-log", running, Output{Stdout: "line 9998\nline 9999\n", StdoutDropped: 123456, Stderr: "warning\n", StderrDropped: 10}},
		{"dropped-without-log", failed, Output{Stdout: "tail\n", StdoutDropped: 42}},
		{"killed", killed, Output{Stdout: "\x1b[32mready\x1b[0m on http://localhost:3000\n", Stderr: "\x1b]0;title\x07Terminated\n"}},
		{"multi-line-command", script, Output{Stdout: "added 100 packages\r\nprogress 10%\rprogress 50%\rprogress 100%\n\n\n"}},
		{"fences-in-output", ticks, Output{Stdout: "```go\nfmt.Println()\n```\n"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkGolden(t, "output-"+tt.name, FormatOutput(tt.info, tt.out)+"\n")
		})
	}
}

func TestMessagesGolden(t *testing.T) {
	var b strings.Builder
	section := func(title, text string) {
		b.WriteString("== " + title + " ==\n" + text + "\n\n")
	}
	section("list", FormatList([]Info{running, failed, killed, script, ticks}))
	section("empty list", FormatList(nil))
	section("started", StartedMessage(running))
	section("started, no log, multi-line", StartedMessage(script))
	section("killed", KilledMessage(killed))
	section("kill of a finished job", KilledMessage(failed))
	section("kill still in progress", KilledMessage(running))
	section("unknown job", UnknownJobMessage("12"))
	section("invalid job id", UnknownJobMessage("abc"))
	section("bg usage", BgUsage)
	checkGolden(t, "messages", b.String())
}

func TestCleanOutput(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"plain\n", "plain"},
		{"\n\n  indented\n\n", "  indented"},
		{"\x1b[1;31merror\x1b[0m: x", "error: x"},
		{"\x1b]0;title\x07text", "text"},
		{"\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\", "link"},
		{"a\x1b", "a"},
		{"\x1b[", ""},
		{"10%\r50%\r100%\ndone", "100%\ndone"},
		{"crlf\r\nlines\r\n", "crlf\nlines"},
		{"  \n \t\n", ""},
		{"x\x1b(By", "xy"},
		{"\x1bé", "é"},
		{"\x1b[1;é;2mok", "é;2mok"}, // a CSI broken by a character ends there: the text after it is kept
	}
	for _, tt := range tests {
		if got := cleanOutput(tt.in); got != tt.want {
			t.Errorf("cleanOutput(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestFormatDuration(t *testing.T) {
	tests := []struct {
		d    time.Duration
		want string
	}{
		{0, "0.0s"},
		{12345 * time.Millisecond, "12.3s"},
		{90 * time.Second, "1.5m"},
		{150 * time.Minute, "2.5h"},
	}
	for _, tt := range tests {
		if got := formatDuration(tt.d); got != tt.want {
			t.Errorf("formatDuration(%v) = %q, want %q", tt.d, got, tt.want)
		}
	}
}

// FuzzFormatOutput: whatever a job prints, the answer is valid UTF-8 when
// the output was, and its code blocks are not closed early by the output.
func FuzzFormatOutput(f *testing.F) {
	f.Add("go test", "ok\n", "\x1b[31mFAIL\x1b[0m\n", int64(0))
	f.Add("echo `x`", "```\nfenced\n```", "", int64(12))
	f.Add("a\nb", "10%\r20%\r\n", "\x1b]0;t\x07", int64(-1))
	f.Fuzz(func(t *testing.T, command, stdout, stderr string, dropped int64) {
		info := Info{ID: 1, Command: command, Running: dropped%2 == 0}
		got := FormatOutput(info, Output{Stdout: stdout, Stderr: stderr, StdoutDropped: max(dropped, 0)})
		if utf8.ValidString(command) && utf8.ValidString(stdout) && utf8.ValidString(stderr) && !utf8.ValidString(got) {
			t.Fatalf("invalid UTF-8 out of valid input: %q", got)
		}
		for _, block := range []struct{ lang, text string }{{"stdout", stdout}, {"stderr", stderr}} {
			open := "\n" + text.Fence(cleanOutput(block.text)) + block.lang + "\n"
			if cleanOutput(block.text) != "" && !strings.Contains(got, open) {
				t.Fatalf("no %q block opened by %q in %q", block.lang, open, got)
			}
		}
		_ = info.Line()
	})
}
