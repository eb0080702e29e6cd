package settings

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/agentls/agentls/internal/statedir"
)

// Trust is the user's record of which workspace settings files they
// trusted, as they were: one file per workspace in the state folder
// ($XDG_STATE_HOME/agentls/trust/<workspace>/settings.sha256) holding the
// SHA-256 of the exact content trusted. The state folder is the user's,
// outside every workspace, so nothing in a repository (or written there
// by the agent) can mark itself trusted; and a file that changed in any
// byte is untrusted again until the user trusts it anew. A grant made by
// GrantWhile has a second line, "while PID START", and holds only while
// that process runs.
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
	dir, err := statedir.Dir(t.Getenv, "trust", root)
	if err != nil {
		return "", fmt.Errorf("trust: %w", err)
	}
	return filepath.Join(dir, "settings.sha256"), nil
}

// Trusted reports whether the user trusted root's settings file with
// exactly this content, and, for a grant bound to a process (GrantWhile),
// whether that process still runs.
func (t Trust) Trusted(root string, content []byte) bool {
	name, err := t.file(root)
	if err != nil {
		return false
	}
	data, err := os.ReadFile(name)
	if err != nil {
		return false
	}
	hash, owner, bound := strings.Cut(strings.TrimSpace(string(data)), "\n")
	if strings.TrimSpace(hash) != Hash(content) {
		return false
	}
	return !bound || ownerRuns(owner)
}

// Grant records that the user trusts root's settings file with this
// content (it replaces an earlier grant).
func (t Trust) Grant(root string, content []byte) error {
	return t.grant(root, Hash(content)+"\n")
}

// GrantWhile is Grant for as long as this process runs: a grant that
// points the settings at something that lives only as long as the
// process (the demo's model on a local port) must not outlive it, even
// when the process is killed before it can Revoke. The record names the
// process by its id and start time, so a later process given the same id
// does not keep it alive.
func (t Trust) GrantWhile(root string, content []byte) error {
	pid := os.Getpid()
	start, err := processStart(pid)
	if err != nil {
		return fmt.Errorf("trust %s: %w", root, err)
	}
	return t.grant(root, fmt.Sprintf("%s\nwhile %d %s\n", Hash(content), pid, start))
}

// ownerRuns reports whether a grant's owner line ("while PID START")
// names a process that still runs.
func ownerRuns(owner string) bool {
	var pid int
	var start string
	if n, err := fmt.Sscanf(strings.TrimSpace(owner), "while %d %s", &pid, &start); n != 2 || err != nil || pid <= 0 {
		return false
	}
	now, err := processStart(pid)
	return err == nil && now == start
}

// processStart names when process pid started, so that a pid reused by
// another process is told apart: its start time in clock ticks since
// boot (/proc/PID/stat's 22nd field) where /proc has it; elsewhere only
// whether it runs ("running"). An error means it does not run (or
// cannot be seen).
func processStart(pid int) (string, error) {
	stat, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err == nil {
		// The command's name, in parentheses, may hold spaces: the fields
		// are counted after its closing one (field 3 on).
		fields := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
		if len(fields) < 20 {
			return "", fmt.Errorf("process %d: /proc/%d/stat has %d fields", pid, pid, len(fields)+2)
		}
		if fields[0] == "Z" || fields[0] == "X" {
			return "", fmt.Errorf("process %d has exited", pid)
		}
		return fields[19], nil
	}
	if _, serr := os.Stat("/proc/self/stat"); serr == nil {
		return "", fmt.Errorf("process %d: %w", pid, err) // /proc works: pid is gone
	}
	p, err := os.FindProcess(pid)
	if err != nil {
		return "", err
	}
	if err := p.Signal(syscall.Signal(0)); err != nil && !errors.Is(err, syscall.EPERM) {
		return "", fmt.Errorf("process %d: %w", pid, err)
	}
	return "running", nil
}

func (t Trust) grant(root, record string) error {
	name, err := t.file(root)
	if err != nil {
		return err
	}
	tmp := name + ".tmp"
	if err := os.WriteFile(tmp, []byte(record), 0o600); err != nil {
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
