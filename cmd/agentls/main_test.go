package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden files")

func runCLI(t *testing.T, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(context.Background(), args, strings.NewReader(stdin), &out, &errb)
	return out.String(), errb.String(), code
}

func TestParseGolden(t *testing.T) {
	reply, err := os.ReadFile("../../examples/reply.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		golden string
		args   []string
	}{
		{"parse-reply.json", []string{"parse"}},
		{"parse-reply-blocks.json", []string{"parse", "--blocks"}},
	} {
		t.Run(tc.golden, func(t *testing.T) {
			stdout, stderr, code := runCLI(t, string(reply), tc.args...)
			if code != exitOK || stderr != "" {
				t.Fatalf("exit %d, stderr %q", code, stderr)
			}
			golden := filepath.Join("testdata", tc.golden)
			if *update {
				os.WriteFile(golden, []byte(stdout), 0o644)
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(want), stdout); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseContract(t *testing.T) {
	for _, tc := range []struct {
		name  string
		args  []string
		reply string
		want  string
	}{
		{"markdown", []string{"parse"}, "```save a b.txt\nx\n```\n", `[{"tool":"save","args":["a b.txt"],"content":"x","start":0}]`},
		{"tool format: args null, kwargs, call_id", []string{"parse", "--format", "tool"}, "hi\n@shell(c1): {\"command\": \"ls\"}\n",
			`[{"tool":"shell","args":null,"kwargs":{"command":"ls"},"content":"","call_id":"c1","start":3}]`},
		{"xml: attributes positional, parameters named", []string{"parse", "--format=xml"},
			"<tool-use><save path=\"a\">x</save></tool-use><function_calls><invoke name=\"shell\"><parameter name=\"command\">ls</parameter></invoke></function_calls>",
			`[{"tool":"save","args":["a"],"content":"x","start":10},{"tool":"shell","args":[],"kwargs":{"command":"ls"},"content":"","start":60}]`},
		{"streaming holds back an unsettled block", []string{"parse", "--streaming"}, "```shell\nls\n```\n", `[]`},
		{"streaming holds a block a headless </think> may still hide", []string{"parse", "--streaming"}, "```shell\nls\n```\n\n", `[]`},
		{"streaming reports a settled block", []string{"parse", "--streaming"}, "<think>plan</think>\n```shell\nls\n```\n", `[{"tool":"shell","args":[],"content":"ls","start":20}]`},
		{"blocks", []string{"parse", "--blocks"}, "```go\nx\n```\n", `[{"lang":"go","content":"x"}]`},
		{"nothing", []string{"parse"}, "no tools here", `[]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stdout, stderr, code := runCLI(t, tc.reply, tc.args...)
			if code != exitOK {
				t.Fatalf("exit %d, stderr %q", code, stderr)
			}
			var got, want any
			if err := json.Unmarshal([]byte(stdout), &got); err != nil {
				t.Fatalf("stdout is not JSON: %v\n%s", err, stdout)
			}
			json.Unmarshal([]byte(tc.want), &want)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseWarnsOnBrokenCalls(t *testing.T) {
	stdout, stderr, code := runCLI(t, "@shell(1): {\"command\": \"ls}\n", "parse", "--format", "tool")
	if code != exitOK || strings.TrimSpace(stdout) != "[]" {
		t.Errorf("exit %d, stdout %q", code, stdout)
	}
	if !strings.Contains(stderr, "warning: at byte 0") {
		t.Errorf("stderr %q does not warn", stderr)
	}
}

// TestBinary runs the built binary over real pipes: stdout carries only
// JSON, and exit codes reach the shell.
func TestBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := filepath.Join(t.TempDir(), "agentls")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, "parse", "--format", "tool")
	cmd.Stdin = strings.NewReader("@shell(1): {'command': 'ls'}\n")
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	var uses []map[string]any
	if err := json.Unmarshal(out, &uses); err != nil || len(uses) != 1 {
		t.Fatalf("stdout %q: %v", out, err)
	}

	err = exec.Command(bin, "parse", "--nope").Run()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != exitUsage {
		t.Errorf("unknown flag: %v, want exit %d", err, exitUsage)
	}
	if out, err := exec.Command(bin, "version").Output(); err != nil || !strings.HasPrefix(string(out), "agentls ") {
		t.Errorf("version: %q, %v", out, err)
	}
}
