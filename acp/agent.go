// Package acp is agentls as an Agent Client Protocol (ACP v1) agent: the
// front door through which Zed, the JetBrains IDEs, Neovim's and Emacs's
// agent plugins host the agent in a panel. It starts its turns the one way
// every front-end does (agent.Prepare), from the settings agentls ask
// reads; what it adds is only where files are read and edits go (the
// client's buffers, when it offers fs/*), who is asked (the client, with
// session/request_permission), and how the turn is shown (session/update).
//
// The rest of the protocol, each in its file: commands in the client's
// terminals when it offers terminal/*, after the same policy and
// approval as agentls's own shell (terminal.go); the model's markdown
// task list as plan updates (plan.go); images in prompts, and the images
// a call showed the model in its content (prompt.go, updates.go); the
// Edits option's review mode, whose pending hunks /review accepts or
// rejects (review.go); /undo, /redo, /jobs, /model (undo.go), the
// undo taken from the workspace's undo journal (edits/journal), where
// every edit call is recorded as the language server records its own; the
// Model, Thinking and Edits options (config.go); session/load's
// transcripts, which keep the Edits option and the turns /undo can take
// too (transcript.go).
//
// The wire protocol is github.com/coder/acp-go-sdk's: its types are
// generated from the protocol's schema, it has no dependencies, and it
// handles each request on its own goroutine, so session/cancel reaches a
// running session/prompt.
//
// ACP v2 (in preview) moves execution to the agent's side, which is
// where agentls runs its tools already: what changes is the wire (the
// SDK's types), not the mapping here, which lives in this package's own
// functions (kindOf, diffOf, asker, promptText, execInTerminal) rather
// than in the SDK.
package acp

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"sync"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/edits/journal"
)

// Options are what the command gives the agent.
type Options struct {
	// Getenv reads the model's key, the settings' and state folders'
	// places.
	Getenv func(string) string
	// Version is agentls's, told to the client and to MCP servers.
	Version string
	// Log receives what the user may want to read but the client does
	// not show: MCP servers' stderr, problems in the settings (nil:
	// dropped).
	Log io.Writer
}

// Agent is one connection's agent: its client's capabilities and its
// sessions.
type Agent struct {
	opts Options
	conn *sdk.AgentSideConnection

	mu       sync.Mutex
	client   sdk.ClientCapabilities
	sessions map[sdk.SessionId]*session

	journalsMu sync.Mutex
	journals   map[string]*journal.Journal // each workspace root's undo history
}

