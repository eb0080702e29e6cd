package agent

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/agentls/agentls/internal/statedir"
)

// OpenLog creates the conversation log of a new turn: a JSONL file under
// stateDir/agentls/turns/<workspace>/, named by time and turn id. The
// state folder, not the workspace, so logs never show up in the user's
// diffs; the workspace part is a short hash of its path. getenv reads
// XDG_STATE_HOME and HOME.
func OpenLog(getenv func(string) string, root string, id int, now time.Time) (*os.File, error) {
	dir, err := statedir.Dir(getenv, "turns", root)
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
