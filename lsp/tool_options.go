package lsp

import "github.com/agentls/agentls/agent"

// ToolOptions makes editorWorkspace an agent.ToolConfigured: a turn's
// view_image and browser are configured by the server's settings (vision,
// imageMaxSide, browserAllowlist, searchUrl, browserTimeout) when
// agent.BindTools binds them.
func (w *editorWorkspace) ToolOptions() agent.ToolOptions {
	return w.s.currentSettings().ToolOptions()
}
