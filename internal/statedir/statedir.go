// Package statedir says where agentls keeps what it remembers about a
// workspace outside it: conversation logs, command logs, "Always"
// answers, trust grants, the rag index. It is the state folder
// ($XDG_STATE_HOME, else ~/.local/state), never the workspace, so none of
// it shows up in the user's diffs or can be written by a repository.
//
// It is a leaf: every layer that keeps state asks it, and it asks
// nothing but the environment it is given.
package statedir

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
)

// Dir creates and returns the folder for one kind of agentls state
// ("turns", "runs") of a workspace: stateDir/agentls/<kind>/<workspace>,
// where the workspace part is its base name and a short hash of its path.
// getenv reads XDG_STATE_HOME and HOME.
func Dir(getenv func(string) string, kind, root string) (string, error) {
	state := getenv("XDG_STATE_HOME")
	if state == "" {
		home := getenv("HOME")
		if home == "" {
			return "", fmt.Errorf("neither XDG_STATE_HOME nor HOME is set")
		}
		state = filepath.Join(home, ".local", "state")
	}
	sum := sha256.Sum256([]byte(root))
	dir := filepath.Join(state, "agentls", kind, filepath.Base(root)+"-"+hex.EncodeToString(sum[:4]))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	return dir, nil
}

// KeptApprovals is the file that keeps a workspace's "Always" answers to
// command approvals (shelltool.Options.AlwaysFile), in the state folder:
// the user's trust, not the project's (a project shares its allowlist in
// .agentls/settings.json). It is "" when there is no state folder.
func KeptApprovals(getenv func(string) string, root string) string {
	dir, err := Dir(getenv, "approvals", root)
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "always.txt")
}
