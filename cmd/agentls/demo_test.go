package main

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestDemo runs agentls demo: a scripted turn with the fake model that
// must patch two files, edit by anchor, run a failing `go test` job whose
// problems print as diagnostics, and undo, with no key or network. What it
// prints must be true when it ends (a log path it names exists; with
// --keep the workspace stays where it says), and its blocks are separated
// by one blank line.
func TestDemo(t *testing.T) {
	for _, keep := range []bool{false, true} {
		args := []string{"demo"}
		if keep {
			args = append(args, "--keep")
		}
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			t.Parallel()
			var stdout string
			state := t.TempDir()
			if keep {
				// In-process, with the state folder in a temporary one.
				var out strings.Builder
				err := demo(context.Background(), &out, true, func(k string) string {
					if k == "XDG_STATE_HOME" {
						return state
					}
					return os.Getenv(k)
				})
				stdout = out.String()
				if err != nil {
					t.Fatalf("%v\nstdout: %s", err, stdout)
				}
			} else {
				out, stderr, code := runCLI(t, "", args...)
				stdout = out
				if code != exitOK {
					t.Fatalf("exit %d\nstderr: %s\nstdout: %s", code, stderr, stdout)
				}
			}
			kept := regexp.MustCompile(`(?m)^== the workspace is kept: (\S+)\n== the job's full output is kept: (\S+)$`).FindStringSubmatch(stdout)
			if kept != nil {
				t.Cleanup(func() { os.RemoveAll(kept[1]) })
			}
			for _, want := range []string{
				"Applied 2 patches atomically to: config.go, main.go",
				"Anchored patch applied to config.go (1 operation)",
				"+// Load returns the default settings.",
				"-\tvar c Config = Load()\n+\tvar c Settings = Load()",
				"Started background job **#1**: `go test ./...`",
				"[agentls] go test: 1 failure in app_test.go",
				"[agentls]   app_test.go:7: error: TestRun: Run() = \"demo\", want \"agentls\"",
				"== undo",
				// The way on to an editor with no key, not only "with a real model".
				"Next: agentls demo --editor serves this model to your editor",
			} {
				if !strings.Contains(stdout, want) {
					t.Errorf("the demo's output lacks %q", want)
				}
			}
			if strings.Contains(stdout, "\nerror:") {
				t.Errorf("a step failed:\n%s", stdout)
			}
			if i := strings.Index(stdout, "\n\n\n"); i >= 0 {
				t.Errorf("more than one blank line between blocks, at byte %d:\n%s", i, stdout)
			}
			if !strings.HasSuffix(stdout, ".\n") || strings.HasSuffix(stdout, "\n\n") {
				t.Errorf("the output does not end with one newline: %q", stdout[max(0, len(stdout)-40):])
			}
			logs := regexp.MustCompile(`(?m)^Full output: (.+)$`).FindAllStringSubmatch(stdout, -1)
			for _, m := range logs {
				if _, err := os.Stat(m[1]); err != nil {
					t.Errorf("the demo printed %q, which does not exist once it ended: %v", m[0], err)
				}
			}
			if !keep {
				if kept != nil || !strings.Contains(stdout, "== the workspace is deleted") {
					t.Errorf("without --keep the demo does not say its workspace is gone:\n%s", stdout)
				}
				return
			}
			if kept == nil || len(logs) != 1 {
				t.Fatalf("--keep: the kept workspace and the job's log are not both named:\n%s", stdout)
			}
			if !strings.HasPrefix(logs[0][1], kept[2]+string(filepath.Separator)) || !strings.HasPrefix(kept[2], filepath.Join(state, "agentls", "runs")+string(filepath.Separator)) {
				t.Errorf("the job's log %s is not under %s, in the state folder's runs/", logs[0][1], kept[2])
			}
			if data, err := os.ReadFile(filepath.Join(kept[1], "config.go")); err != nil || string(data) != demoWorkspace()["config.go"] {
				t.Errorf("the kept workspace's config.go is not as the undo left it: %q, %v", data, err)
			}
		})
	}
}

// TestBlockWriter: one blank line between blocks whatever newlines a block
// ends with; the blank lines inside a block (the model's text) are kept.
func TestBlockWriter(t *testing.T) {
	type step struct {
		text  string
		block bool // start a new block before text
	}
	tests := []struct {
		name  string
		steps []step
		want  string
	}{
		{"text ending in blank lines", []step{{"a\n\n\n\n", false}, {"b\n", true}}, "a\n\nb\n"},
		{"text with no newline", []step{{"a", false}, {"b", true}}, "a\n\nb"},
		{"blank lines inside are the text's", []step{{"a\n\n\nb\n", false}}, "a\n\n\nb\n"},
		{"chunks", []step{{"a\n", false}, {"\n", false}, {"b\n\n", false}, {"c\n", true}}, "a\n\nb\n\nc\n"},
		{"two blocks in a row", []step{{"a\n", false}, {"", true}, {"b\n", true}}, "a\n\nb\n"},
		{"nothing before the first block", []step{{"a\n", true}}, "a\n"},
	}
	for _, tt := range tests {
		var out strings.Builder
		w := &blockWriter{w: &out}
		for _, s := range tt.steps {
			if s.block {
				w.block()
			}
			w.Write([]byte(s.text))
		}
		w.end()
		if out.String() != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, out.String(), tt.want)
		}
	}
}
