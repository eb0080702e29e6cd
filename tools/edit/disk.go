package edit

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentls/agentls/edits"
)

// DiskSource reads files from the disk under Root, for the CLI and for
// files no editor has open. Like writes, reads never leave the root, even
// through a symlink.
type DiskSource struct {
	Root string // absolute, symlinks resolved
}

// Read implements Source.
func (d DiskSource) Read(_ context.Context, path string) (string, int32, bool, error) {
	full := filepath.Join(d.Root, filepath.FromSlash(path))
	real, err := filepath.EvalSymlinks(full)
	if errors.Is(err, fs.ErrNotExist) {
		return "", edits.NotOpen, false, nil
	}
	if err != nil {
		return "", edits.NotOpen, false, err
	}
	if rel, err := filepath.Rel(d.Root, real); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", edits.NotOpen, false, errors.New(path + " resolves to " + real + ", outside the workspace")
	}
	data, err := os.ReadFile(real)
	if err != nil {
		return "", edits.NotOpen, false, err
	}
	return string(data), edits.NotOpen, true, nil
}
