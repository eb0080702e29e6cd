package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/anchored"
	"github.com/agentls/agentls/edits/journal"
	"github.com/agentls/agentls/lsp/internal/documents"
	"github.com/agentls/agentls/lsp/internal/review"
	"github.com/agentls/agentls/lsp/internal/rpc"
	"github.com/agentls/agentls/tools/mcp"
)

// Options configure a server.
type Options struct {
	// Log receives the server's log; nil discards it.
	Log *slog.Logger
	// Version is reported in serverInfo.
	Version string
	// ApplyEditTimeout bounds the wait for the editor's answer to a
	// workspace/applyEdit (0: the applyEditTimeout setting, else
	// deliveryTimers.answer). An edit not
	// answered in time is kept as pending review, and the user and the
	// model are told.
	ApplyEditTimeout time.Duration
	// Getenv is how the server reads its environment (settings' fallbacks
	// such as AGENTLS_MODEL, the state and config folders, the model's
	// key); nil means os.Getenv. Tests give each server its own, so they
	// need no t.Setenv and can run in parallel.
	Getenv func(string) string
	// Token, when set, is the secret a client must present before the
	// server reads anything else: its first message must be initialize
	// with initializationOptions.agentlsToken (TokenOption) equal to it,
	// or it gets one error and the connection is closed (rpc.StreamOptions).
	// `agentls serve --listen` on TCP sets it; stdio needs none.
	Token string
}

// TokenOption is the initializationOptions key that carries a --listen
// server's token (Options.Token).
const TokenOption = rpc.TokenOption

// getenv reads the server's environment (Options.Getenv).
func (s *Server) getenv(key string) string {
	if s.opts.Getenv != nil {
		return s.opts.Getenv(key)
	}
	return os.Getenv(key)
}

// serverState is where the server is in the LSP lifecycle.
type serverState int

const (
	stateNew          serverState = iota // before initialize
	stateInitializing                    // initialize answered, initialized not yet received
	stateRunning
	stateShutdown // shutdown received: only exit is accepted
)

func (s serverState) String() string {
	return [...]string{"new", "initializing", "running", "shutdown"}[s]
}

// A Server serves one client connection.
type Server struct {
	opts Options
	log  *slog.Logger
	conn jsonrpc2.Conn
	ctx  context.Context // the connection's: cancelled when it ends

	sess atomic.Pointer[session] // what initialize settled: never changed (session.go)

	// subagentSlots bound the subagents of all the server's turns running
	// at once (agent.Subagents.Slots: a chat's and an ask's together); the
	// zero value is agent's default bound.
	subagentSlots agent.SubagentSlots

	// mu guards the lifecycle: the state and the settings problems found
	// before initialized. Nothing else is under it: each store below has
	// its own lock (see "Locks" in session.go).
	mu    sync.Mutex
	state serverState
	// pendingProblems are settings problems found before initialized.
	pendingProblems []string
	scratch         scratchDir // files made for the user to read, removed on exit

	settings *settingsStore   // the settings in force (settings_store.go)
	config   *configuration   // keeps them current: the editor's, the files', trust (configuration.go)
	replies  replyCounts      // edit calls in whole documents, by version
	docs     *documents.Store // the open buffers (lsp/internal/documents)
	views    anchored.Views   // the anchor tables of the last view_anchored of a few files (linehashes.go)
	journal  journal.Journal  // applied edits, for undo (edits/journal)
	review   review.Store     // pending hunks in review mode (lsp/internal/review)
	// pendingView shows them (placed on the buffers, as diagnostics,
	// code actions and a diff) and runs the review commands
	// (review_view.go, review.go).
	pendingView *pendingView
	tasks       tasks           // running tasks (progress.go)
	commands    commandProgress // the agent command running now, as progress (command_progress.go)
	answers     answers         // AI? answers (answers.go)
	desk        *approvalDesk   // questions waiting for the user, and how they are asked (approve.go)
	problems    commandProblems // diagnostics from commands and jobs
	chats       chatsRunning    // chat documents being answered (chat.go)
	output      *outputChannel  // commands' output to the client's log
	usage       sessionUsage    // the tokens the session's turns cost (status.go)
	status      *statusDesk     // answers agentls.status (status.go)
	client      *editorClient   // messages, the output channel and documents to the editor (client.go)
	cmds        *commandHost    // the tools' processes and what becomes of their output (command_host.go)
	mcp         *mcp.Manager    // the user's MCP servers, each started by the first turn that offers its tools
	// delivery sends changes to the editor and waits for their echo
	// (delivery.go).
	delivery *delivery

	exited chan struct{}
	once   sync.Once
	clean  bool // exit came after shutdown

	wg      sync.WaitGroup // background work, waited for on exit
	inbound *rpc.Inbound   // messages read and not yet handled, in order: what an edit's echo and the exit wait for
}

