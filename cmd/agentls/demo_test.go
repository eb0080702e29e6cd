package main

import (
	"strings"
	"testing"
)

// TestDemo runs agentls demo: a scripted turn with the fake model that
// must patch two files, edit by anchor, run a failing `go test` job whose
// problems print as diagnostics, and undo, with no key or network.
func TestDemo(t *testing.T) {
	stdout, stderr, code := runCLI(t, "", "demo")
	if code != exitOK {
		t.Fatalf("exit %d\nstderr: %s\nstdout: %s", code, stderr, stdout)
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
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("the demo's output lacks %q", want)
		}
	}
	if strings.Contains(stdout, "\nerror:") {
		t.Errorf("a step failed:\n%s", stdout)
	}
}
