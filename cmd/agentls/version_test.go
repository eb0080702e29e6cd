package main

import (
	"strings"
	"testing"
)

// TestVersionFlags: the spellings people type first to check an install
// print the version and exit 0; none is taken for a serve flag.
func TestVersionFlags(t *testing.T) {
	for _, arg := range []string{"version", "--version", "-version", "-v", "-V"} {
		t.Run(arg, func(t *testing.T) {
			stdout, stderr, code := runCLI(t, "", arg)
			if code != exitOK || !strings.HasPrefix(stdout, "agentls ") || stderr != "" {
				t.Errorf("agentls %s: exit %d, stdout %q, stderr %q; want the version and 0", arg, code, stdout, stderr)
			}
		})
	}
}
