package settings

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentls/agentls/agent"
)

// Trust is the user's record of which workspace settings files they
// trusted, as they were: one file per workspace in the state folder
// ($XDG_STATE_HOME/agentls/trust/<workspace>/settings.sha256) holding the
// SHA-256 of the exact content trusted. The state folder is the user's,
// outside every workspace, so nothing in a repository (or written there
// by the agent) can mark itself trusted; and a file that changed in any
// byte is untrusted again until the user trusts it anew.
type Trust struct {
	// Getenv reads XDG_STATE_HOME and HOME.
	Getenv func(string) string
}

// Hash is how trust names a settings file's content.
func Hash(content []byte) string {
	sum := sha256.Sum256(content)
	return hex.EncodeToString(sum[:])
}

func (t Trust) file(root string) (string, error) {
	dir, err := agent.StateDir(t.Getenv, "trust", root)
	if err != nil {
		return "", fmt.Errorf("trust: %w", err)
	}
	return filepath.Join(dir, "settings.sha256"), nil
}

// Trusted reports whether the user trusted root's settings file with
// exactly this content.
func (t Trust) Trusted(root string, content []byte) bool {
	name, err := t.file(root)
	if err != nil {
		return false
	}
	data, err := os.ReadFile(name)
	if err != nil {
		return false
	}
	return strings.TrimSpace(string(data)) == Hash(content)
}

// Grant records that the user trusts root's settings file with this
// content (it replaces an earlier grant).
func (t Trust) Grant(root string, content []byte) error {
	name, err := t.file(root)
	if err != nil {
		return err
	}
	tmp := name + ".tmp"
	if err := os.WriteFile(tmp, []byte(Hash(content)+"\n"), 0o600); err != nil {
		return fmt.Errorf("trust %s: %w", root, err)
	}
	if err := os.Rename(tmp, name); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("trust %s: %w", root, err)
	}
	return nil
}

// Revoke forgets root's grant; revoking what was never granted is fine.
func (t Trust) Revoke(root string) error {
	name, err := t.file(root)
	if err != nil {
		return err
	}
	if err := os.Remove(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("revoke trust in %s: %w", root, err)
	}
	return nil
}
