package acp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/edits/journal"
	"github.com/agentls/agentls/internal/statedir"
	"github.com/agentls/agentls/procs/shell"
	"github.com/agentls/agentls/settings"
	"github.com/agentls/agentls/tools/approval"
	"github.com/agentls/agentls/tools/mcp"
	"github.com/agentls/agentls/tools/shelltool"
)

// A session is one conversation on one workspace folder: its settings,
// its shell host and MCP servers (kept across its turns, as the
// language server keeps them), what the user rejected for good, and the
// conversation so far.
type session struct {
	a      *Agent
	id     sdk.SessionId
	root   string
	set    settings.Settings
	client sdk.ClientCapabilities
	host   *shelltool.Host
	mcp    *mcp.Manager

	// journal is the workspace's undo history (undo.go), shared with
	// the connection's other sessions on root and kept in the state
	// folder with the language server's.
	journal *journal.Journal

	running sync.Mutex // one prompt at a time
	saving  sync.Mutex // one transcript write at a time, the newest last

	mu        sync.Mutex
	stop      context.CancelCauseFunc // the running turn's (nil: none)
	history   []agent.ChatMessage
	rejected  map[string]bool // "reject always" answers, by pattern
	editTurns []int           // the session's turns that applied edits, oldest first, for /undo
	notice    string          // a problem with the undo history, told at the next prompt
	saved     transcript      // what session/load replays
	told      bool            // the client was told the slash commands
	model     string          // the model the client chose ("": the settings')
	thinking  string          // the thinking mode the client chose ("": the settings')
	review    bool            // edits wait for /review (the Edits option)
	pending   []pendingHunk   // the edits waiting, by id
	hunks     int             // the last pending hunk's id
	closed    bool
}

// newSession opens a session on cwd (absolute) with the client's MCP
// servers.
func newSession(a *Agent, id sdk.SessionId, cwd string, servers []sdk.McpServer, client sdk.ClientCapabilities) (*session, error) {
	root, err := filepath.EvalSymlinks(cwd)
	if err != nil {
		return nil, fmt.Errorf("cwd: %w", err)
	}
	if fi, err := os.Stat(root); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("cwd %s is not a folder", cwd)
	}
	getenv := a.opts.Getenv
	loaded := agent.LoadSettings(getenv, root)
	for _, p := range loaded.Problems {
		if !p.Ignored {
			a.logf("%s", p)
		}
	}
	if len(loaded.Ignored) > 0 {
		a.logf("%s sets %v, which decide what runs or where your code and keys go: ignored until you trust the file as it is now (agentls trust %s)", settings.WorkspaceFile, loaded.Ignored, root)
	}
	set, err := withClientServers(loaded.Settings, servers)
	if err != nil {
		return nil, err
	}
	opts := agent.ShellOptionsOf(set, getenv, root)
	if dir, err := statedir.Dir(getenv, "runs", root); err == nil {
		opts.LogDir = filepath.Join(dir, fmt.Sprintf("%s-%d-acp", time.Now().UTC().Format("20060102T150405Z"), os.Getpid()))
	}
	s := &session{a: a, id: id, root: root, set: set, client: client, rejected: map[string]bool{}}
	s.journal, s.notice = a.journalOf(root)
	if client.Terminal {
		// Allowed commands run where the user sees them (terminal.go).
		timeout := opts.Timeout
		opts.Exec = func(ctx context.Context, script string) (shell.Command, error) {
			return s.execInTerminal(ctx, script, timeout)
		}
	}
	host, err := shelltool.New(opts)
	if err != nil {
		return nil, err
	}
	s.host = host
	s.mcp = mcp.NewManager(mcp.Options{Dir: root, Version: a.opts.Version, Log: func(stream string, p []byte) {
		a.logf("%s: %s", stream, p)
	}})
	return s, nil
}

// withClientServers adds the MCP servers the client passed to the
// settings' own: they are the user's choice, made in the editor, so they
// go through the same key as a trusted source (and its checks); a server
// of the same name as one in the settings files is the client's.
func withClientServers(set settings.Settings, servers []sdk.McpServer) (settings.Settings, error) {
	if len(servers) == 0 {
		return set, nil
	}
	merged := map[string]settings.MCPServer{}
	for name, s := range set.MCPServers {
		merged[name] = s
	}
	for _, s := range servers {
		switch {
		case s.Stdio != nil:
			env := map[string]string{}
			for _, e := range s.Stdio.Env {
				env[e.Name] = e.Value
			}
			merged[s.Stdio.Name] = settings.MCPServer{Command: s.Stdio.Command, Args: s.Stdio.Args, Env: env}
		case s.Http != nil:
			headers := map[string]string{}
			for _, h := range s.Http.Headers {
				headers[h.Name] = h.Value
			}
			merged[s.Http.Name] = settings.MCPServer{URL: s.Http.Url, Headers: headers}
		default:
			return set, errors.New("mcpServers: only stdio and http servers are supported (initialize says so)")
		}
	}
	raw, err := json.Marshal(map[string]any{"mcpServers": merged})
	if err != nil {
		return set, err
	}
	next, problems := set.Apply(raw, settings.Source{Name: "the ACP client's mcpServers", Trusted: true}, agent.SettingChecks())
	if len(problems) > 0 {
		return set, fmt.Errorf("%s", problems[0])
	}
	return next, nil
}

