// Package lsptest is an in-process fake editor for testing the language
// server end to end, in the spirit of gopls's fake editor: a real JSON-RPC
// client over a pipe that keeps versioned buffers, applies WorkspaceEdits
// the way editors do (version checks, the negotiated position encoding,
// resource operations), tells the server about its own changes, answers
// server requests, and records what the server shows. Tests wait on
// conditions (Await), never sleep.
package lsptest

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agentls/agentls/edits"
	"github.com/agentls/agentls/lsp"
)

// A Profile is what an editor announces in initialize.
type Profile struct {
	Name         string
	ClientInfo   map[string]string
	Capabilities map[string]any
	// SkipsNewerBuffers: the editor skips a document edit whose buffer is
	// newer than the edit's version, applies the rest and answers
	// applied: true (Neovim 0.7's apply_text_document_edit).
	SkipsNewerBuffers bool
	// OpenVersion is the version a buffer is opened at: Neovim and Helix
	// start at 0, VS Code at 1.
	OpenVersion int32
}

// Profiles of real editors, from what they sent in initialize (the team's
// editor-profiles: Neovim 0.7.2, VS Code 1.100.3; Helix from its source).
func Neovim07() Profile {
	return Profile{Name: "neovim-0.7", ClientInfo: map[string]string{"name": "Neovim", "version": "0.7.2"}, Capabilities: map[string]any{
		"workspace": map[string]any{
			"applyEdit": true,
			// Neovim 0.7 applies documentChanges but does not announce them;
			// it announces resource operations.
			"workspaceEdit": map[string]any{"resourceOperations": []string{"rename", "create", "delete"}},
		},
		"window": map[string]any{"workDoneProgress": true, "showMessage": map[string]any{"messageActionItem": map[string]any{"additionalPropertiesSupport": false}}},
	}, SkipsNewerBuffers: true}
}

func VSCode() Profile {
	return Profile{Name: "vscode-1.100", OpenVersion: 1, Capabilities: map[string]any{
		"general": map[string]any{"positionEncodings": []string{"utf-16"}},
		"workspace": map[string]any{
			"applyEdit":     true,
			"workspaceEdit": map[string]any{"documentChanges": true, "resourceOperations": []string{"create", "rename", "delete"}, "changeAnnotationSupport": map[string]any{"groupsOnLabel": true}},
			"configuration": true,
		},
		"window": map[string]any{"workDoneProgress": true, "showDocument": map[string]any{"support": true}, "showMessage": map[string]any{"messageActionItem": map[string]any{"additionalPropertiesSupport": true}}},
	}}
}

func Helix() Profile {
	return Profile{Name: "helix", Capabilities: map[string]any{
		"general": map[string]any{"positionEncodings": []string{"utf-8", "utf-32", "utf-16"}},
		"workspace": map[string]any{
			"applyEdit":     true,
			"workspaceEdit": map[string]any{"documentChanges": true, "resourceOperations": []string{"create", "rename", "delete"}},
		},
		"window": map[string]any{"workDoneProgress": true},
	}}
}

// showsDocuments reports whether the profile announces window/showDocument.
func (p Profile) showsDocuments() bool {
	w, _ := p.Capabilities["window"].(map[string]any)
	sd, _ := w["showDocument"].(map[string]any)
	return sd["support"] == true
}

// hasButtons reports whether the profile answers window/showMessageRequest.
func (p Profile) hasButtons() bool {
	w, _ := p.Capabilities["window"].(map[string]any)
	_, ok := w["showMessage"]
	return ok
}

// Profiles returns every profile, for tests that run under each.
func Profiles() []Profile { return []Profile{Neovim07(), VSCode(), Helix()} }

type buffer struct {
	version int32
	text    string
}

