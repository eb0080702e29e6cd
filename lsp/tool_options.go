package lsp

import "github.com/agentls/agentls/agent"

// ToolOptions makes editorWorkspace an agent.ToolConfigured: a turn's
// view_image and browser are configured by the server's settings (vision,
// imageMaxSide, browserAllowlist, searchUrl, browserTimeout) when
// agent.BindTools binds them.
func (w *editorWorkspace) ToolOptions() agent.ToolOptions {
	opts := w.s.currentSettings().ToolOptions()
	opts.Getenv = w.s.getenv // morph's apply model reads its key from the server's environment
	return opts
}

// Buffers makes editorWorkspace a rag.BufferWorkspace: the text of every
// open buffer of a workspace file, by its path, so rag searches (and
// quotes) what the editor holds, unsaved changes included.
func (w *editorWorkspace) Buffers() map[string]string {
	out := map[string]string{}
	for _, d := range w.s.docs.all() {
		if rel, err := w.s.relPath(d); err == nil {
			out[rel] = d.text()
		}
	}
	return out
}
