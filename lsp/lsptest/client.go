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
// with the profile to it, with root as the workspace folder, set up by
// opts (InitOptions, Settings, Press, RefuseEdits…). The server is shut
// down when the test ends.
//
// The server reads its environment through lsp.Options.Getenv: the test
// process's, with its own state, config and cache folders (XDG_*_HOME,
// removed when the test ends) and Env's variables over it. So tests need
// no t.Setenv for what only the server reads, and can run in parallel.
//
// The root and the profile are arguments, not options, because every
// editor has exactly one of each and tests that run under every profile
// loop over them.
func Start(t testing.TB, root string, profile Profile, opts ...Option) *Editor {
	t.Helper()
	var cfg config
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.server.Version == "" {
		cfg.server.Version = "test"
	}
	if real, err := filepath.EvalSymlinks(root); err == nil {
		root = real
	}
	// Made before the server's shutdown is registered, so it is removed
	// after the server has ended (cleanups run last first).
	cfg.server.Getenv = cfg.serverEnv(t.TempDir())
	serverEnd, clientEnd := net.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	e := &Editor{t: t, Root: root, profile: profile, cfg: cfg, changed: make(chan struct{}), buffers: map[string]*buffer{}, serverDone: make(chan error, 1)}
	go func() {
		_, err := lsp.Serve(ctx, serverEnd, cfg.server)
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
	if e.cfg.initOptions != nil {
		params["initializationOptions"] = e.cfg.initOptions
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
	if hook := e.cfg.hooks[req.Method()]; hook != nil {
		// The hook may talk to the server and wait for answers, which
		// this goroutine must go on reading.
		go func() {
			hook(e, req.Params())
			e.answer(ctx, reply, req)
		}()
		return nil
	}
	// An answer that cannot be written (the server ended meanwhile) is
	// not returned: jsonrpc2 v0.10 would keep it as the connection's error
	// and then panic storing the read error that follows, of another type,
	// in the same atomic.Value (conn.fail).
	e.answer(ctx, reply, req)
	return nil
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

// record appends what the server sent to the editor's state under the
// lock, waking Await.
func (e *Editor) record(add func(s *seen)) {
	e.mu.Lock()
	defer e.mu.Unlock()
	add(&e.seen)
	e.signal()
}

func (e *Editor) answer(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
	switch req.Method() {
	case protocol.MethodProgress:
		var p struct {
			Token string        `json:"token"`
			Value ProgressEvent `json:"value"`
		}
		json.Unmarshal(req.Params(), &p)
		p.Value.Token = p.Token
		e.record(func(s *seen) { s.progress = append(s.progress, p.Value) })
	case protocol.MethodWorkspaceApplyEdit:
		var p struct {
			Label string          `json:"label"`
			Edit  json.RawMessage `json:"edit"`
		}
		if err := json.Unmarshal(req.Params(), &p); err != nil {
			return reply(ctx, nil, err)
		}
		e.mu.Lock()
		hold := e.cfg.hold != nil && e.cfg.hold(p.Label)
		if hold {
			e.seen.held++
			e.held = append(e.held, func() { reply(ctx, e.applyWorkspaceEdit(p.Label, p.Edit), nil) })
			e.signal()
		}
		e.mu.Unlock()
		if hold {
			return nil // answered late, or never
		}
		return reply(ctx, e.applyWorkspaceEdit(p.Label, p.Edit), nil)
	case protocol.MethodCancelRequest:
		var p struct {
			ID json.RawMessage `json:"id"`
		}
		json.Unmarshal(req.Params(), &p)
		e.record(func(s *seen) { s.cancelled = append(s.cancelled, p.ID) })
	case protocol.MethodWindowShowMessage:
		var p protocol.ShowMessageParams
		json.Unmarshal(req.Params(), &p)
		e.record(func(s *seen) { s.messages = append(s.messages, p) })
	case protocol.MethodTextDocumentPublishDiagnostics:
		var p protocol.PublishDiagnosticsParams
		json.Unmarshal(req.Params(), &p)
		e.record(func(s *seen) {
			if s.diags == nil {
				s.diags = map[string][]protocol.Diagnostic{}
			}
			s.diags[e.rel(p.URI)] = p.Diagnostics
		})
	case protocol.MethodWindowLogMessage:
		var p protocol.LogMessageParams
		json.Unmarshal(req.Params(), &p)
		e.record(func(s *seen) { s.logs = append(s.logs, p.Message) })
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
		e.record(func(s *seen) { s.shown = append(s.shown, p.URI) })
		return reply(ctx, map[string]bool{"success": true}, nil)
	case protocol.MethodWorkspaceConfiguration:
		return reply(ctx, []any{e.cfg.settings}, nil)
	case "agentls/saveDocuments":
		return e.saveDocuments(ctx, reply, req)
	case protocol.MethodWindowShowMessageRequest:
		if !e.profile.hasButtons() {
			return reply(ctx, nil, jsonrpc2.NewError(jsonrpc2.MethodNotFound, "window/showMessageRequest"))
		}
		var p protocol.ShowMessageRequestParams
		json.Unmarshal(req.Params(), &p)
		// Recorded before it is answered, as an editor shows the
		// question before the user presses anything.
		e.mu.Lock()
		i := len(e.seen.requests)
		e.seen.requests = append(e.seen.requests, answeredRequest{params: p})
		e.signal()
		e.mu.Unlock()
		pressed := ""
		if e.cfg.answer != nil {
			pressed = e.cfg.answer(p)
		}
		e.record(func(s *seen) { s.requests[i].pressed = pressed })
		if pressed != "" {
			return reply(ctx, protocol.MessageActionItem{Title: pressed}, nil)
		}
		return reply(ctx, nil, nil)
	}
	return reply(ctx, nil, nil)
}

// saveDocuments answers agentls/saveDocuments as the agentls editor
// plugins do: each open buffer asked for is written and didSave sent.
func (e *Editor) saveDocuments(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
	if !e.cfg.savesDocuments {
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
}

// AnswerHeldEdits applies the workspace edits held unanswered (HoldEdits)
// and answers them now, late.
func (e *Editor) AnswerHeldEdits() {
	e.mu.Lock()
	held := e.held
	e.held = nil
	e.mu.Unlock()
	for _, answer := range held {
		answer()
	}
}

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