// An Editor is a fake editor connected to a real server.
type Editor struct {
	t        testing.TB
	Root     string
	profile  Profile
	conn     jsonrpc2.Conn
	encoding edits.Encoding

	mu       sync.Mutex
	changed  chan struct{}      // closed and replaced on every recorded event
	buffers  map[string]*buffer // by path relative to Root
	messages []protocol.ShowMessageParams
	logs     []string
	shown    []protocol.DocumentURI // documents the server asked to show
	progress []ProgressEvent
	hooks    map[string]func(json.RawMessage) // OnRequest
	// editVersions are the versions the last WorkspaceEdit pinned its
	// document edits to (nil: none).
	editVersions map[string]*int32
	diags        map[string][]protocol.Diagnostic // by path relative to Root
	edits        int                              // workspace edits applied
	// RejectEdits makes the editor refuse every workspace edit.
	RejectEdits bool
	// BeforeApply, if set, runs before an edit is applied (to race it).
	BeforeApply func()
	// ChooseAction, if set, is the user pressing a button of a
	// window/showMessageRequest: it returns the title ("" dismisses it).
	// Unset, requests are dismissed.
	ChooseAction func(protocol.ShowMessageRequestParams) string
	requests     []protocol.ShowMessageRequestParams
	// SavesDocuments makes the editor implement agentls/saveDocuments, as
	// the agentls editor plugins do (start it with initializationOptions
	// {"saveDocuments": true} so the server knows).
	SavesDocuments bool
	// IgnoreApplyEdit makes the editor leave workspace/applyEdit
	// unanswered (a client that lost the request, or hung): the requests
	// are counted (ApplyEditsUnansweredLocked) and held, to be applied
	// and answered late by AnswerHeldApplyEdits, or never.
	IgnoreApplyEdit bool
	unanswered      int
	held            []func()
	// cancelled are the ids of the server's $/cancelRequest notifications.
	cancelled []json.RawMessage

	serverDone  chan error
	stop        func()
	initOptions any
	settings    any
}

// Start runs a server over an in-memory pipe and connects a fake editor
// with the profile to it, with root as the workspace folder. The server is
// shut down when the test ends.
func Start(t testing.TB, root string, profile Profile) *Editor {
	t.Helper()
	return StartWith(t, root, profile, nil, nil)
}

// StartWith is Start with initializationOptions, and the settings the
// editor answers workspace/configuration with (nil: none).
func StartWith(t testing.TB, root string, profile Profile, initOptions, settings any) *Editor {
	t.Helper()
	return StartWithOptions(t, root, profile, initOptions, settings, lsp.Options{})
}

// StartWithOptions is StartWith with the server's Options (Version
// defaults to "test").
func StartWithOptions(t testing.TB, root string, profile Profile, initOptions, settings any, opts lsp.Options) *Editor {
	t.Helper()
	if opts.Version == "" {
		opts.Version = "test"
	}
	if real, err := filepath.EvalSymlinks(root); err == nil {
		root = real
	}
	serverEnd, clientEnd := net.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	e := &Editor{t: t, Root: root, profile: profile, changed: make(chan struct{}), buffers: map[string]*buffer{}, serverDone: make(chan error, 1), initOptions: initOptions, settings: settings}
	go func() {
		_, err := lsp.Serve(ctx, serverEnd, opts)
		e.serverDone <- err
	}()
	e.conn = jsonrpc2.NewConn(jsonrpc2.NewStream(clientEnd))
	e.conn.Go(ctx, e.handle) // every path of handle replies, hooked ones later
	e.stop = sync.OnceFunc(func() {
		e.conn.Call(context.Background(), protocol.MethodShutdown, nil, nil)
		e.conn.Notify(context.Background(), protocol.MethodExit, nil)
		select {
		case <-e.serverDone:
		case <-time.After(10 * time.Second):
			t.Error("the server did not exit after shutdown and exit")
		}
		cancel()
		e.conn.Close()
	})
	t.Cleanup(func() { e.stop() })
	e.initialize()
	return e
}

// Shutdown shuts the server down (shutdown, exit) and waits until it has
// ended, as the test's end would.
func (e *Editor) Shutdown() { e.stop() }

