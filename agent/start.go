package agent

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/url"
	"path/filepath"
	"time"

	"github.com/agentls/agentls/settings"
	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/builtin"
	"github.com/agentls/agentls/tools/mcp"
	"github.com/agentls/agentls/tools/shelltool"
)

// The one way a turn is started, for every front-end (the language
// server, agentls ask, the demo): Prepare reads everything a turn is made
// of from one settings value — the model, the tools the turn offers (the
// built-in ones and the user's MCP servers'), how they are bound, the
// limits, the prompt, the log, the rules, the subagents, the approval
// policy — so the front-ends cannot drift apart. What differs between
// them is only what Setup names: where files are read and edits go, who
// is asked, and how the user sees what happens.

// Setup is what a front-end gives a turn.
type Setup struct {
	// Settings are the turn's settings, as the front-end read them (its
	// own sources over the files, checked with SettingChecks).
	Settings settings.Settings
	// Getenv reads the model's key and the state folder's place.
	Getenv func(string) string
	// Workspace is where the turn reads files, proposes edits and asks
	// the user (its Confirm is asked only under approvalPolicy "ask").
	Workspace Workspace
	// Buffers, Hashes and Progress are what the front-end has beyond its
	// Workspace, for the turn's tools.Env (nil: it has not): an editor's
	// open buffers (rag searches them), their line hashes
	// (view_anchored), and the turn's progress (an MCP call's).
	Buffers  func() map[string]string
	Hashes   tools.Hashes
	Progress func(msg string)
	// Host returns the shell host commands run in (nil: the turn runs no
	// commands); the front-end makes it with ShellOptionsOf.
	Host func() (*shelltool.Host, error)
	// MCP runs the user's MCP servers (nil: none are offered).
	MCP *mcp.Manager
	// ID numbers the turn in its log's name (SetID gives it after
	// Prepare, so a turn that fails to prepare takes no number).
	ID int
	// ReadOnly turns may only read (an AI? question): the read tool, no
	// MCP server.
	ReadOnly bool
	// Prompt overrides the prompt setting ("full", "compact", "auto"; ""
	// keeps the setting).
	Prompt string
	// Slots bounds subagents across the front-end's turns (nil: this
	// turn's own bound).
	Slots *SubagentSlots
	// Observe is told of each event of the turn, ObserveSubagent of each
	// of its subagents' (nil: nobody).
	Observe         func(Event)
	ObserveSubagent func(n int, e Event)
	// Notify tells the user what the turn was made with: warnings, where
	// its log is, the rules and mentions it took. Each front-end words
	// them its own way (nil: nobody).
	Notify func(Notice)
	// Mentions are what the prompt's mentions read (Root is filled in
	// from the Workspace); nil Read reads the workspace as the turn does.
	Mentions MentionSource
}

// A Notice is something the user is told about how a turn was set up.
type Notice struct {
	Kind NoticeKind
	// Text says it, for the user ("rules: AGENTS.md (1.2 KB)").
	Text string
	// Path is the log's file, for NoticeLog.
	Path string
}

// NoticeKind says what a Notice is about.
type NoticeKind int

const (
	NoticeWarning NoticeKind = iota // something the user should fix (an MCP server that did not start)
	NoticeLog                       // where the conversation is logged, or why it is not
	NoticeRules                     // the project rules the turn sends
	NoticeMention                   // what one mention of the prompt added
)

// A Prepared turn has its model and settings checked; Run runs it.
type Prepared struct {
	setup   Setup
	model   *Model
	format  tools.Format
	compact bool
	turn    *Turn // the last Run's, for Usage
}

