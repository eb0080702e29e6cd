package lsp

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/lsp/internal/documents"
)

// Buffers and disk. The agent's edits land in the editor's buffers, which
// the editor saves when the user says so; a shell command sees the disk.
// So before an agent's command runs, the buffers that differ from their
// files are saved by the client where it can do so (our editor plugins
// implement the agentls/saveDocuments request and say so with
// "saveDocuments": true in initializationOptions); what stays unsaved is
// named to the model (in the command's result) and to the user. The
// server never writes a file an editor holds open behind its back: the
// editor would then hold a buffer whose file changed under it, and some
// editors refuse or warn on the next save.

const methodSaveDocuments = "agentls/saveDocuments"

type saveDocumentsParams struct {
	URIs []protocol.DocumentURI `json:"uris"`
}

// unsavedDocuments returns the open documents whose text differs from
// their file on disk (a file that does not exist counts as different).
func (s *Server) unsavedDocuments() []documents.Document {
	var out []documents.Document
	for _, d := range s.docs.Files() {
		disk, err := os.ReadFile(d.Path)
		if err != nil || !bytes.Equal(disk, []byte(d.Text())) {
			out = append(out, d)
		}
	}
	slices.SortFunc(out, func(a, b documents.Document) int { return strings.Compare(a.Path, b.Path) })
	return out
}

// syncDisk saves the editor's unsaved buffers through the client when it
// can, and returns a note for the model naming the files whose unsaved
// changes a shell command will not see ("" when the disk is in step).
func (s *Server) syncDisk(ctx context.Context) string {
	unsaved := s.unsavedDocuments()
	if len(unsaved) == 0 {
		return ""
	}
	if s.settings.get().SaveDocuments {
		params := saveDocumentsParams{}
		for _, d := range unsaved {
			params.URIs = append(params.URIs, d.URI)
		}
		callCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
		_, err := s.conn.Call(callCtx, methodSaveDocuments, params, nil)
		cancel()
		if err != nil {
			s.log.Warn("agentls/saveDocuments failed", "err", err)
		}
		// The client's didSave and didChange may trail its answer; what
		// counts is the disk.
		unsaved = s.unsavedDocuments()
		if len(unsaved) == 0 {
			return ""
		}
	}
	var names []string
	for _, d := range unsaved {
		if rel, err := s.relPath(d); err == nil {
			names = append(names, rel)
		} else {
			names = append(names, d.Path)
		}
	}
	list := strings.Join(names, ", ")
	if t := taskOf(ctx); t != nil {
		// Repeated in the turn's last message: the warning below is
		// gone from a status line (Helix's) in a moment.
		t.note(fmt.Sprintf("%s %s unsaved changes the agent's commands did not see (save and ask again if it matters)", list, plural(len(names), "has", "have")))
	}
	s.client.showMessage(ctx, protocol.MessageTypeWarning, "agentls: %s %s unsaved changes: the agent's command sees the files on disk without them. Save them (Neovim :wa, Helix :write-all, VS Code Save All) and ask again if it matters",
		list, plural(len(names), "has", "have"))
	return fmt.Sprintf("Note: %s %s unsaved changes in the editor (including any edits you made to them); this command saw the files on disk without those changes. Tell the user to save them if the result depends on them.", list, plural(len(names), "has", "have"))
}
