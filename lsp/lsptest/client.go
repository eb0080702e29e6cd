package lsptest

import (
	"context"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agentls/agentls/edits"
	"github.com/agentls/agentls/lsp"
)

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

// ChangeSettings sends workspace/didChangeConfiguration with settings.
func (e *Editor) ChangeSettings(settings any) {
	e.t.Helper()
	if err := e.conn.Notify(context.Background(), protocol.MethodWorkspaceDidChangeConfiguration, map[string]any{"settings": settings}); err != nil {
		e.t.Fatal(err)
	}
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