// Die closes the connection without shutdown or exit, as an editor that
// crashed would, and waits until the server has ended.
func (e *Editor) Die() {
	e.stop = sync.OnceFunc(func() {})
	e.conn.Close()
	select {
	case <-e.serverDone:
	case <-time.After(10 * time.Second):
		e.t.Error("the server did not end after its client died")
	}
}

func (e *Editor) initialize() {
	var res struct {
		Capabilities struct {
			PositionEncoding string `json:"positionEncoding"`
		} `json:"capabilities"`
	}
	params := map[string]any{
		"processId":    os.Getpid(),
		"clientInfo":   e.profile.ClientInfo,
		"rootUri":      string(uri.File(e.Root)),
		"capabilities": e.profile.Capabilities,
	}
	if e.initOptions != nil {
		params["initializationOptions"] = e.initOptions
	}
	if _, err := e.conn.Call(context.Background(), protocol.MethodInitialize, params, &res); err != nil {
		e.t.Fatalf("initialize: %v", err)
	}
	e.encoding = edits.UTF16
	if res.Capabilities.PositionEncoding == "utf-8" {
		e.encoding = edits.UTF8
	}
	if err := e.conn.Notify(context.Background(), protocol.MethodInitialized, map[string]any{}); err != nil {
		e.t.Fatalf("initialized: %v", err)
	}
}

// Encoding is the position encoding the server chose.
func (e *Editor) Encoding() edits.Encoding { return e.encoding }

// signal records that something happened, waking Await.
func (e *Editor) signal() {
	close(e.changed)
	e.changed = make(chan struct{})
}

// Await waits until cond holds (it is checked under the editor's lock
// after every event), failing the test after a timeout.
func (e *Editor) Await(what string, cond func() bool) {
	e.t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		e.mu.Lock()
		ok := cond()
		ch := e.changed
		e.mu.Unlock()
		if ok {
			return
		}
		select {
		case <-ch:
		case <-deadline:
			e.mu.Lock()
			defer e.mu.Unlock()
			e.t.Fatalf("timed out waiting for %s; messages: %+v", what, e.messages)
		}
	}
}

func (e *Editor) uri(rel string) protocol.DocumentURI {
	return protocol.DocumentURI(uri.File(filepath.Join(e.Root, filepath.FromSlash(rel))))
}

func (e *Editor) rel(u protocol.DocumentURI) string {
	r, _ := filepath.Rel(e.Root, uri.URI(u).Filename())
	return filepath.ToSlash(r)
}

// OpenFile opens a file from disk into a buffer (version 1).
func (e *Editor) OpenFile(rel, languageID string) {
	e.t.Helper()
	data, err := os.ReadFile(filepath.Join(e.Root, rel))
	if err != nil {
		e.t.Fatal(err)
	}
	e.OpenBuffer(rel, languageID, string(data))
}

// OpenBuffer opens a buffer with the given text (a scratch or unsaved
// document).
func (e *Editor) OpenBuffer(rel, languageID, text string) {
	e.t.Helper()
	e.mu.Lock()
	e.buffers[rel] = &buffer{version: e.profile.OpenVersion, text: text}
	e.mu.Unlock()
	err := e.conn.Notify(context.Background(), protocol.MethodTextDocumentDidOpen, &protocol.DidOpenTextDocumentParams{
		TextDocument: protocol.TextDocumentItem{URI: e.uri(rel), LanguageID: protocol.LanguageIdentifier(languageID), Version: e.profile.OpenVersion, Text: text},
	})
	if err != nil {
		e.t.Fatal(err)
	}
}

// CloseFile closes a buffer and tells the server (didClose).
func (e *Editor) CloseFile(rel string) {
	e.t.Helper()
	e.mu.Lock()
	delete(e.buffers, rel)
	e.mu.Unlock()
	err := e.conn.Notify(context.Background(), protocol.MethodTextDocumentDidClose, &protocol.DidCloseTextDocumentParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: e.uri(rel)},
	})
	if err != nil {
		e.t.Fatal(err)
	}
}

