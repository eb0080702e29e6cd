package main

import (
	"strings"
	"testing"
)

// TestDemo runs agentls demo: a scripted turn with the fake model that
// must patch two files, edit by anchor, and undo, with no key or network.
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
		"== undo",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("the demo's output lacks %q", want)
		}
	}
	if strings.Contains(stdout, "error:") {
		t.Errorf("a step failed:\n%s", stdout)
	}
}
