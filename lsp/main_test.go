package lsp_test

import (
	"os"
	"testing"
)

// TestMain keeps the servers the tests start out of the user's state and
// settings folders (undo journals, trust, conversation logs, the user's
// settings file): a test that wants its own sets them again with
// t.Setenv.
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
