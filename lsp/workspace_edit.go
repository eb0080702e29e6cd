package lsp

import (
	"fmt"
	"os"
	"path/filepath"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agentls/agentls/edits"
	"github.com/agentls/agentls/lsp/internal/documents"
	"github.com/agentls/agentls/lsp/internal/position"
)

// workspaceEditFor turns a changeset into one WorkspaceEdit: every text
// edit pinned to the document version it was computed on (null for files
// not open), minimal edits so cursors in untouched lines stay put (a file
// not open is replaced whole, with its base's hash: unseen_buffer.go),
// CreateFile and DeleteFile for new and removed files. Every path is
// checked again as the edit is built (sendableURI), so nothing outside the
// workspace is ever sent.
//
// Clients that announce neither documentChanges nor resource operations
// get the plain "changes" map, which cannot create or delete files. Neovim
// 0.7 applies documentChanges without announcing them, but announces
// resource operations: either one means documentChanges work.
func (d *delivery) workspaceEditFor(cs *edits.Changeset) (workspaceEdit, error) {
	sess := d.session()
	caps, enc, root := sess.caps, sess.encoding, sess.root

	useDocumentChanges := caps.Workspace.WorkspaceEdit.DocumentChanges || len(caps.Workspace.WorkspaceEdit.ResourceOperations) > 0
	var we workspaceEdit
	for _, c := range cs.Effective() {
		u, doc, open, err := d.sendableURI(root, c)
		if err != nil {
			return workspaceEdit{}, err
		}
		var textEdits []protocol.TextEdit
		switch {
		case c.Action == edits.Modify && c.Version == edits.NotOpen:
			// Sent with version null: a buffer agentls cannot see may
			// hold other text (unseen_buffer.go).
			textEdits = unseenFileEdit(c)
			if we.BaseHashes == nil {
				we.BaseHashes = map[protocol.DocumentURI]string{}
			}
			we.BaseHashes[u] = baseHash(c.Base())
		case c.Action != edits.Delete: // a deleted file needs no edits
			if textEdits, err = lspEdits(c, doc, open, enc); err != nil {
				return workspaceEdit{}, fmt.Errorf("%s: %w", c.Path, err)
			}
		}
		if !useDocumentChanges {
			if c.Action != edits.Modify {
				return workspaceEdit{}, fmt.Errorf("%s: the editor cannot create or delete files through LSP (it announces no resource operations)", c.Path)
			}
			if we.Changes == nil {
				we.Changes = map[protocol.DocumentURI][]protocol.TextEdit{}
			}
			we.Changes[u] = textEdits
			continue
		}
		var version *int32
		if c.Version != edits.NotOpen {
			v := c.Version
			version = &v
		}
		switch c.Action {
		case edits.Create:
			if sess.quirks.createdFileToLine1 {
				textEdits = []protocol.TextEdit{{Range: position.LineRange(0, 1), NewText: c.Result()}}
			}
			we.DocumentChanges = append(we.DocumentChanges,
				createFile{Kind: "create", URI: u},
				textDocumentEdit{TextDocument: versionedID{URI: u}, Edits: textEdits})
		case edits.Delete:
			we.DocumentChanges = append(we.DocumentChanges, deleteFile{Kind: "delete", URI: u})
		default:
			we.DocumentChanges = append(we.DocumentChanges, textDocumentEdit{TextDocument: versionedID{URI: u, Version: version}, Edits: textEdits})
		}
	}
	return we, nil
}

// sendableURI returns the URI a change is sent for, checking its path
// again at the moment the WorkspaceEdit is built, not only when a tool
// computed the change: a symlink made meanwhile (by a shell command of the
// same agent turn, or another program) must neither lead the editor to
// write outside the workspace nor turn the edit onto another document
// than the one it was computed on. The paths of a changeset are real
// paths (edits.CleanPath resolves symlinks), so a path that now resolves
// elsewhere changed under the edit, and is refused. The file's mode is
// checked as for the disk (edits.CheckMode): read-only and setuid files
// are not changed through the editor either. A file open in the editor is
// named by the URI of its buffer (which the editor may have opened through
// a symlink), the buffer the change was computed on, which is returned
// too (open says whether there is one).
func (d *delivery) sendableURI(root string, c *edits.FileChange) (u protocol.DocumentURI, doc documents.Document, open bool, err error) {
	if root == "" {
		return "", documents.Document{}, false, fmt.Errorf("%s: no workspace folder to edit it in", c.Path)
	}
	abs, err := edits.ResolveInRoot(root, c.Path)
	if err != nil {
		return "", documents.Document{}, false, err
	}
	if want := filepath.Join(root, filepath.FromSlash(c.Path)); abs != want {
		return "", documents.Document{}, false, fmt.Errorf("%s now leads through a symlink to %s, not the file the edit was computed on: refused; run the request again", c.Path, abs)
	}
	if info, err := os.Lstat(abs); err == nil && info.Mode().IsRegular() {
		if err := edits.CheckMode(c.Path, c.Action, info.Mode()); err != nil {
			return "", documents.Document{}, false, err
		}
	}
	if doc, open := d.docs.ByFile(abs); open && doc.URI != "" {
		return doc.URI, doc, true, nil
	}
	return protocol.DocumentURI(uri.File(abs)), documents.Document{}, false, nil
}

// lspEdits converts a change's edits (those its tool recorded, else a
// diff: FileChange.TextEdits) into LSP text edits in the negotiated
// position encoding. Their offsets are in Base; when Base is the text of
// the open buffer doc (the version the change was computed on: the
// change was recorded on that very Buffer, or on its joined text), the
// buffer's own line index places them, otherwise the lines of Base up to
// each edit are counted. Either way the cost is that of the edits and a
// walk to them, not an index of the whole document, and a change
// recorded on the Buffer (edits.Changeset.EditBuffer) is placed without
// its text ever being joined.
func lspEdits(c *edits.FileChange, doc documents.Document, open bool, enc edits.Encoding) ([]protocol.TextEdit, error) {
	es := c.TextEdits()
	out := make([]protocol.TextEdit, 0, len(es))
	if len(es) == 0 {
		return out, nil
	}
	offsets := make([]int, 0, 2*len(es))
	for _, e := range es {
		offsets = append(offsets, e.Start, e.End)
	}
	var m position.Mapper
	switch {
	case open && doc.Version == c.Version && c.Version != edits.NotOpen &&
		(c.BaseBuffer() == doc.Buf || doc.Buf.Len() == len(c.Base()) && doc.Text() == c.Base()):
		// Recorded on this Buffer, or on its text, which was joined
		// when the change read it: the comparison is of a string with
		// itself.
		m = position.New(doc.Buf, enc)
	default:
		m = position.ForText(c.Base(), enc)
	}
	pos, err := m.Positions(offsets...)
	if err != nil {
		return nil, err
	}
	for k, e := range es {
		out = append(out, protocol.TextEdit{Range: protocol.Range{Start: pos[2*k], End: pos[2*k+1]}, NewText: e.New})
	}
	return out, nil
}
