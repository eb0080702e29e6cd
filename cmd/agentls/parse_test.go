package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestParseThinking: --thinking gives the parser the thinking mode a turn
// would, so that --streaming prints what the turn would run at that point.
func TestParseThinking(t *testing.T) {
	const (
		// A draft in thinking the reply never opened, then the answer.
		headless = "```shell\nrm -rf build\n```\n\n</think>\n```shell\nls\n```\n\nmore"
		// An answer with no thinking at all, still streaming.
		plain = "```shell\nls\n```\n\nmore"
	)
	for _, tc := range []struct {
		name, reply string
		args        []string
		want        []string // the commands printed
	}{
		{"auto, streaming: held while a </think> may come", plain, []string{"--streaming"}, []string{}},
		{"auto is the default", plain, []string{"--streaming", "--thinking", "auto"}, []string{}},
		{"tagged, streaming: certain at once", plain, []string{"--streaming", "--thinking", "tagged"}, []string{"ls"}},
		{"off is tagged", plain, []string{"--streaming", "--thinking", "off"}, []string{"ls"}},
		{"auto: the headless </think> hides the draft", headless, []string{"--streaming"}, []string{"ls"}},
		{"tagged: a lone </think> is text", headless, []string{"--streaming", "--thinking", "tagged"}, []string{"rm -rf build", "ls"}},
		{"tagged, whole reply", headless, []string{"--thinking", "tagged"}, []string{"rm -rf build", "ls"}},
		{"auto, whole reply", plain, nil, []string{"ls"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stdout, stderr, code := runCLI(t, tc.reply, append([]string{"parse"}, tc.args...)...)
			if code != exitOK {
				t.Fatalf("exit %d, stderr %q", code, stderr)
			}
			var uses []toolUseJSON
			if err := json.Unmarshal([]byte(stdout), &uses); err != nil {
				t.Fatalf("%v: %q", err, stdout)
			}
			got := []string{}
			for _, u := range uses {
				got = append(got, u.Content)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("commands (-want +got):\n%s", diff)
			}
		})
	}
	t.Run("an unknown mode is a usage error", func(t *testing.T) {
		_, stderr, code := runCLI(t, plain, "parse", "--thinking", "maybe")
		if code != exitUsage || !strings.Contains(stderr, `--thinking "maybe"`) {
			t.Errorf("exit %d, stderr %q", code, stderr)
		}
	})
}
