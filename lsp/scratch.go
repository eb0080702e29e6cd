package lsp

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
)

// A scratchDir holds the files the server made for the user to read (a
// pending review's diff): a temporary folder, made on first use and
// removed when the session ends. The zero value is ready.
type scratchDir struct {
	mu  sync.Mutex
	dir string
}

// write writes a file into the folder and returns its name.
func (sd *scratchDir) write(name, text string) (string, error) {
	sd.mu.Lock()
	defer sd.mu.Unlock()
	if sd.dir == "" {
		dir, err := os.MkdirTemp("", "agentls-")
		if err != nil {
			return "", fmt.Errorf("scratch directory: %w", err)
		}
		sd.dir = dir
	}
	name = filepath.Join(sd.dir, name)
	if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
		return "", fmt.Errorf("write %s: %w", name, err)
	}
	return name, nil
}

// remove removes the folder and what it holds.
func (sd *scratchDir) remove() {
	sd.mu.Lock()
	defer sd.mu.Unlock()
	if sd.dir != "" {
		os.RemoveAll(sd.dir)
	}
}
