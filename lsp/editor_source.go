package lsp

import (
	"context"
	"path/filepath"

	"github.com/agentls/agentls/anchored"
	"github.com/agentls/agentls/edits"
	"github.com/agentls/agentls/lsp/internal/documents"
	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/edittool"
)

// editorSource reads files as the editor has them: an open buffer, else
// the disk. It implements tools.Source, tools.BufferSource (an open
// buffer as its edits.Buffer, so a patch after a keystroke joins no
// text), and tools.Hashes with the line hashes the documents store keeps
// and the server's kept views (linehashes.go).
type editorSource struct {
	docs  *documents.Store
	views *anchored.Views
	disk  edittool.DiskSource
}

// source is the workspace as the editor has it (editorSource).
func (s *Server) source() editorSource {
	return editorSource{docs: s.docs, views: &s.views, disk: edittool.DiskSource{Root: s.session().root}}
}

func (e editorSource) Read(ctx context.Context, rel string) (string, int32, bool, error) {
	name := filepath.Join(e.disk.Root, filepath.FromSlash(rel))
	if d, ok := e.docs.ByFile(cleanFile(name)); ok {
		return d.Text(), d.Version, true, nil
	}
	return e.disk.Read(ctx, rel)
}

func (e editorSource) ReadBuffer(_ context.Context, rel string) (*edits.Buffer, int32, bool) {
	name := filepath.Join(e.disk.Root, filepath.FromSlash(rel))
	if d, ok := e.docs.ByFile(cleanFile(name)); ok {
		return d.Buf, d.Version, true
	}
	return nil, 0, false
}

var _ tools.BufferSource = editorSource{}