// Prepare checks what a turn needs before anything runs: the model (none
// configured, or no key for a host that needs one, fails here, before a
// task or a request is started) and the prompt style.
func Prepare(setup Setup) (*Prepared, error) {
	set := setup.Settings
	if setup.Getenv == nil {
		return nil, fmt.Errorf("agent.Prepare: no Getenv")
	}
	style := set.Prompt
	if setup.Prompt != "" {
		style = setup.Prompt
	}
	cfg := ModelOf(set)
	baseURL := cfg.BaseURL
	if baseURL == "" {
		baseURL = setup.Getenv("OPENAI_BASE_URL")
	}
	compact, err := compactPrompt(style, baseURL)
	if err != nil {
		return nil, err
	}
	if isLoopbackURL(baseURL) {
		// A model on this machine may take minutes to read a long
		// prompt before its first token.
		cfg.ChunkTimeout = localChunkTimeout
	}
	model, err := NewModel(cfg, setup.Getenv)
	if err != nil {
		return nil, err
	}
	format, err := tools.ParseFormat(set.ToolFormat)
	if err != nil {
		return nil, err
	}
	// The built-in entries are checked here, before the turn starts; the
	// MCP servers' tools are known once the servers run (Run).
	if !setup.ReadOnly {
		if _, _, err := builtin.Registry().Select(mcp.BuiltinEntries(TurnToolsOf(set))); err != nil {
			return nil, err
		}
	}
	return &Prepared{setup: setup, model: model, format: format, compact: compact}, nil
}

// localChunkTimeout is how long a model on this machine may take to start
// its reply or send its next chunk.
const localChunkTimeout = 10 * time.Minute

// SetID numbers the turn (its log's name): a front-end whose numbers are
// scarce gives one only to a turn that prepared.
func (p *Prepared) SetID(id int) { p.setup.ID = id }

// ModelName is the turn's model.
func (p *Prepared) ModelName() string { return p.model.Name() }

// Tools returns the tools the turn offers the model, bound to the
// Workspace and Host, and warnings about MCP servers (OfferedTools).
func (p *Prepared) Tools(ctx context.Context) (*tools.Registry, []string, error) {
	return OfferedTools(ctx, p.setup)
}

// OfferedTools returns the tools a turn set up so offers the model —
// the tools setting's (or the defaults), the MCP servers' it names —
// bound to the Workspace and Host and configured by the settings, and
// warnings about MCP servers: what a turn runs, and what agentls tools
// lists. No model is needed. ctx bounds the MCP servers' start.
func OfferedTools(ctx context.Context, setup Setup) (*tools.Registry, []string, error) {
	set := setup.Settings
	allow := TurnToolsOf(set)
	servers := setup.MCP
	if setup.ReadOnly {
		allow = []string{tools.NameRead} // a question changes nothing,
		servers = nil                    // offers no MCP tool, and warns of none
	}
	mcpConfig := MCPConfigOf(set)
	mcpConfig.Dir = setup.Workspace.Root()
	explicit := len(set.Tools) > 0 || setup.ReadOnly
	env := setup.Env()
	reg, warnings, err := servers.SelectTurn(ctx, mcpConfig, builtin.Registry(), allow, explicit, mcp.TurnOf(env))
	if err != nil {
		return nil, warnings, err
	}
	return BindTools(reg, env, setup.Host, BoundToolOptions(setup)), warnings, nil
}

// Env is the tools.Env the front-end gives the turn's tools: its
// Workspace and the parts it has.
func (setup Setup) Env() tools.Env {
	return tools.Env{Workspace: setup.Workspace, Buffers: setup.Buffers, Hashes: setup.Hashes, Progress: setup.Progress}
}

// BoundToolOptions are the options a turn set up so binds its tools
// with: the settings', the models' keys read through its Getenv.
func BoundToolOptions(setup Setup) ToolOptions {
	opts := ToolOptionsOf(setup.Settings)
	opts.Getenv = setup.Getenv
	return opts
}

