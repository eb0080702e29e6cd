package lsptest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agentls/agentls/edits"
)

type buffer struct {
	version int32
	text    string
}

// An Editor is a fake editor connected to a real server. Start one
// with its options; act on it (OpenFile, Type, ExecuteCommand…); wait
// for what it sees with Await and expectations (ShownMessage,
// Diagnostics, CompletedWork…).
type Editor struct {
	t        testing.TB
	Root     string
	profile  Profile
	cfg      config // the options; fixed once Start returns
	conn     jsonrpc2.Conn
	encoding edits.Encoding

	mu      sync.Mutex
	changed chan struct{}      // closed and replaced on every recorded event
	buffers map[string]*buffer // by path relative to Root
	seen    seen
	// editVersions are the versions the last WorkspaceEdit pinned its
	// document edits to (nil: none).
	editVersions map[string]*int32
	held         []func() // answers to the applyEdits held (HoldEdits)

	serverDone chan error
	stop       func()
}

// Getenv reads the server's environment (its own folders, Env): where
// its state folder is, say.
func (e *Editor) Getenv(key string) string { return e.cfg.server.Getenv(key) }

// Encoding is the position encoding the server chose.
func (e *Editor) Encoding() edits.Encoding { return e.encoding }

// signal records that something happened, waking Await.
func (e *Editor) signal() {
	close(e.changed)
	e.changed = make(chan struct{})
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

// ChangeSettings sends workspace/didChangeConfiguration with settings,
// as the user editing them.
func (e *Editor) ChangeSettings(settings any) {
	e.t.Helper()
	if err := e.conn.Notify(context.Background(), protocol.MethodWorkspaceDidChangeConfiguration, map[string]any{"settings": settings}); err != nil {
		e.t.Fatal(err)
	}
}

// The readers below return copies of what the editor has seen, for a
// test's checks after an Await: the Await says when, they say what.

// Messages returns the messages the server showed, in order.
func (e *Editor) Messages() []protocol.ShowMessageParams {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.seen.messages)
}

// ShownDocuments returns the documents the server asked the editor to
// show (window/showDocument), in order.
func (e *Editor) ShownDocuments() []protocol.DocumentURI {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.seen.shown)
}

// MessageRequests returns the questions the server asked
// (window/showMessageRequest), in order.
func (e *Editor) MessageRequests() []protocol.ShowMessageRequestParams {
	e.mu.Lock()
	defer e.mu.Unlock()
	var ps []protocol.ShowMessageRequestParams
	for _, r := range e.seen.requests {
		ps = append(ps, r.params)
	}
	return ps
}

// Diagnostics returns the diagnostics last published for a file.
func (e *Editor) Diagnostics(rel string) []protocol.Diagnostic {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.seen.diags[rel])
}

// Progress returns the $/progress events the server sent, in order.
func (e *Editor) Progress() []ProgressEvent {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.seen.progress)
}

// WorkToken returns the token of the last work-done progress begun with
// title (the one to Cancel), failing the test if there is none: Await
// StartedWork(title) first.
func (e *Editor) WorkToken(title string) string {
	e.t.Helper()
	e.mu.Lock()
	defer e.mu.Unlock()
	token := e.workTokenLocked(title)
	if token == "" {
		e.t.Fatalf("lsptest: no progress %q has begun (await StartedWork first)", title)
	}
	return token
}

// EditsApplied is how many workspace edits the editor applied.
func (e *Editor) EditsApplied() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.seen.applied)
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
