package tools

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// SettingsFile is a workspace's own agentls settings, relative to its
// root: the same keys as the editor's "agentls" settings section, which
// override it. It lets a project share its command allowlist, and gives
// the CLI the configuration the server uses.
const SettingsFile = ".agentls/settings.json"

// ReadSettings returns the workspace's settings file, or nil when it has
// none. A file that is not a JSON object is an error.
func ReadSettings(root string) (json.RawMessage, error) {
	data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(SettingsFile)))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", SettingsFile, err)
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(data, &obj); err != nil {
		return nil, fmt.Errorf("%s: not a JSON object: %w", SettingsFile, err)
	}
	return data, nil
}