// Run runs the turn for req: the tools selected and bound, the log
// opened, the project's rules and the prompt's mentions added to req, the
// subagents ready, then the loop (Turn.Run). req.Root is the Workspace's.
func (p *Prepared) Run(ctx context.Context, req Request) (Summary, error) {
	defer p.model.CloseIdleConnections() // the turn's model is not used again
	setup, set := p.setup, p.setup.Settings
	notify := func(n Notice) {
		if setup.Notify != nil {
			setup.Notify(n)
		}
	}
	req.Root = setup.Workspace.Root()
	reg, warnings, err := p.Tools(ctx)
	for _, w := range warnings {
		notify(Notice{Kind: NoticeWarning, Text: w})
	}
	if err != nil {
		return Summary{}, fmt.Errorf("the turn's tools: %w", err)
	}
	turn := &Turn{Model: p.model, Registry: reg, Format: p.format, Runner: Runner{Registry: reg},
		Limits: Limits{MaxSteps: set.MaxSteps}, Compact: p.compact, Observe: setup.Observe}
	p.turn = turn
	if f, err := OpenLog(setup.Getenv, req.Root, setup.ID, time.Now()); err != nil {
		notify(Notice{Kind: NoticeLog, Text: fmt.Sprintf("the turn is not logged: %v", err)})
	} else {
		defer f.Close()
		turn.Log = f
		notify(Notice{Kind: NoticeLog, Text: "conversation log " + f.Name(), Path: f.Name()})
	}
	p.addContext(ctx, &req, notify)
	sub := &Subagents{Model: p.model, Format: p.format, Registry: reg, Limits: turn.Limits, Hooks: turn.Hooks, Root: req.Root,
		Slots: setup.Slots, Observe: setup.ObserveSubagent,
		OpenLog: func(n int) (io.WriteCloser, error) {
			return OpenSubagentLog(setup.Getenv, req.Root, setup.ID, n, time.Now())
		}}
	return turn.Run(WithSubagents(ctx, sub), req)
}

// addContext adds to req what the project and the user attached: the
// project's rules (from the root down to the folder the request is
// about) and what the prompt's mentions name.
func (p *Prepared) addContext(ctx context.Context, req *Request, notify func(Notice)) {
	setup := p.setup
	from := ""
	if req.Selection != nil {
		from = filepath.Dir(filepath.Join(req.Root, filepath.FromSlash(req.Selection.Path)))
	}
	rules := LoadRules(RulesOptions{Root: req.Root, From: from, Extra: setup.Settings.Rules, UserFile: UserRulesFile(setup.Getenv)})
	req.Rules = rules.Prompt()
	if len(rules) > 0 {
		notify(Notice{Kind: NoticeRules, Text: "rules: " + rules.Summary()})
	}
	src := setup.Mentions
	src.Root = req.Root
	if src.Read == nil {
		src.Read = func(ctx context.Context, rel string) (string, error) {
			text, _, exists, err := setup.Workspace.Read(ctx, rel)
			if err == nil && !exists {
				err = fmt.Errorf("%s does not exist", rel)
			}
			return text, err
		}
	}
	if src.GitDiff == nil {
		root := req.Root
		src.GitDiff = func(ctx context.Context) (string, error) { return GitDiff(ctx, root) }
	}
	added, accounts := ExpandMentions(ctx, src, req.Prompt)
	req.Attached = added
	for _, a := range accounts {
		notify(Notice{Kind: NoticeMention, Text: fmt.Sprintf("mention %s: %s", a.Text, a.Added)})
	}
}

// Usage is the tokens the turn has cost so far (zero before Run).
func (p *Prepared) Usage() Usage {
	if p.turn == nil {
		return Usage{}
	}
	return p.turn.Usage()
}

// CostLine is the turn's usage as a summary says it, with its cost when
// the prices setting has one for the model ("1,234 tokens, $0.0123").
func (p *Prepared) CostLine() string {
	var price *settings.Price
	if pr, ok := p.setup.Settings.Prices[p.model.Name()]; ok {
		price = &pr
	}
	return CostLine(p.Usage(), price)
}

// compactPrompt says whether a turn sends the short system prompt: the
// prompt style "compact", or "auto" with the API on this machine (a local
// model: small context, little patience for long instructions).
func compactPrompt(style, baseURL string) (bool, error) {
	switch style {
	case "full":
		return false, nil
	case "compact":
		return true, nil
	case "auto", "":
		return isLoopbackURL(baseURL), nil
	}
	return false, fmt.Errorf("prompt style %q: want full, compact or auto", style)
}

// isLoopbackURL reports whether u's host is this machine.
func isLoopbackURL(u string) bool {
	parsed, err := url.Parse(u)
	if err != nil || parsed.Hostname() == "" {
		return false
	}
	if parsed.Hostname() == "localhost" {
		return true
	}
	ip := net.ParseIP(parsed.Hostname())
	return ip != nil && ip.IsLoopback()
}