// Type replaces a buffer's whole text, as the user typing, and tells the
// server.
func (e *Editor) Type(rel, text string) {
	e.t.Helper()
	e.mu.Lock()
	b := e.buffers[rel]
	b.version++
	b.text = text
	v := b.version
	e.mu.Unlock()
	e.notifyChange(rel, v, text)
}

func (e *Editor) notifyChange(rel string, version int32, text string) {
	if err := e.sendChange(rel, version, text); err != nil {
		e.t.Error(err)
	}
}

func (e *Editor) sendChange(rel string, version int32, text string) error {
	return e.conn.Notify(context.Background(), protocol.MethodTextDocumentDidChange, map[string]any{
		"textDocument":   map[string]any{"uri": e.uri(rel), "version": version},
		"contentChanges": []map[string]any{{"text": text}},
	})
}

// TypeAt inserts text at a position, as one incremental change (how
// editors send keystrokes).
func (e *Editor) TypeAt(rel string, line, char int, text string) {
	e.t.Helper()
	e.mu.Lock()
	b := e.buffers[rel]
	m := edits.NewMapper(b.text)
	off, err := m.Offset(line, char, e.encoding)
	if err != nil {
		e.mu.Unlock()
		e.t.Fatal(err)
	}
	b.text = b.text[:off] + text + b.text[off:]
	b.version++
	v := b.version
	e.mu.Unlock()
	pos := map[string]int{"line": line, "character": char}
	err = e.conn.Notify(context.Background(), protocol.MethodTextDocumentDidChange, map[string]any{
		"textDocument":   map[string]any{"uri": e.uri(rel), "version": v},
		"contentChanges": []map[string]any{{"range": map[string]any{"start": pos, "end": pos}, "text": text}},
	})
	if err != nil {
		e.t.Fatal(err)
	}
}

// Buffer returns a buffer's text.
func (e *Editor) Buffer(rel string) string {
	e.mu.Lock()
	defer e.mu.Unlock()
	if b, ok := e.buffers[rel]; ok {
		return b.text
	}
	e.t.Fatalf("%s is not open", rel)
	return ""
}

// BufferIfOpen returns a buffer's text, if it is open.
func (e *Editor) BufferIfOpen(rel string) (string, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.BufferIfOpenLocked(rel)
}

// BufferIfOpenLocked is BufferIfOpen inside an Await condition.
func (e *Editor) BufferIfOpenLocked(rel string) (string, bool) {
	if b, ok := e.buffers[rel]; ok {
		return b.text, true
	}
	return "", false
}

// ExecuteCommand runs a command with one argument object.
func (e *Editor) ExecuteCommand(command string, arg any) error {
	_, err := e.conn.Call(context.Background(), protocol.MethodWorkspaceExecuteCommand, map[string]any{"command": command, "arguments": []any{arg}}, nil)
	return err
}

// CodeActions asks for the code actions of a range of a buffer.
func (e *Editor) CodeActions(rel string, r protocol.Range) []protocol.CodeAction {
	e.t.Helper()
	return e.CodeActionsFor(rel, r, []protocol.Diagnostic{})
}

// CodeActionsFor asks for code actions with diagnostics in the context,
// as an editor does for the problems under the cursor.
func (e *Editor) CodeActionsFor(rel string, r protocol.Range, diagnostics []protocol.Diagnostic) []protocol.CodeAction {
	e.t.Helper()
	var actions []protocol.CodeAction
	_, err := e.conn.Call(context.Background(), protocol.MethodTextDocumentCodeAction, map[string]any{
		"textDocument": map[string]any{"uri": e.uri(rel)},
		"range":        r,
		"context":      map[string]any{"diagnostics": diagnostics},
	}, &actions)
	if err != nil {
		e.t.Fatal(err)
	}
	return actions
}

