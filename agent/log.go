package agent

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// OpenLog creates the conversation log of a new turn: a JSONL file under
// stateDir/agentls/turns/<workspace>/, named by time and turn id. The
// state folder, not the workspace, so logs never show up in the user's
// diffs; the workspace part is a short hash of its path. getenv reads
// XDG_STATE_HOME and HOME.
func OpenLog(getenv func(string) string, root string, id int, now time.Time) (*os.File, error) {
	dir, err := StateDir(getenv, "turns", root)
	if err != nil {
		return nil, fmt.Errorf("conversation log: %w", err)
	}
	return createLog(dir, fmt.Sprintf("%s-turn%d", now.UTC().Format("20060102T150405Z"), id))
}

// createLog creates a new log file in dir named stem.jsonl, or stem-2.jsonl,
// stem-3.jsonl… when that name is taken: two `agentls ask` runs started in
// the same second both number their turn 1, and each must keep its own log.
func createLog(dir, stem string) (*os.File, error) {
	const tries = 1000
	for n := 1; n <= tries; n++ {
		name := stem + ".jsonl"
		if n > 1 {
			name = fmt.Sprintf("%s-%d.jsonl", stem, n)
		}
		f, err := os.OpenFile(filepath.Join(dir, name), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("conversation log: %w", err)
		}
		return f, nil
	}
	return nil, fmt.Errorf("conversation log: %d logs named %s in %s already", tries, stem, dir)
}

// StateDir creates and returns the folder for one kind of agentls state
// ("turns", "runs") of a workspace: stateDir/agentls/<kind>/<workspace>,
// where the workspace part is its base name and a short hash of its path.
// getenv reads XDG_STATE_HOME and HOME.
func StateDir(getenv func(string) string, kind, root string) (string, error) {
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
	dir, err := StateDir(getenv, "approvals", root)
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "always.txt")
}