// close stops the session's turn and its servers.
func (s *session) close() {
	s.mu.Lock()
	s.closed = true
	stop := s.stop
	s.mu.Unlock()
	if stop != nil {
		stop(context.Canceled)
	}
	s.mcp.Close()
	s.host.Close()
}

// cancel stops the running turn, if any.
func (s *session) cancel() {
	s.mu.Lock()
	stop := s.stop
	s.mu.Unlock()
	if stop != nil {
		stop(errCancelled)
	}
}

// errCancelled is the cause of a turn the client cancelled.
var errCancelled = errors.New("the client cancelled the turn")

// cancelGrace bounds how long a cancelled turn may take to stop before
// its prompt is answered "cancelled" anyway (its late updates are not
// sent).
const cancelGrace = 5 * time.Second

// prompt runs one turn for the client's prompt and says why it stopped.
func (s *session) prompt(ctx context.Context, blocks []sdk.ContentBlock) (sdk.PromptResponse, error) {
	if !s.running.TryLock() {
		return sdk.PromptResponse{}, rpcError(codeInvalidRequest, "a turn is already running in this session: cancel it first")
	}
	defer s.running.Unlock()
	text := promptText(blocks, s.root)
	images, err := promptImages(blocks, s.root, agent.VisionOptionsOf(s.settings()))
	if err != nil {
		return sdk.PromptResponse{}, rpcError(codeInvalidParams, err.Error())
	}
	ctx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	// The turn's number is the journal's: its edits are recorded under
	// it, and no other turn of the workspace (another session, the
	// language server) has it, nor will after a restart.
	id := s.journal.NewTurn()
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return sdk.PromptResponse{}, rpcError(codeInvalidRequest, "the session is closed")
	}
	s.stop = stop
	history := append([]agent.ChatMessage(nil), s.history...)
	tell := !s.told
	s.told = true
	notice := s.notice
	s.notice = ""
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.stop = nil
		s.mu.Unlock()
	}()

	// Updates go out on their own context: the last ones of a cancelled
	// turn (its calls ending) are still sent before the prompt's answer.
	calls := newTracker(s, context.WithoutCancel(ctx))
	calls.turn = id
	defer calls.mute()
	ctx = withTracker(ctx, calls)
	if tell {
		calls.send(sdk.SessionUpdate{AvailableCommandsUpdate: &sdk.SessionAvailableCommandsUpdate{
			SessionUpdate: "available_commands_update", AvailableCommands: commands()}})
	}
	if notice != "" {
		calls.message(fmt.Sprintf("\n> agentls: %s\n\n", notice))
	}
	if ran, err := s.slashCommand(ctx, text, id, calls); ran {
		if err != nil {
			return sdk.PromptResponse{}, rpcError(codeInternal, err.Error())
		}
		return sdk.PromptResponse{StopReason: sdk.StopReasonEndTurn}, nil
	}
	ws := &workspace{s: s, turn: id, calls: calls}
	set := s.settings()
	ws.confirm = agent.ConfirmerOf(set, &asker{s: s, calls: calls})
	turn, err := agent.Prepare(agent.Setup{
		Settings:  set,
		Getenv:    s.a.opts.Getenv,
		Workspace: ws,
		Host:      func() (*shelltool.Host, error) { return s.host, nil },
		MCP:       s.mcp,
		ID:        id,
		Observe:   calls.observe,
		Notify: func(n agent.Notice) {
			switch n.Kind {
			case agent.NoticeWarning:
				calls.message(fmt.Sprintf("\n> agentls: %s\n\n", n.Text))
			case agent.NoticeLog:
				calls.setLog(n.Path)
				s.a.logf("%s", n.Text)
			default:
				s.a.logf("%s", n.Text)
			}
		},
	})
	if err != nil {
		return sdk.PromptResponse{}, rpcError(codeInternal, err.Error())
	}
	type result struct {
		sum agent.Summary
		err error
	}
	done := make(chan result, 1)
	go func() {
		sum, err := turn.Run(ctx, agent.Request{Prompt: text, History: history, Images: images})
		done <- result{sum, err}
	}()
	var r result
	select {
	case r = <-done:
	case <-ctx.Done():
		// Cancelled: the model's stream and the tools end with ctx; a
		// tool that does not is not waited for beyond the grace.
		timer := time.NewTimer(cancelGrace)
		select {
		case r = <-done:
			timer.Stop()
		case <-timer.C:
			calls.mute()
			return sdk.PromptResponse{StopReason: sdk.StopReasonCancelled}, nil
		}
	}
	calls.finish()
	s.remember(calls.saved(text, r.sum.Final))
	return stopReason(ctx, r.err)
}

// stopReason says why a turn ended, as ACP does: the client's cancel
// (or the user's "stop" in a question) is "cancelled", the step limit
// "max_turn_requests"; any other failure is the prompt's error.
func stopReason(ctx context.Context, err error) (sdk.PromptResponse, error) {
	switch {
	case err == nil:
		return sdk.PromptResponse{StopReason: sdk.StopReasonEndTurn}, nil
	case errors.Is(context.Cause(ctx), errCancelled), errors.Is(err, approval.ErrStopTurn), ctx.Err() != nil:
		return sdk.PromptResponse{StopReason: sdk.StopReasonCancelled}, nil
	case errors.Is(err, agent.ErrLimit):
		return sdk.PromptResponse{StopReason: sdk.StopReasonMaxTurnRequests}, nil
	}
	return sdk.PromptResponse{}, rpcError(codeInternal, err.Error())
}
