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
	// cmd formats a command with its JSON argument as this client runs
	// it (a plugin's own command where it has one).
	cmd func(name, arg string) string
}

// keysFor returns the editor keys of a client named client; plugin says
// whether its agentls plugin runs.
func keysFor(client string, plugin bool) editorKeys {
	raw := func(name, arg string) string {
		if arg == "" {
			return name
		}
		return name + " " + arg
	}
	codeAction := editorKeys{undo: `the code action "Undo agent turn"`, output: "the output channel (the server's log messages)", cmd: raw}
	switch {
	case client == "Neovim" && plugin:
		return editorKeys{undo: ":AgentUndo", output: ":AgentOutput", cmd: func(name, arg string) string {
			if c, ok := nvimCommands[name]; ok {
				return c
			}
			return raw(name, arg)
		}}
	case isVSCode(client) && plugin:
		return editorKeys{undo: `"Agent: Undo" (Command Palette)`, output: `"Agent: Show Output"`, cmd: func(name, arg string) string {
			if c, ok := vscodeCommands[name]; ok {
				return `"` + c + `"`
			}
			return raw(name, arg)
		}}
	case client == "helix":
		// The keys of editors/helix/config.toml; :lsp-workspace-command
		// runs any command without them.
		return editorKeys{undo: "space A u", output: ":log-open (space A l)", cmd: func(name, arg string) string {
			return ":lsp-workspace-command " + raw(name, arg)
		}}
	case (client == "" || strings.EqualFold(client, "eglot")) && plugin:
		return editorKeys{undo: "M-x agentls-undo", output: "M-x agentls-output", cmd: func(name, arg string) string {
			if c, ok := emacsCommands[name]; ok {
				return "M-x " + c
			}
			return raw(name, arg)
		}}
	}
	return codeAction
}

func isVSCode(client string) bool {
	return strings.HasPrefix(client, "Visual Studio Code") || client == "code-server" || client == "VSCodium"
}

// The plugins' commands for the server's commands, where they have one.
var (
	nvimCommands = map[string]string{
		cmdUndo: ":AgentUndo", "agentls.turn.redo": ":AgentRedo", "agentls.cancel": ":AgentCancel",
		"agentls.approve": ":AgentApprove", "agentls.deny": ":AgentDeny",
		"agentls.review.accept": ":AgentReview accept", "agentls.review.reject": ":AgentReview reject", "agentls.review.diff": ":AgentReview diff",
	}
	vscodeCommands = map[string]string{
		cmdUndo: "Agent: Undo", "agentls.turn.redo": "Agent: Redo", "agentls.cancel": "Agent: Cancel",
		"agentls.approve": "Agent: Approve…", "agentls.deny": "Agent: Deny…",
		"agentls.review.accept": "Agent: Review Accept…", "agentls.review.reject": "Agent: Review Reject…", "agentls.review.diff": "Agent: Review Diff",
	}
	emacsCommands = map[string]string{
		cmdUndo: "agentls-undo", "agentls.turn.redo": "agentls-redo", "agentls.cancel": "agentls-cancel",
		"agentls.approve": "agentls-approve", "agentls.deny": "agentls-deny",
	}
)

// editorKeys are the keys of this connection's editor.
func (s *Server) editorKeys() editorKeys {
	return keysFor(s.session().client, s.currentSettings().SaveDocuments)
}

// undoHint says how to undo turn in this editor.
func (k editorKeys) undoHint(turn int) string {
	return fmt.Sprintf("undo: %s (agent turn %d)", k.undo, turn)
}