// Serve runs the agent on one connection (the client's stdin and stdout)
// until the client goes away or ctx ends, then stops every session.
func Serve(ctx context.Context, opts Options, in io.Reader, out io.Writer) error {
	a := &Agent{opts: opts, sessions: map[sdk.SessionId]*session{}, journals: map[string]*journal.Journal{}}
	// The connection reads only once its logger is set: the SDK's
	// SetLogger is a plain write its reading goroutine races with.
	opened := make(chan struct{})
	a.conn = sdk.NewAgentSideConnection(a, out, gatedReader{in, opened})
	logTo := io.Discard
	if opts.Log != nil {
		logTo = opts.Log
	}
	a.conn.SetLogger(slog.New(slog.NewTextHandler(logTo, &slog.HandlerOptions{Level: slog.LevelWarn})))
	close(opened)
	defer a.closeAll()
	select {
	case <-a.conn.Done():
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// gatedReader reads r once opened is closed.
type gatedReader struct {
	r      io.Reader
	opened <-chan struct{}
}

func (g gatedReader) Read(p []byte) (int, error) {
	<-g.opened
	return g.r.Read(p)
}

func (a *Agent) closeAll() {
	a.mu.Lock()
	sessions := a.sessions
	a.sessions = map[sdk.SessionId]*session{}
	a.mu.Unlock()
	for _, s := range sessions {
		s.close()
	}
}

// journalOf returns the undo history of the workspace at root, which
// the connection's sessions on it share: opened the first time on the
// state folder, as the language server opens it (journal.OpenDisk and
// Attach), so both record in one history with one numbering. The first
// time, it also returns what the user should be told when the history
// kept on disk cannot be read or written ("" otherwise).
func (a *Agent) journalOf(root string) (*journal.Journal, string) {
	a.journalsMu.Lock()
	defer a.journalsMu.Unlock()
	if j, ok := a.journals[root]; ok {
		return j, ""
	}
	j := &journal.Journal{}
	a.journals[root] = j
	d, err := journal.OpenDisk(a.opts.Getenv, root)
	if err != nil {
		problem := err.Error() + ": the undo history is kept for this connection only"
		a.logf("%s", problem)
		return j, problem
	}
	problem := j.Attach(d)
	if problem != "" {
		a.logf("%s", problem)
	}
	return j, problem
}

func (a *Agent) logf(format string, args ...any) {
	if a.opts.Log != nil {
		fmt.Fprintf(a.opts.Log, "[agentls acp] "+format+"\n", args...)
	}
}

// Initialize says what agentls does, honestly: session/load, prompts
// with text, the client's embedded resources and links, and images (sent
// to the model with the prompt; refused, saying why, where the vision
// setting is off); no audio; MCP servers over stdio (every agent's) and
// streamable HTTP; no authentication (the model's key is the user's
// environment's).
func (a *Agent) Initialize(_ context.Context, p sdk.InitializeRequest) (sdk.InitializeResponse, error) {
	a.mu.Lock()
	a.client = p.ClientCapabilities
	a.mu.Unlock()
	return sdk.InitializeResponse{
		ProtocolVersion: sdk.ProtocolVersionNumber,
		AgentCapabilities: sdk.AgentCapabilities{
			LoadSession:        true,
			PromptCapabilities: sdk.PromptCapabilities{EmbeddedContext: true, Image: true},
			McpCapabilities:    sdk.McpCapabilities{Http: true},
		},
		AgentInfo:   &sdk.Implementation{Name: "agentls", Title: sdk.Ptr("agentls"), Version: a.opts.Version},
		AuthMethods: []sdk.AuthMethod{},
	}, nil
}

func (a *Agent) Authenticate(context.Context, sdk.AuthenticateRequest) (sdk.AuthenticateResponse, error) {
	return sdk.AuthenticateResponse{}, nil // nothing to authenticate: see Initialize
}

// NewSession opens a session on the folder cwd names: its settings read
// as agentls ask reads them (the workspace file's risky keys only once
// trusted), the client's MCP servers added as the user's own choice.
func (a *Agent) NewSession(_ context.Context, p sdk.NewSessionRequest) (sdk.NewSessionResponse, error) {
	if !filepath.IsAbs(p.Cwd) {
		return sdk.NewSessionResponse{}, rpcError(codeInvalidParams, fmt.Sprintf("cwd %q is not an absolute path", p.Cwd))
	}
	a.mu.Lock()
	client := a.client
	a.mu.Unlock()
	id := sdk.SessionId("agentls-" + randomHex())
	s, err := newSession(a, id, p.Cwd, p.McpServers, client)
	if err != nil {
		return sdk.NewSessionResponse{}, rpcError(codeInvalidParams, err.Error())
	}
	a.mu.Lock()
	a.sessions[id] = s
	a.mu.Unlock()
	return sdk.NewSessionResponse{SessionId: id, ConfigOptions: s.configOptions()}, nil
}

// LoadSession opens a session agentls kept (its transcript, in the
// state folder) on the same folder, and replays it to the client before
// answering; its next turns continue its conversation.
func (a *Agent) LoadSession(_ context.Context, p sdk.LoadSessionRequest) (sdk.LoadSessionResponse, error) {
	if !filepath.IsAbs(p.Cwd) {
		return sdk.LoadSessionResponse{}, rpcError(codeInvalidParams, fmt.Sprintf("cwd %q is not an absolute path", p.Cwd))
	}
	root, err := filepath.EvalSymlinks(p.Cwd)
	if err != nil {
		return sdk.LoadSessionResponse{}, rpcError(codeInvalidParams, err.Error())
	}
	t, err := readTranscript(a.opts.Getenv, root, p.SessionId)
	if err != nil {
		return sdk.LoadSessionResponse{}, rpcError(codeInvalidParams, err.Error())
	}
	a.mu.Lock()
	client, open := a.client, a.sessions[p.SessionId] != nil
	a.mu.Unlock()
	if open {
		return sdk.LoadSessionResponse{}, rpcError(codeInvalidParams, fmt.Sprintf("session %s is open", p.SessionId))
	}
	s, err := newSession(a, p.SessionId, root, p.McpServers, client)
	if err != nil {
		return sdk.LoadSessionResponse{}, rpcError(codeInvalidParams, err.Error())
	}
	s.saved = t
	s.resume(t)
	for _, turn := range t.Turns {
		s.history = append(s.history, agent.ChatMessage{Role: "user", Content: turn.Prompt})
		if turn.Final != "" {
			s.history = append(s.history, agent.ChatMessage{Role: "assistant", Content: turn.Final})
		}
	}
	s.replay(t, newTracker(s, context.Background()))
	a.mu.Lock()
	a.sessions[p.SessionId] = s
	a.mu.Unlock()
	return sdk.LoadSessionResponse{ConfigOptions: s.configOptions()}, nil
}

func (a *Agent) session(id sdk.SessionId) (*session, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	s, ok := a.sessions[id]
	if !ok {
		return nil, rpcError(codeInvalidParams, fmt.Sprintf("no session %q", id))
	}
	return s, nil
}

// Prompt runs one turn of the session.
func (a *Agent) Prompt(ctx context.Context, p sdk.PromptRequest) (sdk.PromptResponse, error) {
	s, err := a.session(p.SessionId)
	if err != nil {
		return sdk.PromptResponse{}, err
	}
	return s.prompt(ctx, p.Prompt)
}

// Cancel stops the session's running turn: its model call and tools get
// a cancelled context, and its prompt ends "cancelled".
func (a *Agent) Cancel(_ context.Context, p sdk.CancelNotification) error {
	s, err := a.session(p.SessionId)
	if err != nil {
		return err
	}
	s.cancel()
	return nil
}

// CloseSession stops the session's turn and frees what it holds.
func (a *Agent) CloseSession(_ context.Context, p sdk.CloseSessionRequest) (sdk.CloseSessionResponse, error) {
	a.mu.Lock()
	s, ok := a.sessions[p.SessionId]
	delete(a.sessions, p.SessionId)
	a.mu.Unlock()
	if ok {
		s.close()
	}
	return sdk.CloseSessionResponse{}, nil
}

// The methods agentls does not offer (it advertises none of them) answer
// that they are not there.

func (a *Agent) ListSessions(context.Context, sdk.ListSessionsRequest) (sdk.ListSessionsResponse, error) {
	return sdk.ListSessionsResponse{}, sdk.NewMethodNotFound(sdk.AgentMethodSessionList)
}

func (a *Agent) ResumeSession(context.Context, sdk.ResumeSessionRequest) (sdk.ResumeSessionResponse, error) {
	return sdk.ResumeSessionResponse{}, sdk.NewMethodNotFound(sdk.AgentMethodSessionResume)
}

func (a *Agent) SetSessionMode(context.Context, sdk.SetSessionModeRequest) (sdk.SetSessionModeResponse, error) {
	return sdk.SetSessionModeResponse{}, sdk.NewMethodNotFound(sdk.AgentMethodSessionSetMode)
}

// randomHex is a session's unguessable name.
func randomHex() string {
	var b [12]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// JSON-RPC's error codes agentls answers with.
const (
	codeInvalidRequest = -32600
	codeInvalidParams  = -32602
	codeInternal       = -32603
)

// rpcError is an error answer whose message is what went wrong, which a
// client shows as it is.
func rpcError(code int, msg string) *sdk.RequestError {
	return &sdk.RequestError{Code: code, Message: msg}
}
