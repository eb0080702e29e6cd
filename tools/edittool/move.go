package edittool

import (
	"context"
	"fmt"
	"strings"

	"github.com/agentls/agentls/edits"
)

// Delete removes the file at path (the delete tool): apply_patch's
// "*** Delete File" as a call of its own. body is the block's content,
// which must be empty: a delete block holding text is a save or a patch
// the model mislabelled, and nothing is removed.
func (b *Batch) Delete(ctx context.Context, path, body string) (string, error) {
	if strings.TrimSpace(path) == "" {
		return "", fmt.Errorf("delete: no path given: write the file after the block type, e.g. ```delete old.py (the block stays empty)")
	}
	if strings.TrimSpace(body) != "" {
		return "", fmt.Errorf("delete %s: the block holds text; nothing was deleted. A delete block stays empty; to change the file use save or patch", path)
	}
	if _, err := b.applyV4AFile(ctx, edits.V4AFile{Op: edits.V4ADelete, Path: path}); err != nil {
		return "", err
	}
	return "Deleted " + path, nil
}

// Move renames the file at from to to (the move tool): apply_patch's
// "*** Move to" without hunks. A file already at to is not replaced, and
// the block must be empty (see Delete).
func (b *Batch) Move(ctx context.Context, from, to, body string) (string, error) {
	if strings.TrimSpace(from) == "" || strings.TrimSpace(to) == "" {
		return "", fmt.Errorf("move: give the file and its new path after the block type, e.g. ```move util.go strings.go (the block stays empty)")
	}
	if strings.TrimSpace(body) != "" {
		return "", fmt.Errorf("move %s: the block holds text; nothing was moved. A move block stays empty; change the file with save or patch, before or after", from)
	}
	f, err := b.read(ctx, from)
	if err != nil {
		return "", err
	}
	if !f.exists {
		return "", fmt.Errorf("move %s: there is no %s to move (read the folder to see its files)", from, from)
	}
	if _, err := b.applyV4AFile(ctx, edits.V4AFile{Op: edits.V4AUpdate, Path: from, MoveTo: to}); err != nil {
		return "", err
	}
	return "Moved " + from + " to " + to, nil
}