// RunCodeAction executes a code action's command.
func (e *Editor) RunCodeAction(a protocol.CodeAction) error {
	if a.Command == nil {
		return fmt.Errorf("code action %q has no command", a.Title)
	}
	var arg any
	if len(a.Command.Arguments) > 0 {
		arg = a.Command.Arguments[0]
	}
	return e.ExecuteCommand(a.Command.Command, arg)
}

// Messages returns what the server showed (call under Await's cond or
// after an Await).
func (e *Editor) Messages() []protocol.ShowMessageParams {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.messages)
}

// MessagesLocked is Messages for use inside an Await condition.
func (e *Editor) MessagesLocked() []protocol.ShowMessageParams { return e.messages }

// EditsApplied returns how many workspace edits the editor applied; for
// use inside an Await condition.
func (e *Editor) EditsAppliedLocked() int { return e.edits }

// EditsApplied is how many workspace edits the editor applied.
func (e *Editor) EditsApplied() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.edits
}

// EditVersion returns the version the last WorkspaceEdit pinned a
// document's edits to; ok is false when it had no edits for it, and v nil
// when they were not pinned.
func (e *Editor) EditVersion(rel string) (v *int32, ok bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	v, ok = e.editVersions[rel]
	return v, ok
}

// MessageRequestsLocked returns the window/showMessageRequests received.
func (e *Editor) MessageRequestsLocked() []protocol.ShowMessageRequestParams { return e.requests }

// ShownLocked returns the documents the server asked to show, in order;
// for use inside an Await condition.
func (e *Editor) ShownLocked() []protocol.DocumentURI { return e.shown }

// LogsLocked returns the output channel's messages.
func (e *Editor) LogsLocked() []string { return e.logs }

// HasMessage reports whether a shown message contains s.
func (e *Editor) HasMessage(s string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.HasMessageLocked(s)
}

// HasMessageLocked reports whether a shown message contains s; for use inside an
// Await condition.
func (e *Editor) HasMessageLocked(s string) bool {
	for _, m := range e.messages {
		if strings.Contains(m.Message, s) {
			return true
		}
	}
	return false
}

// handle answers the server's requests and records its notifications.
func (e *Editor) handle(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
	e.mu.Lock()
	hook := e.hooks[req.Method()]
	e.mu.Unlock()
	if hook != nil {
		// The hook may talk to the server and wait for answers, which
		// this goroutine must go on reading.
		go func() {
			hook(req.Params())
			e.answer(ctx, reply, req)
		}()
		return nil
	}
	return e.answer(ctx, reply, req)
}

// OnRequest makes the editor run fn before it answers or handles the
// server's messages of a method: the way to act at an exact point of the
// server's work (fn may call the server).
func (e *Editor) OnRequest(method string, fn func(params json.RawMessage)) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.hooks == nil {
		e.hooks = map[string]func(json.RawMessage){}
	}
	e.hooks[method] = fn
}

// Cancel presses the cancel button of a work-done progress.
func (e *Editor) Cancel(token string) {
	e.conn.Notify(context.Background(), "window/workDoneProgress/cancel", map[string]string{"token": token})
}

// A ProgressEvent is one $/progress value the server sent.
type ProgressEvent struct {
	Token       string `json:"-"`
	Kind        string `json:"kind"`
	Title       string `json:"title"`
	Message     string `json:"message"`
	Cancellable bool   `json:"cancellable"`
}

// ProgressLocked returns the progress events so far.
func (e *Editor) ProgressLocked() []ProgressEvent { return e.progress }

