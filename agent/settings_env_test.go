package agent

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/agentls/agentls/settings"
)

// settingsEnv is a user's environment of its own: HOME, the state and the
// config folders, all under the test's temporary folder.
type settingsEnv struct{ home, state, config string }

func newSettingsEnv(t *testing.T) settingsEnv {
	base := t.TempDir()
	return settingsEnv{home: filepath.Join(base, "home"), state: filepath.Join(base, "state"), config: filepath.Join(base, "config")}
}

func (e settingsEnv) getenv(k string) string {
	switch k {
	case "HOME":
		return e.home
	case "XDG_STATE_HOME":
		return e.state
	case "XDG_CONFIG_HOME":
		return e.config
	}
	return ""
}

// settingsWorkspace is a new workspace whose settings file holds content
// ("" for none).
func settingsWorkspace(t *testing.T, content string) string {
	t.Helper()
	root := t.TempDir()
	if content != "" {
		name := filepath.Join(root, settings.WorkspaceFile)
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}
