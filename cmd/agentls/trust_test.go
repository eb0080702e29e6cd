package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestTrustNoSuchFolder: trusting a folder that does not exist is a
// refusal with nothing changed (exit 1, as the usage says), in words that
// name the folder rather than a system call.
func TestTrustNoSuchFolder(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	missing := filepath.Join(t.TempDir(), "nonexistent")
	stdout, stderr, code := runCLI(t, "", "trust", missing)
	if code != exitFailed {
		t.Errorf("exit %d, want %d", code, exitFailed)
	}
	if want := missing + ": no such folder: nothing to trust"; !strings.Contains(stderr, want) || strings.Contains(stderr, "lstat") {
		t.Errorf("stderr %q; want %q and no system call's name", stderr, want)
	}
	if stdout != "" {
		t.Errorf("stdout %q; want nothing", stdout)
	}
}