func (e *Editor) answer(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
	switch req.Method() {
	case protocol.MethodProgress:
		var p struct {
			Token string        `json:"token"`
			Value ProgressEvent `json:"value"`
		}
		json.Unmarshal(req.Params(), &p)
		p.Value.Token = p.Token
		e.mu.Lock()
		e.progress = append(e.progress, p.Value)
		e.signal()
		e.mu.Unlock()
	case protocol.MethodWorkspaceApplyEdit:
		e.mu.Lock()
		ignore := e.IgnoreApplyEdit
		if ignore {
			e.unanswered++
			e.held = append(e.held, func() {
				var p struct {
					Edit json.RawMessage `json:"edit"`
				}
				json.Unmarshal(req.Params(), &p)
				reply(ctx, e.applyWorkspaceEdit(p.Edit), nil)
			})
			e.signal()
		}
		e.mu.Unlock()
		if ignore {
			return nil // answered late, or never
		}
		var p struct {
			Label string          `json:"label"`
			Edit  json.RawMessage `json:"edit"`
		}
		if err := json.Unmarshal(req.Params(), &p); err != nil {
			return reply(ctx, nil, err)
		}
		res := e.applyWorkspaceEdit(p.Edit)
		return reply(ctx, res, nil)
	case protocol.MethodCancelRequest:
		var p struct {
			ID json.RawMessage `json:"id"`
		}
		json.Unmarshal(req.Params(), &p)
		e.mu.Lock()
		e.cancelled = append(e.cancelled, p.ID)
		e.signal()
		e.mu.Unlock()
	case protocol.MethodWindowShowMessage:
		var p protocol.ShowMessageParams
		json.Unmarshal(req.Params(), &p)
		e.mu.Lock()
		e.messages = append(e.messages, p)
		e.signal()
		e.mu.Unlock()
	case protocol.MethodTextDocumentPublishDiagnostics:
		var p protocol.PublishDiagnosticsParams
		json.Unmarshal(req.Params(), &p)
		e.mu.Lock()
		if e.diags == nil {
			e.diags = map[string][]protocol.Diagnostic{}
		}
		e.diags[e.rel(p.URI)] = p.Diagnostics
		e.signal()
		e.mu.Unlock()
	case protocol.MethodWindowLogMessage:
		var p protocol.LogMessageParams
		json.Unmarshal(req.Params(), &p)
		e.mu.Lock()
		e.logs = append(e.logs, p.Message)
		e.signal()
		e.mu.Unlock()
	case protocol.MethodWorkDoneProgressCreate:
		return reply(ctx, nil, nil)
	case "window/showDocument":
		if !e.profile.showsDocuments() {
			return reply(ctx, nil, jsonrpc2.NewError(jsonrpc2.MethodNotFound, "window/showDocument"))
		}
		var p struct {
			URI protocol.DocumentURI `json:"uri"`
		}
		json.Unmarshal(req.Params(), &p)
		e.mu.Lock()
		e.shown = append(e.shown, p.URI)
		e.signal()
		e.mu.Unlock()
		return reply(ctx, map[string]bool{"success": true}, nil)
	case protocol.MethodWorkspaceConfiguration:
		return reply(ctx, []any{e.settings}, nil)
	case "agentls/saveDocuments":
		if !e.SavesDocuments {
			return reply(ctx, nil, jsonrpc2.NewError(jsonrpc2.MethodNotFound, "agentls/saveDocuments"))
		}
		var p struct {
			URIs []protocol.DocumentURI `json:"uris"`
		}
		json.Unmarshal(req.Params(), &p)
		var saved []protocol.DocumentURI
		for _, u := range p.URIs {
			rel := e.rel(u)
			e.mu.Lock()
			b, ok := e.buffers[rel]
			var text string
			if ok {
				text = b.text
			}
			e.mu.Unlock()
			if !ok || os.WriteFile(filepath.Join(e.Root, filepath.FromSlash(rel)), []byte(text), 0o644) != nil {
				continue
			}
			saved = append(saved, u)
			e.conn.Notify(ctx, protocol.MethodTextDocumentDidSave, map[string]any{"textDocument": map[string]any{"uri": u}})
		}
		return reply(ctx, map[string]any{"saved": saved}, nil)
	case protocol.MethodWindowShowMessageRequest:
		if !e.profile.hasButtons() {
			return reply(ctx, nil, jsonrpc2.NewError(jsonrpc2.MethodNotFound, "window/showMessageRequest"))
		}
		var p protocol.ShowMessageRequestParams
		json.Unmarshal(req.Params(), &p)
		e.mu.Lock()
		e.requests = append(e.requests, p)
		choose := e.ChooseAction
		e.signal()
		e.mu.Unlock()
		if choose != nil {
			if title := choose(p); title != "" {
				return reply(ctx, protocol.MessageActionItem{Title: title}, nil)
			}
		}
		return reply(ctx, nil, nil)
	}
	return reply(ctx, nil, nil)
}

