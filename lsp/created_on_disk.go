package lsp

import (
	"fmt"
	"path/filepath"

	"github.com/agentls/agentls/edits"
)

// Helix (25.07.1) applies a CreateFile by making the file empty on disk,
// and the text edit that follows by opening a buffer it does not show and
// never saves: the user sees no new file, :quit! leaves a 0-byte one, and
// undoing the turn is refused because the disk no longer holds what the
// turn made. For such a client (quirks.hidesCreatedText) a created file
// that no buffer holds is written here, as agentls ask writes files —
// exclusively, all of them or none — and left out of the WorkspaceEdit;
// its undo is then an ordinary DeleteFile, which Helix applies on disk.

// createOnDisk writes the files cs creates that no buffer holds, when the
// client hides a created file's text, and returns the rest of cs (what
// the WorkspaceEdit carries) and the changes it wrote. Nothing is written
// when it fails.
func (d *delivery) createOnDisk(cs edits.Changeset) (rest edits.Changeset, written []*edits.FileChange, err error) {
	sess := d.session()
	if !sess.quirks.hidesCreatedText || sess.root == "" {
		return cs, nil, nil
	}
	rest.Label = cs.Label
	for _, c := range cs.Effective() {
		if _, open := d.docs.ByFile(filepath.Join(sess.root, filepath.FromSlash(c.Path))); c.Action == edits.Create && !open {
			written = append(written, c)
			continue
		}
		rest.Changes = append(rest.Changes, c)
	}
	if len(written) == 0 {
		return cs, nil, nil
	}
	if err := edits.ApplyToDisk(sess.root, &edits.Changeset{Label: cs.Label, Changes: written}); err != nil {
		return cs, nil, fmt.Errorf("writing the new files: %w", err)
	}
	return rest, written, nil
}

// removeCreated takes back files createOnDisk wrote, when the rest of
// their edit was not made: each only while it still holds what was
// written (never someone's later work).
func (d *delivery) removeCreated(written []*edits.FileChange) {
	if len(written) == 0 {
		return
	}
	var back edits.Changeset
	for _, c := range written {
		back.Remove(c.Path, c.Result(), edits.NotOpen)
	}
	if err := edits.ApplyToDisk(d.session().root, &back); err != nil {
		d.log.Warn("the files written for a refused edit stay on disk", "err", err)
	}
}
