package lsp

import (
	"context"
	"path/filepath"
	"slices"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agentls/agentls/edits"
	"github.com/agentls/agentls/edits/journal"
)

func (s *Server) initialize(_ context.Context, p *initializeParams) (any, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.state != stateNew {
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidRequest, "initialize was already received")
	}
	root := ""
	switch {
	case p.RootURI != "":
		root = s.workspaceRoot(p.RootURI)
	case len(p.WorkspaceFolders) > 0:
		root = s.workspaceRoot(protocol.DocumentURI(p.WorkspaceFolders[0].URI))
	}
	if root != "" {
		if real, err := filepath.EvalSymlinks(root); err == nil {
			root = real
		}
	}
	sess := &session{root: root, client: p.ClientInfo.Name, caps: p.Capabilities, quirks: quirksOf(p.ClientInfo.Name), encoding: edits.UTF16}
	// UTF-8 positions when the client offers them: no conversion at all.
	encoding := "utf-16"
	if slices.Contains(p.Capabilities.General.PositionEncodings, "utf-8") {
		encoding, sess.encoding = "utf-8", edits.UTF8
	}
	s.sess.Store(sess)
	s.state = stateInitializing
	// The settings files first (the user's, then the workspace's, whose
	// security-relevant keys count only once the user trusted it), then
	// the editor's, which override them. Problems are reported once
	// initialized (a message before the initialize reply would break the
	// handshake).
	s.pendingProblems = append(s.pendingProblems, settingsMessages(s.settings.reload(s.getenv, root), root)...)
	// The undo history of earlier sessions, kept in the state folder.
	if root != "" {
		if d, err := journal.OpenDisk(s.getenv, root); err != nil {
			s.pendingProblems = append(s.pendingProblems, err.Error()+": the undo history is kept for this session only")
		} else if p := s.journal.Attach(d); p != "" {
			s.pendingProblems = append(s.pendingProblems, p)
		}
	}
	if len(p.InitOptions) > 0 {
		for _, p := range s.settings.applyEditor(p.InitOptions, "initializationOptions") {
			s.pendingProblems = append(s.pendingProblems, p.String())
		}
	}
	s.log.Info("initialize", "client", p.ClientInfo.Name, "clientVersion", p.ClientInfo.Version, "root", root, "encoding", encoding)
	return map[string]any{
		"capabilities": map[string]any{
			"positionEncoding": encoding,
			"textDocumentSync": map[string]any{
				"openClose": true,
				"change":    protocol.TextDocumentSyncKindIncremental,
				"save":      map[string]any{"includeText": false},
			},
			"codeActionProvider": true,
			// Mentions in chat documents (completion.go): triggered by
			// the characters that start them.
			"completionProvider":     map[string]any{"triggerCharacters": []string{"@", "#", "/"}},
			"executeCommandProvider": map[string]any{"commands": commandNames()},
		},
		"serverInfo": map[string]any{"name": "agentls", "version": s.opts.Version},
	}, nil
}

// fileURI returns the URI of a workspace path.
func (sess *session) fileURI(rel string) protocol.DocumentURI {
	return protocol.DocumentURI(uri.File(filepath.Join(sess.root, filepath.FromSlash(rel))))
}

// quirks are what particular editors need beyond the spec.
type quirks struct {
	// createdFileToLine1: Neovim inserts a created file's content above
	// the empty line a new buffer has, so the file gains a trailing blank
	// line; the edit must replace that line (range 0:0–1:0).
	createdFileToLine1 bool
	// skipsNewerBuffers: Neovim skips a document edit whose buffer is
	// newer than the edit's version and still answers applied: true
	// (recoverSkipped).
	skipsNewerBuffers bool
	// namesProgress: Helix shows a progress as "<server>: <title>", so
	// the "agentls: " a title starts with would show twice.
	namesProgress bool
	// showsTabsAsCaret: Neovim echoes a message's tabs as "^I" (the
	// model's code, a read's numbered lines): they are sent as spaces.
	showsTabsAsCaret bool
	// logsCommandErrors: Helix puts the error a workspace/executeCommand
	// answers in its log only; it is shown as a message too.
	logsCommandErrors bool
	// showsDocumentsUnannounced: Helix opens the file of a
	// window/showDocument request (the chat of "space A o") although it
	// does not announce the capability.
	showsDocumentsUnannounced bool
	// hidesCreatedText: Helix makes a CreateFile's file empty on disk and
	// puts its text in a hidden buffer it never saves; such files are
	// written by the server (created_on_disk.go).
	hidesCreatedText bool
}

func quirksOf(client string) quirks {
	return quirks{createdFileToLine1: client == "Neovim", skipsNewerBuffers: client == "Neovim", namesProgress: client == "helix", showsTabsAsCaret: client == "Neovim", logsCommandErrors: client == "helix", showsDocumentsUnannounced: client == "helix", hidesCreatedText: client == "helix"}
}