type applyResult struct {
	Applied       bool   `json:"applied"`
	FailureReason string `json:"failureReason,omitempty"`
}

// applyWorkspaceEdit applies an edit all or nothing, as editors that
// honour versions do: every versioned document must be at its version.
// Open buffers are edited (and the server told with didChange); files not
// open are edited on disk.
func (e *Editor) applyWorkspaceEdit(raw json.RawMessage) applyResult {
	if e.BeforeApply != nil {
		e.BeforeApply()
	}
	var we struct {
		Changes         map[protocol.DocumentURI][]protocol.TextEdit `json:"changes"`
		DocumentChanges []json.RawMessage                            `json:"documentChanges"`
	}
	if err := json.Unmarshal(raw, &we); err != nil {
		return applyResult{FailureReason: err.Error()}
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	defer e.signal()
	if e.RejectEdits {
		return applyResult{FailureReason: "the user declined"}
	}
	type op struct {
		kind    string
		rel     string
		version *int32
		edits   []protocol.TextEdit
	}
	var ops []op
	for u, es := range we.Changes {
		ops = append(ops, op{kind: "edit", rel: e.rel(u), edits: es})
	}
	for _, dc := range we.DocumentChanges {
		var head struct {
			Kind         string `json:"kind"`
			URI          protocol.DocumentURI
			TextDocument struct {
				URI     protocol.DocumentURI `json:"uri"`
				Version *int32               `json:"version"`
			} `json:"textDocument"`
			Edits []protocol.TextEdit `json:"edits"`
		}
		if err := json.Unmarshal(dc, &head); err != nil {
			return applyResult{FailureReason: err.Error()}
		}
		switch head.Kind {
		case "create", "delete":
			ops = append(ops, op{kind: head.Kind, rel: e.rel(head.URI)})
		case "":
			ops = append(ops, op{kind: "edit", rel: e.rel(head.TextDocument.URI), version: head.TextDocument.Version, edits: head.Edits})
		default:
			return applyResult{FailureReason: "unsupported resource operation " + head.Kind}
		}
	}
	e.editVersions = map[string]*int32{}
	for _, o := range ops {
		if o.kind == "edit" {
			e.editVersions[o.rel] = o.version
		}
	}
	// Check every version first: nothing is applied unless all match
	// (or, in an editor that skips newer buffers, those are left out).
	stale := func(o op) bool {
		b, open := e.buffers[o.rel]
		return open && o.version != nil && *o.version != b.version
	}
	kept := ops[:0]
	for _, o := range ops {
		if e.profile.SkipsNewerBuffers && stale(o) && *o.version < e.buffers[o.rel].version {
			continue
		}
		kept = append(kept, o)
	}
	ops = kept
	for _, o := range ops {
		if b := e.buffers[o.rel]; stale(o) {
			return applyResult{FailureReason: fmt.Sprintf("%s is at version %d, the edit is for %d", o.rel, b.version, *o.version)}
		}
	}
	type changed struct {
		rel     string
		version int32
		text    string
	}
	var notify []changed
	for _, o := range ops {
		full := filepath.Join(e.Root, filepath.FromSlash(o.rel))
		switch o.kind {
		case "create":
			os.MkdirAll(filepath.Dir(full), 0o755)
			if _, err := os.Stat(full); err != nil {
				os.WriteFile(full, nil, 0o644)
			}
			continue
		case "delete":
			os.Remove(full)
			delete(e.buffers, o.rel)
			continue
		}
		if b, open := e.buffers[o.rel]; open {
			text, err := applyTextEdits(b.text, o.edits, e.encoding)
			if err != nil {
				return applyResult{FailureReason: err.Error()}
			}
			b.text = text
			b.version++
			notify = append(notify, changed{o.rel, b.version, text})
			continue
		}
		data, err := os.ReadFile(full)
		if err != nil {
			return applyResult{FailureReason: err.Error()}
		}
		text, err := applyTextEdits(string(data), o.edits, e.encoding)
		if err != nil {
			return applyResult{FailureReason: err.Error()}
		}
		os.WriteFile(full, []byte(text), 0o644)
	}
	e.edits++
	go func() { // not from the read loop, and in order
		for _, n := range notify {
			// An error here means the session ended meanwhile: the test
			// is over, and there is no one to tell.
			e.sendChange(n.rel, n.version, n.text)
		}
	}()
	return applyResult{Applied: true}
}

// applyTextEdits applies edits that all refer to the original text.
func applyTextEdits(text string, es []protocol.TextEdit, enc edits.Encoding) (string, error) {
	m := edits.NewMapper(text)
	// Editors clamp a position past the last line to the end of the text.
	offset := func(p protocol.Position) (int, error) {
		if int(p.Line) >= m.Lines() {
			return len(text), nil
		}
		return m.Offset(int(p.Line), int(p.Character), enc)
	}
	var tes []edits.TextEdit
	for _, te := range es {
		start, err := offset(te.Range.Start)
		if err != nil {
			return "", err
		}
		end, err := offset(te.Range.End)
		if err != nil {
			return "", err
		}
		tes = append(tes, edits.TextEdit{Start: start, End: end, New: te.NewText})
	}
	slices.SortStableFunc(tes, func(a, b edits.TextEdit) int { return a.Start - b.Start })
	return edits.ApplyEdits(text, tes), nil
}

// ChangeSettings sends workspace/didChangeConfiguration with settings.
func (e *Editor) ChangeSettings(settings any) {
	e.t.Helper()
	if err := e.conn.Notify(context.Background(), protocol.MethodWorkspaceDidChangeConfiguration, map[string]any{"settings": settings}); err != nil {
		e.t.Fatal(err)
	}
}

// DiagnosticsLocked returns the diagnostics last published for a file;
// for use inside an Await condition.
func (e *Editor) DiagnosticsLocked(rel string) []protocol.Diagnostic { return e.diags[rel] }

// Diagnostics returns the diagnostics last published for a file.
func (e *Editor) Diagnostics(rel string) []protocol.Diagnostic {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.diags[rel])
}

// ApplyEditsUnansweredLocked returns how many workspace/applyEdit
// requests the editor left unanswered (IgnoreApplyEdit); for use inside an
// Await condition.
func (e *Editor) ApplyEditsUnansweredLocked() int { return e.unanswered }

// AnswerHeldApplyEdits applies the workspace edits left unanswered under
// IgnoreApplyEdit and answers them now, late.
func (e *Editor) AnswerHeldApplyEdits() {
	e.mu.Lock()
	held := e.held
	e.held = nil
	e.mu.Unlock()
	for _, answer := range held {
		answer()
	}
}

// CancelledRequestsLocked returns the ids of the server's requests it
// cancelled with $/cancelRequest; for use inside an Await condition.
func (e *Editor) CancelledRequestsLocked() []json.RawMessage { return e.cancelled }

// Notify sends the server any notification, for messages the editor's
// other methods do not make (a buffer that is no file, say).
func (e *Editor) Notify(method string, params any) error {
	return e.conn.Notify(context.Background(), method, params)
}

// Call sends the server any request and decodes its result into result
// (nil: discarded).
func (e *Editor) Call(method string, params, result any) error {
	_, err := e.conn.Call(context.Background(), method, params, result)
	return err
}
