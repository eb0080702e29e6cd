package lsp

import (
	"fmt"
	"strings"
)

// editorKeys say how the user of one editor reaches agentls's commands,
// so that a message names this editor's way and no other's: its plugin's
// command or the set-up's key where the project has one, else the code
// action every client shows. The client is known by its clientInfo name
// (eglot 1.9 sends none) and the plugin by the saveDocuments setting,
// which every plugin of editors/ sets and nothing else does.
type editorKeys struct {
	// undo and output are phrases that fit after "undo:" and "the rest:".
	undo, output string
}

// keysFor returns the editor keys of a client named client; plugin says
// whether its agentls plugin runs.
func keysFor(client string, plugin bool) editorKeys {
	switch {
	case client == "Neovim" && plugin:
		return editorKeys{undo: ":AgentUndo", output: ":AgentOutput"}
	case isVSCode(client) && plugin:
		return editorKeys{undo: `"Agent: Undo" (Command Palette)`, output: `"Agent: Show Output"`}
	case client == "helix":
		// The keys of editors/helix/config.toml.
		return editorKeys{undo: "space A u", output: ":log-open (space A l)"}
	case (client == "" || strings.EqualFold(client, "eglot")) && plugin:
		// agentls.el shows the keys bound to these commands instead.
		return editorKeys{undo: "M-x agentls-undo", output: "M-x agentls-output"}
	}
	return editorKeys{undo: `the code action "Undo agent turn"`, output: "the output channel (the server's log messages)"}
}

func isVSCode(client string) bool {
	return strings.HasPrefix(client, "Visual Studio Code") || client == "code-server" || client == "VSCodium"
}

// editorKeys are the keys of this connection's editor.
func (s *Server) editorKeys() editorKeys {
	return keysFor(s.session().client, s.settings.get().SaveDocuments)
}

// undoHint says how to undo turn in this editor.
func (k editorKeys) undoHint(turn int) string {
	return fmt.Sprintf("undo: %s (agent turn %d)", k.undo, turn)
}
