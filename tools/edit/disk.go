package edit

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
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
		return "", 0, false, nil
	}
	if err != nil {
		return "", 0, false, err
	}
	if rel, err := filepath.Rel(d.Root, real); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", 0, false, errors.New(path + " resolves to " + real + ", outside the workspace")
	}
	data, err := os.ReadFile(real)
	if err != nil {
		return "", 0, false, err
	}
	return string(data), 0, true, nil
}
