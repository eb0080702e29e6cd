package policy

import (
	"os"
	"testing"
)

// TestMain keeps the tests from reading the user's own git config: every
// workspace the tests make has a home of its own, and XDG_CONFIG_HOME or
// GIT_CONFIG_GLOBAL from the environment would lead the policy's check of
// the user-level config (gitconfig.go) back to the real one. The system's
// config is left, so that the benchmarks stat what a real check does.
func TestMain(m *testing.M) {
	for _, v := range []string{"XDG_CONFIG_HOME", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM"} {
		os.Unsetenv(v)
	}
	os.Exit(m.Run())
}
