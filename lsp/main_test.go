package lsp_test

import (
	"os"
	"testing"
)

// TestMain keeps what the tests start out of the user's state and
// settings folders (undo journals, trust, conversation logs, the user's
// settings file). The servers lsptest starts read folders of their own
// (lsptest.Start, lsptest.Env), but what reads the process's environment
// still needs this: the shell and the commands it runs (git reads
// XDG_CONFIG_HOME), the agentls binaries and the editors the editor tests
// start (those set the folders they care about on top), and the servers
// started without lsptest (robust_test.go). XDG_CACHE_HOME is left alone:
// the go build those tests run keeps its cache there.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "agentls-lsp-test-")
	if err != nil {
		panic(err)
	}
	os.Setenv("XDG_STATE_HOME", dir+"/state")
	os.Setenv("XDG_CONFIG_HOME", dir+"/config")
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