// Serve runs a server on rwc until the client sends exit, the stream
// closes, or ctx ends. It reports whether the exit was clean (exit after
// shutdown), which sets the process's exit code.
func Serve(ctx context.Context, rwc io.ReadWriteCloser, opts Options) (clean bool, err error) {
	s := newServer(opts)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s.ctx = ctx
	// A bad frame is answered and skipped, not the session's end.
	stream := rpc.NewStream(rwc, rpc.StreamOptions{
		Skipped:   func(err error) { s.log.Warn("skipped a message that is not JSON-RPC", "why", err.Error()) },
		Responses: s.lateAnswer,
		Token:     opts.Token,
	})
	s.conn = rpc.NewSessionConn(ctx, jsonrpc2.NewConn(stream))
	s.client.conn = s.conn
	s.output = newOutputChannel(func(line string) { s.client.logMessage(s.ctx, protocol.MessageTypeLog, line) })
	s.cmds.ctx, s.cmds.output = ctx, s.output
	s.mcp = mcp.NewManager(mcp.Options{Log: s.output.write})
	h, canceller := jsonrpc2.CancelHandler(jsonrpc2.AsyncHandler(jsonrpc2.ReplyHandler(rpc.RecoverPanics(s.log, s.handle))))
	s.conn.Go(ctx, s.inbound.Track(rpc.CancelRequests(rpc.EndOnReply(h), canceller)))
	select {
	case <-ctx.Done():
	case <-s.exited:
	case <-s.conn.Done():
		// The stream ended, perhaps right after shutdown and exit, whose
		// handlers may still be queued: let them run first.
		s.inbound.Wait(context.Background(), s.inbound.Mark(), 2*time.Second)
	}
	cancel()       // stop background work tied to the connection
	s.cmds.close() // every process the tools started dies with the server
	s.mcp.Close()  // and every MCP server, with what it started
	s.conn.Close()
	s.wg.Wait()
	s.output.close()
	s.scratch.remove()
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.conn.Err(); err != nil && !errors.Is(err, io.EOF) && !s.clean {
		return false, fmt.Errorf("connection: %w", err)
	}
	return s.clean, nil
}

func newServer(opts Options) *Server {
	log := opts.Log
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	s := &Server{opts: opts, log: log, docs: documents.New(), inbound: rpc.NewInbound(), exited: make(chan struct{})}
	s.settings = newSettingsStore(s.getenv)
	s.client = &editorClient{session: s.session, log: log}
	s.config = &configuration{
		store: s.settings, session: s.session, getenv: s.getenv, log: log, client: s.client,
		call: func(ctx context.Context, method string, params, result any) (jsonrpc2.ID, error) {
			return s.conn.Call(ctx, method, params, result)
		},
		goBackground: s.goBackground,
		changed:      func() { s.cmds.configure() },
	}
	s.pendingView = &pendingView{
		store: &s.review, docs: s.docs, session: s.session,
		client: s.client, newTurn: s.journal.NewTurn, publish: s.publishDiagnostics, scratch: &s.scratch, goBackground: s.goBackground,
	}
	s.delivery = &delivery{
		docs: s.docs, inbound: s.inbound, journal: &s.journal, log: log, timers: defaultDeliveryTimers(),
		session: s.session,
		call: func(ctx context.Context, method string, params, result any) (jsonrpc2.ID, error) {
			return s.conn.Call(ctx, method, params, result)
		},
		notify: func(ctx context.Context, method string, params any) error { return s.conn.Notify(ctx, method, params) },
		queue:  s.pendingView.queue,
		answerTimeout: func() time.Duration {
			if s.opts.ApplyEditTimeout > 0 {
				return s.opts.ApplyEditTimeout
			}
			return time.Duration(s.settings.get().ApplyEditTimeout) * time.Second
		},
	}
	s.pendingView.send = s.delivery.send
	s.cmds = &commandHost{
		session: s.session, settings: s.settings.get, getenv: s.getenv, log: log,
		read: func(ctx context.Context, rel string) (string, error) {
			text, _, _, err := s.source().Read(ctx, rel)
			return text, err
		},
		problems: &s.problems, publish: s.publishDiagnostics, show: s.client.showMessage,
		progress: &s.commands, goTask: s.goTask, syncDisk: s.syncDisk,
	}
	s.desk = &approvalDesk{
		waiting: &approvals{}, session: s.session, settings: s.settings.get, client: s.client,
		call: func(ctx context.Context, method string, params, result any) (jsonrpc2.ID, error) {
			return s.conn.Call(ctx, method, params, result)
		},
		publish: s.publishDiagnostics, getenv: s.getenv, log: log, relPath: s.relPath,
	}
	s.status = &statusDesk{
		settings: s.settings.get, session: s.session, getenv: s.getenv,
		usage: &s.usage, tasks: &s.tasks, cmds: s.cmds, approvals: s.desk.waiting, review: &s.review,
		client: s.client, goBackground: s.goBackground,
	}
	return s
}

