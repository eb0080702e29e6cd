package lsp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"go.lsp.dev/protocol"

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

// refreshSettings loads the settings files again when the workspace's
// changed on disk, or its trust did, since they were loaded: a trusted
// file rewritten while the server runs (by an approved agent edit, a
// pull) is read under the trust rule like a new one — its security keys
// are ignored until the user trusts it as it is now, and the user is
// told. Called as each turn starts; reading one small file costs far
// less than the turn.
func (s *Server) refreshSettings() {
	root := s.session().root
	if root == "" || !s.settings.stale(s.getenv, root) {
		return
	}
	l := s.settings.reload(s.getenv, root)
	s.cmds.configure()
	s.log.Info("workspace settings changed on disk: loaded again", "root", root, "trusted", l.WorkspaceTrusted, "ignored", l.Ignored)
	if msgs := settingsMessages(l, root); len(msgs) > 0 {
		s.goBackground("report settings", func(ctx context.Context) {
			for _, m := range msgs {
				s.client.showMessage(ctx, protocol.MessageTypeWarning, "agentls: %s changed: %s", settings.WorkspaceFile, m)
			}
		})
	}
}

// configure applies the editor's raw settings at once and reports their
// problems to the user in the background.
func (s *Server) configure(raw json.RawMessage, from string) {
	problems := s.settings.applyEditor(raw, from)
	s.cmds.configure()
	s.reportSettings(problems)
}

// settingsMessages are the words for the user about the settings files:
// one line per problem, and one for the workspace keys left out until the
// user trusts the file.
func settingsMessages(l settings.Loaded, root string) []string {
	var out []string
	for _, p := range l.Problems {
		if !p.Ignored {
			out = append(out, p.String())
		}
	}
	if len(l.Ignored) > 0 {
		out = append(out, fmt.Sprintf("%s sets %s, which decide what runs or where your code and keys go: they are ignored until you trust the file as it is now (`agentls trust %s`, or the code action \"%s\" in the file). Read it first: a cloned repository can ship it, and the agent cannot trust it for you",
			settings.WorkspaceFile, strings.Join(l.Ignored, ", "), root, trustTitle))
	}
	return out
}

// reportSettings shows settings problems in the background.
func (s *Server) reportSettings(problems []settings.Problem) {
	if len(problems) == 0 {
		return
	}
	s.goBackground("report settings", func(ctx context.Context) {
		for _, p := range problems {
			s.client.showMessage(ctx, protocol.MessageTypeWarning, "agentls: %s", p)
		}
	})
}

func (s *Server) currentSettings() serverSettings { return s.settings.get() }

type didChangeConfigurationParams struct {
	Settings json.RawMessage `json:"settings"`
}

// didChangeConfiguration takes the pushed settings, or pulls them with
// workspace/configuration when the client only signals a change.
func (s *Server) didChangeConfiguration(ctx context.Context, p *didChangeConfigurationParams) (any, error) {
	if len(p.Settings) > 0 && string(p.Settings) != "null" && string(p.Settings) != "{}" {
		s.configure(p.Settings, "settings")
		return nil, nil
	}
	s.goBackground("pull configuration", s.pullConfiguration)
	return nil, nil
}

// pullConfiguration asks a client that supports it for section "agentls".
func (s *Server) pullConfiguration(ctx context.Context) {
	supported := s.session().caps.Workspace.Configuration
	if !supported {
		return
	}
	var res []json.RawMessage
	params := map[string]any{"items": []map[string]string{{"section": "agentls"}}}
	if _, err := s.conn.Call(ctx, protocol.MethodWorkspaceConfiguration, params, &res); err != nil {
		s.log.Warn("workspace/configuration failed", "err", err)
		return
	}
	if len(res) > 0 {
		s.configure(res[0], "workspace configuration")
	}
}
