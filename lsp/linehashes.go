package lsp

import (
	"path/filepath"

	"github.com/agentls/agentls/anchored"
)

// LineHashes returns a snapshot of the line hashes of the open buffer of
// rel at version, hashing it the first time (documents.Store.LineHashes);
// nil when the buffer is not open at that version. It implements
// tools.Hashes: the turn's Env hands it to the anchored tools.
func (e editorSource) LineHashes(rel string, version int32) *anchored.Index {
	return e.docs.LineHashes(cleanFile(filepath.Join(e.disk.Root, filepath.FromSlash(rel))), version)
}

// Views returns where view_anchored keeps the anchor table of each file's
// last view, for patch_anchored on the same text: the server's, shared by
// its turns and bounded to a few files (anchored.Views). It implements
// tools.Hashes with LineHashes.
func (e editorSource) Views() *anchored.Views { return e.views }
