package edittool

import (
	"context"
	"fmt"
	"strings"

	"github.com/agentls/agentls/edits"
)

// ApplyPatch applies a patch in OpenAI's apply_patch (V4A) format: files
// added, deleted, updated and moved, all or nothing.
func (b *Batch) ApplyPatch(ctx context.Context, patch string) (string, error) {
	files, err := edits.ParseV4A(patch)
	if err != nil {
		return "", fmt.Errorf("apply_patch: %w", err)
	}
	done, failed, err := b.applyEach(files, func(t *Batch, f edits.V4AFile) (string, error) { return t.applyV4AFile(ctx, f) })
	if err != nil {
		return "", fmt.Errorf("apply_patch: file %d/%d: %w", failed+1, len(files), err)
	}
	return "Patch applied: " + strings.Join(done, ", "), nil
}

// applyEach applies files in order through apply, all or nothing (a
// patch's or a diff's files): what each did ("M a.go"), or the index of
// the file that failed and why.
func (b *Batch) applyEach(files []edits.V4AFile, apply func(t *Batch, f edits.V4AFile) (string, error)) (done []string, failed int, err error) {
	err = b.atomically(func(t *Batch) error {
		for i, f := range files {
			what, err := apply(t, f)
			if err != nil {
				failed = i
				return err
			}
			done = append(done, what)
		}
		return nil
	})
	return done, failed, err
}

// applyV4AFile applies one file section and says what it did ("M a.go").
func (b *Batch) applyV4AFile(ctx context.Context, v edits.V4AFile) (string, error) {
	f, err := b.read(ctx, v.Path)
	if err != nil {
		return "", err
	}
	switch v.Op {
	case edits.V4AAdd:
		if f.exists {
			// Codex overwrites it; its content was never read, and in the
			// editor it may hold unsaved work.
			return "", fmt.Errorf("add %s: the file already exists; to change it use \"*** Update File: %s\", to replace it whole put \"*** Delete File: %s\" before the Add", f.path, f.path, f.path)
		}
		b.write(f, v.Content)
		return "A " + f.path, nil
	case edits.V4ADelete:
		if !f.exists {
			return "", fmt.Errorf("delete %s: the file does not exist", f.path)
		}
		b.Changes.Remove(f.path, f.content, f.version)
		return "D " + f.path, nil
	}
	if !f.exists {
		return "", fmt.Errorf("update %s: the file does not exist; add it with \"*** Add File:\"", f.path)
	}
	es := []edits.TextEdit{}
	if len(v.Hunks) > 0 {
		if es, err = edits.ResolveHunks(f.content, v.Hunks); err != nil {
			return "", fmt.Errorf("update %s: %w", f.path, err)
		}
	}
	if v.MoveTo == "" {
		if err := b.writeEdits(f, es); err != nil {
			return "", fmt.Errorf("update %s: %w", f.path, err)
		}
		return "M " + f.path, nil
	}
	result := edits.ApplyEdits(f.content, es)
	to, err := b.read(ctx, v.MoveTo)
	if err != nil {
		return "", err
	}
	if to.exists && to.path != f.path {
		// Codex overwrites it, as it does on an Add: refused for the same reason.
		return "", fmt.Errorf("move %s to %s: %s already exists; to replace it put \"*** Delete File: %s\" before the Update", f.path, to.path, to.path, to.path)
	}
	b.Changes.Remove(f.path, f.content, f.version)
	b.write(to, result)
	return "R " + f.path + " → " + to.path, nil
}

// atomically runs fn on a copy of the batch and keeps its changes only if
// it succeeds: a multi-file tool changes all its files or none.
func (b *Batch) atomically(fn func(trial *Batch) error) error {
	trial := &Batch{Root: b.Root, Source: b.Source, Hashes: b.Hashes}
	trial.Changes.Changes = cloneChanges(b.Changes.Changes)
	if err := fn(trial); err != nil {
		return err
	}
	b.Changes.Changes = trial.Changes.Changes
	return nil
}
