package lsp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/settings"
)

// serverSettings are the server's options: one settings.Settings, made
// from the defaults, the user's and the workspace's files, and the
// editor's settings on top (initializationOptions,
// workspace/didChangeConfiguration, workspace/configuration).
type serverSettings = settings.Settings

// settingsLayers are what the settings were made from: the files as
// loaded, and every key the editor set (later values replace earlier
// ones), so the settings can be made again when the files change or the
// user trusts the workspace's.
type settingsLayers struct {
	files      settings.Loaded
	editorKeys map[string]json.RawMessage
	// stamp is the workspace file and its trust as the files were
	// loaded (workspaceStamp), to tell when they must be loaded again.
	stamp string
}

// fromEditor is how the editor's settings are taken: the user's own
// choice, so every key applies.
func fromEditor(from string) settings.Source { return settings.Source{Name: from, Trusted: true} }

// A settingsStore holds the settings in force and the layers they were
// made from. Its methods take its lock and call no other store.
type settingsStore struct {
	mu      sync.Mutex
	current serverSettings
	layers  settingsLayers
}

func newSettingsStore(getenv func(string) string) *settingsStore {
	return &settingsStore{current: settings.Defaults(getenv)}
}

// get returns the settings in force (a copy: Settings is a value).
func (st *settingsStore) get() serverSettings {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.current
}

// applyEditor lays the editor's raw settings over the current ones and
// keeps its keys, so the settings can be made again over reloaded files
// (after the user trusts the workspace's). Later values of a key replace
// earlier ones.
func (st *settingsStore) applyEditor(raw json.RawMessage, from string) []settings.Problem {
	raw = withoutToken(raw)
	st.mu.Lock()
	defer st.mu.Unlock()
	next, problems := st.current.Apply(raw, fromEditor(from), agent.SettingChecks())
	st.current = next
	var fields map[string]json.RawMessage
	if json.Unmarshal(raw, &fields) != nil {
		return problems
	}
	if inner, ok := fields["agentls"]; ok && len(fields) == 1 {
		fields = nil
		if json.Unmarshal(inner, &fields) != nil {
			return problems
		}
	}
	if st.layers.editorKeys == nil {
		st.layers.editorKeys = map[string]json.RawMessage{}
	}
	for k, v := range fields {
		st.layers.editorKeys[k] = v
	}
	return problems
}

// withoutToken is raw without a --listen token (TokenOption): not a
// setting, though an editor that sends its settings as
// initializationOptions sends it again with them (Neovim's plugin in
// workspace/configuration's answers).
func withoutToken(raw json.RawMessage) json.RawMessage {
	if !bytes.Contains(raw, []byte(TokenOption)) {
		return raw
	}
	var fields map[string]json.RawMessage
	if json.Unmarshal(raw, &fields) != nil {
		return raw
	}
	delete(fields, TokenOption)
	if inner, ok := fields["agentls"]; ok {
		fields["agentls"] = withoutToken(inner)
	}
	out, err := json.Marshal(fields)
	if err != nil {
		return raw
	}
	return out
}

// reload reads the settings files (the user's and the workspace's of
// root) and lays the editor's settings over them. It returns the files'
// problems (the editor's were reported when it sent them).
func (st *settingsStore) reload(getenv func(string) string, root string) settings.Loaded {
	// Stamped before loading: a change in between shows at the next look.
	stamp := workspaceStamp(getenv, root)
	files := agent.LoadSettings(getenv, root)
	st.mu.Lock()
	defer st.mu.Unlock()
	st.layers.files = files
	st.layers.stamp = stamp
	next := files.Settings
	if len(st.layers.editorKeys) > 0 {
		raw, _ := json.Marshal(st.layers.editorKeys)
		next, _ = next.Apply(raw, fromEditor("editor"), agent.SettingChecks())
	}
	st.current = next
	return files
}

// stale reports whether root's settings file, or its trust, changed
// since the settings were loaded.
func (st *settingsStore) stale(getenv func(string) string, root string) bool {
	stamp := workspaceStamp(getenv, root)
	st.mu.Lock()
	defer st.mu.Unlock()
	return stamp != st.layers.stamp
}

// workspaceStamp names root's settings file as it is and whether it is
// trusted so (a grant made or revoked, a demo's grant whose process
// ended): what, when it changes, makes the settings be loaded again.
func workspaceStamp(getenv func(string) string, root string) string {
	if root == "" {
		return ""
	}
	data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(settings.WorkspaceFile)))
	if err != nil {
		return "unread: " + err.Error()
	}
	return fmt.Sprintf("%s trusted=%v", settings.Hash(data), settings.Trust{Getenv: getenv}.Trusted(root, data))
}
