package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/settings"
)

// workspaceRoot is the folder a subcommand works in, absolute and with
// its symbolic links resolved, as the server resolves its root: trust is
// recorded by that path, so a workspace reached through a link is the
// same workspace for every subcommand and for the editor.
func workspaceRoot(dir string) (string, error) {
	root, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	resolved, err := filepath.EvalSymlinks(root)
	if errors.Is(err, fs.ErrNotExist) {
		// lstat's own words ("lstat /x: no such file or directory") name a
		// system call; the user typed a folder.
		return "", errNoFolder
	}
	return resolved, err
}

// errNoFolder is workspaceRoot's error for a folder that does not exist.
var errNoFolder = errors.New("no such folder")

// loadSettings reads the user's and the workspace's settings files for a
// command working under root, telling stderr what was not taken: bad
// values and unknown keys, and the workspace keys left out until the user
// trusts the file. It reports whether there was a problem other than an
// untrusted key.
func loadSettings(root, command string, stderr io.Writer) (settings.Loaded, bool) {
	l := agent.LoadSettings(os.Getenv, root)
	bad := false
	for _, p := range l.Problems {
		if !p.Ignored {
			fmt.Fprintf(stderr, "agentls %s: %s\n", command, p)
			bad = true
		}
	}
	if len(l.Ignored) > 0 {
		fmt.Fprintf(stderr, "agentls %s: %s sets %s, which decide what runs or where your code and keys go: ignored until you trust the file as it is now (read it, then run `agentls trust %s`)\n",
			command, settings.WorkspaceFile, strings.Join(l.Ignored, ", "), root)
	}
	return l, bad
}
