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
