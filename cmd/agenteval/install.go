package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
)

// The peers' versions: the ones `editbench peers` installs and the issue
// measured. Their pinned dependencies conflict, so each gets its own
// virtualenv, as editbench does.
const (
	aiderVersion = "0.86.2"
	gptmeVersion = "0.35.1"
)

// peerPackages is, per peer, its distribution's name and version.
var peerPackages = map[string][2]string{
	"aider": {"aider-chat", aiderVersion},
	"gptme": {"gptme", gptmeVersion},
}

// defaultVenvs is where the virtualenvs are kept between runs.
func defaultVenvs() string {
	if dir, err := os.UserCacheDir(); err == nil {
		return filepath.Join(dir, "agenteval", "venvs")
	}
	return filepath.Join(os.TempDir(), "agenteval-venvs")
}

// installPeer makes sure venvs/NAME holds the peer's pinned version from
// PyPI (installing it the first time, a few minutes) and returns its
// executable.
func installPeer(ctx context.Context, log io.Writer, python, venvs, name string) (string, error) {
	dist, version := peerPackages[name][0], peerPackages[name][1]
	pkg := dist + "==" + version
	dir := filepath.Join(venvs, name)
	py := filepath.Join(dir, "bin", "python")
	if _, err := os.Stat(py); err != nil {
		fmt.Fprintf(log, "agenteval: creating a virtualenv in %s\n", dir)
		if err := logged(ctx, log, python, "-m", "venv", dir); err != nil {
			return "", err
		}
	}
	show, _ := exec.CommandContext(ctx, py, "-m", "pip", "show", dist).Output()
	if !bytes.Contains(show, []byte("\nVersion: "+version+"\n")) {
		fmt.Fprintf(log, "agenteval: pip install %s (from PyPI; a few minutes)\n", pkg)
		if err := logged(ctx, log, py, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", pkg); err != nil {
			return "", err
		}
	}
	exe := filepath.Join(dir, "bin", name)
	if _, err := os.Stat(exe); err != nil {
		return "", fmt.Errorf("%s installed without its command: %w", pkg, err)
	}
	return exe, nil
}

func logged(ctx context.Context, log io.Writer, argv ...string) error {
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s: %w", argv, err)
	}
	return nil
}
