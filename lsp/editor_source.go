package lsp

import (
	"context"
	"path/filepath"

	"github.com/agentls/agentls/lsp/internal/documents"
	"github.com/agentls/agentls/tools/edittool"
)

// editorSource reads files as the editor has them: an open buffer, else
// the disk. It implements tools.Source, and tools.Hashes with the line
// hashes the documents store keeps (linehashes.go).
type editorSource struct {
	docs *documents.Store
	disk edittool.DiskSource
}

// source is the workspace as the editor has it (editorSource).
func (s *Server) source() editorSource {
	return editorSource{docs: s.docs, disk: edittool.DiskSource{Root: s.session().root}}
}

func (e editorSource) Read(ctx context.Context, rel string) (string, int32, bool, error) {
	name := filepath.Join(e.disk.Root, filepath.FromSlash(rel))
	if d, ok := e.docs.ByFile(cleanFile(name)); ok {
		return d.Text(), d.Version, true, nil
	}
	return e.disk.Read(ctx, rel)
}