// handle routes one message by method and lifecycle state.
func (s *Server) handle(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
	_, isCall := req.(*jsonrpc2.Call)
	s.mu.Lock()
	state := s.state
	s.mu.Unlock()
	method := req.Method()

	switch {
	case method == protocol.MethodExit:
		s.exit(state == stateShutdown)
		return reply(ctx, nil, nil)
	case state == stateNew && method != protocol.MethodInitialize:
		if !isCall {
			return reply(ctx, nil, nil) // notifications before initialize are dropped
		}
		return reply(ctx, nil, jsonrpc2.NewError(jsonrpc2.ServerNotInitialized, "the server is not initialized"))
	case state == stateShutdown:
		if !isCall {
			return reply(ctx, nil, nil)
		}
		return reply(ctx, nil, jsonrpc2.NewError(jsonrpc2.InvalidRequest, "the server is shut down; only exit is accepted"))
	}

	result, err := s.dispatch(ctx, method, req.Params(), isCall)
	if err != nil {
		s.log.Warn("request failed", "method", method, "err", err)
	}
	return reply(context.WithoutCancel(ctx), result, wireError(err))
}

// errMethodNotFound marks a request the server does not implement.
var errMethodNotFound = errors.New("method not found")

func (s *Server) dispatch(ctx context.Context, method string, params json.RawMessage, isCall bool) (any, error) {
	switch method {
	case protocol.MethodInitialize:
		return decodeCall(ctx, params, s.initialize)
	case protocol.MethodInitialized:
		s.mu.Lock()
		if s.state == stateInitializing {
			s.state = stateRunning
		}
		problems := s.pendingProblems
		s.pendingProblems = nil
		s.mu.Unlock()
		s.goBackground("settings", func(ctx context.Context) {
			for _, p := range problems {
				s.client.showMessage(ctx, protocol.MessageTypeWarning, "agentls: %s", p)
			}
			s.config.pull(ctx)
		})
		return nil, nil
	case protocol.MethodWorkspaceDidChangeConfiguration:
		return decodeCall(ctx, params, s.config.didChange)
	case protocol.MethodShutdown:
		s.mu.Lock()
		s.state = stateShutdown
		s.mu.Unlock()
		return nil, nil
	case protocol.MethodTextDocumentDidOpen:
		return decodeCall(ctx, params, s.didOpen)
	case protocol.MethodTextDocumentDidChange:
		return decodeCall(ctx, params, s.didChange)
	case protocol.MethodTextDocumentDidClose:
		return decodeCall(ctx, params, s.didClose)
	case protocol.MethodTextDocumentDidSave:
		return nil, nil // open buffers are the truth; the disk is read when a document is not open
	case protocol.MethodTextDocumentCodeAction:
		return decodeCall(ctx, params, s.codeAction)
	case protocol.MethodTextDocumentCompletion:
		return decodeCall(ctx, params, s.completion)
	case protocol.MethodWorkspaceExecuteCommand:
		return decodeCall(ctx, params, s.executeCommand)
	case "window/workDoneProgress/cancel":
		return decodeCall(ctx, params, s.workDoneProgressCancel)
	}
	if !isCall {
		return nil, nil // unknown notifications are ignored, as the spec says
	}
	return nil, fmt.Errorf("%w: %s", errMethodNotFound, method)
}

// decodeCall decodes params (null or absent is the zero value) and calls fn.
func decodeCall[P, R any](ctx context.Context, params json.RawMessage, fn func(context.Context, *P) (R, error)) (any, error) {
	var p P
	if len(params) > 0 && string(params) != "null" {
		if err := json.Unmarshal(params, &p); err != nil {
			return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, err.Error())
		}
	}
	return fn(ctx, &p)
}

// wireError gives an error a JSON-RPC code (plain Go errors would go out
// with code 0).
func wireError(err error) error {
	if err == nil {
		return nil
	}
	var je *jsonrpc2.Error
	switch {
	case errors.As(err, &je):
		return je
	case errors.Is(err, errMethodNotFound):
		return jsonrpc2.NewError(jsonrpc2.MethodNotFound, err.Error())
	case errors.Is(err, context.Canceled):
		return jsonrpc2.NewError(jsonrpc2.Code(-32800), "request cancelled")
	}
	return jsonrpc2.NewError(jsonrpc2.InternalError, err.Error())
}

// exit ends the server; clean says shutdown came first.
func (s *Server) exit(clean bool) {
	s.once.Do(func() {
		s.mu.Lock()
		s.clean = clean
		s.mu.Unlock()
		close(s.exited)
	})
}

// goBackground runs work that outlives the request that started it, tied
// to the connection: it ends with it.
func (s *Server) goBackground(name string, fn func(context.Context)) {
	ctx := s.ctx
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		defer func() {
			if r := recover(); r != nil {
				s.log.Error("background work panicked", "work", name, "panic", r)
			}
		}()
		fn(ctx)
	}()
}
