package lsp

import (
	"encoding/json"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/lsp/internal/documents"
)

// Extension types: what go.lsp.dev/protocol v0.12.0 (LSP 3.15) lacks or
// gets wrong for us (DESIGN.md §13), kept in this one file.

// initializeParams reads only what the server uses from initialize, with
// the 3.17 fields the library does not have.
type initializeParams struct {
	ClientInfo struct {
		Name    string `json:"name"`
		Version string `json:"version"`
	} `json:"clientInfo"`
	RootURI          protocol.DocumentURI       `json:"rootUri"`
	WorkspaceFolders []protocol.WorkspaceFolder `json:"workspaceFolders"`
	Capabilities     clientCapabilities         `json:"capabilities"`
	InitOptions      json.RawMessage            `json:"initializationOptions"`
}

type clientCapabilities struct {
	General struct {
		PositionEncodings []string `json:"positionEncodings"`
	} `json:"general"`
	Workspace struct {
		ApplyEdit     bool `json:"applyEdit"`
		Configuration bool `json:"configuration"`
		WorkspaceEdit struct {
			DocumentChanges    bool     `json:"documentChanges"`
			ResourceOperations []string `json:"resourceOperations"`
			// FailureHandling is what the client does when one change of
			// a WorkspaceEdit fails: "abort" (Helix) keeps the ones before
			// it applied; "transactional" and "undo" leave nothing.
			FailureHandling string `json:"failureHandling"`
		} `json:"workspaceEdit"`
	} `json:"workspace"`
	Window struct {
		WorkDoneProgress bool `json:"workDoneProgress"`
		// ShowMessage is present when the client answers
		// window/showMessageRequest (Helix does not).
		ShowMessage  *json.RawMessage `json:"showMessage"`
		ShowDocument struct {
			Support bool `json:"support"`
		} `json:"showDocument"`
	} `json:"window"`
}

type didChangeParams struct {
	TextDocument   protocol.VersionedTextDocumentIdentifier `json:"textDocument"`
	ContentChanges []documents.ContentChange                `json:"contentChanges"`
}

// workspaceEdit carries documentChanges as the union LSP 3.16 defines:
// text document edits and resource operations, in order.
type workspaceEdit struct {
	Changes         map[protocol.DocumentURI][]protocol.TextEdit `json:"changes,omitempty"`
	DocumentChanges []any                                        `json:"documentChanges,omitempty"`
	// BaseHashes (agentls's own field, which other clients ignore) maps
	// each file edited with version null to the sha256 (hex) of the text
	// the edit was computed from: agentls's editor set-ups check a buffer
	// agentls cannot see against it (unseen_buffer.go).
	BaseHashes map[protocol.DocumentURI]string `json:"agentlsBaseHashes,omitempty"`
}

// textDocumentEdit pins edits to a document version; Version is null for
// a document the editor does not have open (the disk's content).
type textDocumentEdit struct {
	TextDocument versionedID         `json:"textDocument"`
	Edits        []protocol.TextEdit `json:"edits"`
}

type versionedID struct {
	URI     protocol.DocumentURI `json:"uri"`
	Version *int32               `json:"version"`
}

type createFile struct {
	Kind    string               `json:"kind"` // "create"
	URI     protocol.DocumentURI `json:"uri"`
	Options *struct {
		Overwrite      bool `json:"overwrite,omitempty"`
		IgnoreIfExists bool `json:"ignoreIfExists,omitempty"`
	} `json:"options,omitempty"`
}

type deleteFile struct {
	Kind string               `json:"kind"` // "delete"
	URI  protocol.DocumentURI `json:"uri"`
}

type applyEditParams struct {
	Label string        `json:"label,omitempty"`
	Edit  workspaceEdit `json:"edit"`
}

// applyEditResult is the result object (the library decodes it into a
// bool, which fails against real editors).
type applyEditResult struct {
	Applied       bool   `json:"applied"`
	FailureReason string `json:"failureReason,omitempty"`
	FailedChange  *int   `json:"failedChange,omitempty"`
	// after is the number of the last message the editor sent before
	// this answer (inbound): its didChange echoes of the edit come first.
	after uint64
}

// executeCommandParams keeps the arguments raw: each command decodes its
// one JSON object itself.
type executeCommandParams struct {
	Command   string            `json:"command"`
	Arguments []json.RawMessage `json:"arguments"`
}
