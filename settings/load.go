package settings

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// WorkspaceFile is a workspace's own settings file, relative to its root:
// the same keys as the editor's settings, which override it. Its harmless
// keys always apply; its security-relevant ones only once the user
// trusted its content (agentls trust).
const WorkspaceFile = ".agentls/settings.json"

// UserFile is the user's own settings file,
// $XDG_CONFIG_HOME/agentls/settings.json (else ~/.config/…): trusted like
// the editor's settings, under them in precedence. "" when neither
// variable is set.
func UserFile(getenv func(string) string) string {
	dir := getenv("XDG_CONFIG_HOME")
	if dir == "" {
		home := getenv("HOME")
		if home == "" {
			return ""
		}
		dir = filepath.Join(home, ".config")
	}
	return filepath.Join(dir, "agentls", "settings.json")
}

// Loaded is the settings from the files, and what became of the
// workspace's.
type Loaded struct {
	Settings Settings
	Problems []Problem
	// Workspace is the workspace file's content (nil when there is none);
	// WorkspaceTrusted whether the user trusted exactly that.
	Workspace        []byte
	WorkspaceTrusted bool
	// Ignored are the security-relevant keys the workspace file sets that
	// were left out because it is not trusted.
	Ignored []string
}

// Load reads the settings files of the user and of the workspace at root
// ("" for none) over the defaults: defaults, then the user's file, then
// the workspace's (its security-relevant keys only if trusted), each key
// checked with checks. The editor's settings go on top (Settings.Apply
// with a trusted Source).
func Load(getenv func(string) string, root string, checks Checks) Loaded {
	l := Loaded{Settings: Defaults(getenv)}
	if name := UserFile(getenv); name != "" {
		data, err := readObject(name)
		if err != nil {
			l.Problems = append(l.Problems, Problem{Source: name, Message: err.Error()})
		} else if data != nil {
			var ps []Problem
			l.Settings, ps = l.Settings.Apply(data, Source{Name: name, Trusted: true}, checks)
			l.Problems = append(l.Problems, ps...)
		}
	}
	if root == "" {
		return l
	}
	data, err := readObject(filepath.Join(root, filepath.FromSlash(WorkspaceFile)))
	if err != nil {
		l.Problems = append(l.Problems, Problem{Source: WorkspaceFile, Message: err.Error()})
		return l
	}
	if data == nil {
		return l
	}
	l.Workspace = data
	l.WorkspaceTrusted = Trust{Getenv: getenv}.Trusted(root, data)
	src := Source{Name: WorkspaceFile, Trusted: l.WorkspaceTrusted,
		Untrusted: "the workspace's settings file is not trusted; if you wrote it or checked it, trust it with `agentls trust " + root + "` (or the editor's \"Trust workspace settings\" code action on the file)"}
	var ps []Problem
	l.Settings, ps = l.Settings.Apply(data, src, checks)
	for _, p := range ps {
		if p.Ignored {
			l.Ignored = append(l.Ignored, p.Key)
		}
	}
	l.Problems = append(l.Problems, ps...)
	return l
}

// readObject returns a settings file's content, nil when there is no
// such file; a file that is not a JSON object is an error.
func readObject(name string) ([]byte, error) {
	data, err := os.ReadFile(name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(data, &obj); err != nil {
		return nil, fmt.Errorf("not a JSON object: %w", err)
	}
	return data, nil
}

// PrivateDirs are the user's own agentls folders — the user's settings
// folder and agentls's state folder (trust, approvals, logs) — which an
// agent's edit must never change unasked, even when a workspace holds
// them (a home folder opened as the workspace).
func PrivateDirs(getenv func(string) string) []string {
	var out []string
	if name := UserFile(getenv); name != "" {
		out = append(out, filepath.Dir(name))
	}
	state := getenv("XDG_STATE_HOME")
	if state == "" && getenv("HOME") != "" {
		state = filepath.Join(getenv("HOME"), ".local", "state")
	}
	if state != "" {
		out = append(out, filepath.Join(state, "agentls"))
	}
	return out
}
