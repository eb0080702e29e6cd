package lsp

import (
	"fmt"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/edits"
)

// workspaceEditFor turns a changeset into one WorkspaceEdit: every text
// edit pinned to the document version it was computed on (null for files
// not open), minimal edits so cursors in untouched lines stay put,
// CreateFile and DeleteFile for new and removed files.
//
// Clients that announce neither documentChanges nor resource operations
// get the plain "changes" map, which cannot create or delete files. Neovim
// 0.7 applies documentChanges without announcing them, but announces
// resource operations: either one means documentChanges work.
func (s *Server) workspaceEditFor(cs *edits.Changeset) (workspaceEdit, error) {
	s.mu.Lock()
	caps, enc := s.caps, s.encoding
	s.mu.Unlock()

	useDocumentChanges := caps.Workspace.WorkspaceEdit.DocumentChanges || len(caps.Workspace.WorkspaceEdit.ResourceOperations) > 0
	var we workspaceEdit
	for _, c := range cs.Effective() {
		u := s.fileURI(c.Path)
		textEdits, err := lspEdits(c.Base, c.Result, enc)
		if err != nil {
			return workspaceEdit{}, fmt.Errorf("%s: %w", c.Path, err)
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
			if s.quirks.createdFileToLine1 {
				textEdits = []protocol.TextEdit{{Range: protocol.Range{End: protocol.Position{Line: 1}}, NewText: c.Result}}
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

// lspEdits converts the minimal edits from before to after into LSP text
// edits in the negotiated position encoding.
func lspEdits(before, after string, enc edits.Encoding) ([]protocol.TextEdit, error) {
	m := edits.NewMapper(before)
	var out []protocol.TextEdit
	for _, e := range edits.MinimalEdits(before, after) {
		sl, sc, err := m.Position(e.Start, enc)
		if err != nil {
			return nil, err
		}
		el, ec, err := m.Position(e.End, enc)
		if err != nil {
			return nil, err
		}
		out = append(out, protocol.TextEdit{
			Range: protocol.Range{
				Start: protocol.Position{Line: uint32(sl), Character: uint32(sc)},
				End:   protocol.Position{Line: uint32(el), Character: uint32(ec)},
			},
			NewText: e.New,
		})
	}
	if out == nil {
		out = []protocol.TextEdit{}
	}
	return out, nil
}
