package lsp

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/anchored"
	"github.com/agentls/agentls/settings"
	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/approval"
	"github.com/agentls/agentls/tools/builtin"
	"github.com/agentls/agentls/tools/edittool"
	"github.com/agentls/agentls/tools/mcp"
)

const cmdAsk = "agentls.ask"

// askArgs: the user's request, and the document (and range) it is about.
type askArgs struct {
	Prompt string               `json:"prompt"`
	URI    protocol.DocumentURI `json:"uri"`
	Range  *protocol.Range      `json:"range"`
	// Diagnostics the request is about (a "fix" code action's), in uri.
	Diagnostics []protocol.Diagnostic `json:"diagnostics,omitempty"`
	// AnswerLine, for an AI? question on that line (0-based) of uri: the
	// turn may only read, and its answer is shown on that line.
	AnswerLine *int `json:"answerLine,omitempty"`
	// Line (0-based) of uri is where the request was made (an AI!
	// comment's), when the range is wider: the turn's approvals show
	// there, where the user asked, not at the range's first line.
	Line *int `json:"line,omitempty"`
}

// askCommand starts an agent turn and returns its id at once; the turn
// runs as a task (progress, cancel) and ends with a message.
func (s *Server) askCommand(_ context.Context, a askArgs) (any, error) {
	if strings.TrimSpace(a.Prompt) == "" {
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, `agentls.ask needs a prompt: {"prompt": "what to do"} (or the code action "Ask agent" on a selection, or an AI! comment)`)
	}
	req, err := s.agentRequest(a)
	if err != nil {
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, err.Error())
	}
	plan := turnPlan{req: req, readOnly: a.AnswerLine != nil}
	if req.Selection != nil {
		plan.home, plan.homeLine = req.Selection.Path, req.Selection.StartLine-1
		if a.Line != nil {
			plan.homeLine = *a.Line
		}
	}
	if a.AnswerLine != nil && req.Selection != nil {
		line := *a.AnswerLine
		plan.done = func(ctx context.Context, sum agent.Summary, err error) {
			if err == nil {
				s.addAnswer(ctx, req.Selection.Path, line, strings.TrimSpace(sum.Final))
			}
		}
	}
	plan.ask = &a
	id, err := s.startTurn(plan)
	if err != nil {
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, err.Error())
	}
	return map[string]int{"turn": id}, nil
}

// A turnPlan is what an agent turn is started with.
type turnPlan struct {
	req      agent.Request
	readOnly bool   // the turn may only read (an AI? question)
	home     string // the file the turn is about, where its approvals show ("" for none)
	homeLine int
	// observe, if set, is told of each event too (a chat document
	// streams the reply with it).
	observe func(ctx context.Context, e agent.Event)
	// done, if set, runs when the turn ended, before the user is told.
	done func(ctx context.Context, sum agent.Summary, err error)
	// ask, if set, is what agentls.ask was given: the code action that
	// sent it is not offered again while the turn runs (withoutRunning).
	ask *askArgs
}

// startTurn starts an agent turn as a task (progress, cancel) and returns
// its id at once. It fails at once when no model is configured.
func (s *Server) startTurn(plan turnPlan) (int, error) {
	s.refreshSettings() // the workspace's file as it is now, under the trust rule
	set := s.currentSettings()
	model, err := agent.NewModel(agent.ModelConfig{Model: set.Model, BaseURL: set.BaseURL, APIKeyEnv: set.APIKeyEnv, TaggedThinking: set.TaggedThinking()}, s.getenv)
	if err != nil {
		return 0, err
	}
	allow := set.TurnTools()
	if plan.readOnly {
		allow = []string{"read"} // a question changes nothing
	}
	// The tools of the user's MCP servers are known once the servers run,
	// which the turn starts (mcp.Manager.SelectTurn); the built-in entries
	// are checked here, before the turn is.
	reg, _, err := builtin.Registry().Select(mcp.BuiltinEntries(allow))
	if err != nil {
		return 0, err
	}
	explicit := len(set.Tools) > 0 || plan.readOnly
	format, _ := tools.ParseFormat(set.ToolFormat) // validated when set
	id := s.newTurn()
	req := plan.req
	if plan.ask != nil {
		// Before the command answers: a code action requested right
		// after it must not offer the same ask again.
		s.tasks.startAsk(*plan.ask, id)
	}
	s.goTurnTask(id, fmt.Sprintf("agentls: agent turn %d", id), func(ctx context.Context, t *task) {
		if plan.ask != nil {
			defer s.tasks.endAsk(*plan.ask, id)
		}
		defer model.CloseIdleConnections() // the turn's model is not used again
		ws := &editorWorkspace{s: s, t: t, turn: id, label: fmt.Sprintf("agent turn %d", id), home: plan.home, homeLine: plan.homeLine}
		// The turn's tools run here: bound to this turn's workspace (its
		// task, its journal entries, where its approvals show) and to the
		// server's shell host, made by the first command.
		mcpConfig := set.MCP()
		mcpConfig.Dir = req.Root
		servers := s.mcp
		if plan.readOnly {
			servers = nil // a question offers no MCP tool, and warns of none
		}
		turnTools, warnings, err := servers.SelectTurn(ctx, mcpConfig, builtin.Registry(), allow, explicit, ws)
		for _, w := range warnings {
			s.logMessage(ctx, protocol.MessageTypeWarning, fmt.Sprintf("agentls: agent turn %d: %s", id, w))
		}
		if err != nil {
			// Cancelled while its servers started: the turn ends at once.
			turnTools = reg
		}
		bound := agent.BindTools(turnTools, ws, s.shellHost)
		turn := &agent.Turn{Model: model, Registry: bound, Format: format, Limits: agent.Limits{MaxSteps: set.MaxSteps},
			Runner: agent.Runner{Registry: bound}}
		if f, err := agent.OpenLog(s.getenv, req.Root, id, time.Now()); err != nil {
			s.logMessage(ctx, protocol.MessageTypeWarning, fmt.Sprintf("agentls: agent turn %d is not logged: %v", id, err))
		} else {
			defer f.Close()
			turn.Log = f
			s.logMessage(ctx, protocol.MessageTypeInfo, fmt.Sprintf("agentls: agent turn %d: conversation log %s", id, f.Name()))
		}
		turn.Observe = func(e agent.Event) {
			if e.Kind == agent.EventToolStart {
				// The tokens so far with each step: a turn's cost shows
				// while it runs.
				t.report(ctx, fmt.Sprintf("step %d: %s (%s)", e.Step, agent.DescribeUse(*e.Use), turn.Usage()))
				s.commands.toolStart(t, e.Step, *e.Use)
			}
			if e.Kind == agent.EventToolDone {
				s.commands.end(t)
			}
			if e.Kind == agent.EventToolDone && e.Call != nil {
				// Each call's timing line: "[shell] go test ./... 4.2 s, exit 1".
				s.output.write(fmt.Sprintf("turn %d", id), []byte(e.Call.Summary()+"\n"))
			}
			if plan.observe != nil {
				plan.observe(ctx, e)
			}
		}
		defer s.commands.end(t) // a turn cancelled in its command
		s.turnContext(ctx, id, ws, &req)
		sum, err := turn.Run(agent.WithSubagents(ctx, s.subagents(ctx, t, id, turn, req.Root)), req)
		if plan.done != nil {
			plan.done(context.WithoutCancel(ctx), sum, err)
		}
		used := turn.Usage()
		s.usage.add(model.Name(), used)
		var price *agent.Price
		if p, ok := set.Prices[model.Name()]; ok {
			price = &p
		}
		s.finishTurn(ctx, t, id, sum, agent.CostLine(used, price), err)
	})
	return id, nil
}

// newTurn returns the id of a new turn: an agent turn, or one apply.
// Turn ids come from the journal, which keeps them unique across
// restarts when it is kept on disk.
func (s *Server) newTurn() int { return s.journal.newTurn() }

// agentRequest gathers what the editor knows around a request: the open
// files and the selection.
func (s *Server) agentRequest(a askArgs) (agent.Request, error) {
	root := s.session().root
	req := agent.Request{Prompt: a.Prompt, Root: root}
	for _, d := range s.docs.all() {
		if rel, err := s.relPath(d); err == nil {
			req.OpenFiles = append(req.OpenFiles, rel)
		}
	}
	sort.Strings(req.OpenFiles)
	if a.URI == "" || a.Range == nil {
		return req, nil
	}
	d, ok := s.docs.get(a.URI)
	if !ok {
		return req, fmt.Errorf("%s is not open", a.URI)
	}
	text, err := s.rangeText(d, *a.Range)
	if err != nil {
		return req, err
	}
	rel, err := s.relPath(d)
	if err != nil {
		return req, err
	}
	req.Selection = &agent.Selection{Path: rel, StartLine: int(a.Range.Start.Line) + 1, EndLine: int(a.Range.End.Line) + 1, Language: d.language, Text: text}
	for _, dg := range a.Diagnostics {
		req.Diagnostics = append(req.Diagnostics, agent.Diagnostic{Path: rel, Line: int(dg.Range.Start.Line) + 1, Severity: severityName(dg.Severity), Source: dg.Source, Message: dg.Message})
	}
	return req, nil
}

// finishTurn tells the user how a turn ended: the model's closing words,
// or why it stopped (shown after the turn's progress end: t.finish).
func (s *Server) finishTurn(ctx context.Context, t *task, id int, sum agent.Summary, cost string, err error) {
	ctx = context.WithoutCancel(ctx)
	final := strings.TrimSpace(sum.Final)
	if final != "" {
		s.logMessage(ctx, protocol.MessageTypeInfo, fmt.Sprintf("agentls: agent turn %d:\n%s", id, final))
	}
	keys := s.editorKeys()
	changed := s.journal.filesOfTurn(id)
	switch {
	case errors.Is(err, context.Canceled):
		kept := "nothing was changed"
		if changed > 0 {
			kept = fmt.Sprintf("the edits it made to %d %s stay; %s", changed, plural(changed, "file", "files"), keys.undoHint(id))
		}
		t.finish(protocol.MessageTypeInfo, fmt.Sprintf("agentls: agent turn %d cancelled: %s", id, kept))
	case err != nil:
		t.finish(protocol.MessageTypeError, fmt.Sprintf("agentls: agent turn %d stopped (%s): %v", id, cost, err))
	default:
		// The answer first: a status line (Helix's) shows the first
		// columns only.
		final = clip(final, 300, "… (the rest: "+keys.output+")")
		what := fmt.Sprintf("%d %s, %d tool %s, %s", sum.Steps, plural(sum.Steps, "step", "steps"), sum.ToolUses, plural(sum.ToolUses, "call", "calls"), cost)
		if changed > 0 {
			what += fmt.Sprintf(", %d %s changed; %s", changed, plural(changed, "file", "files"), keys.undoHint(id))
		}
		if final == "" {
			final = "(no answer)"
		}
		t.finish(protocol.MessageTypeInfo, fmt.Sprintf("%s — agentls: agent turn %d done (%s)", final, id, what))
	}
}

// editorWorkspace is an agent turn's agent.Workspace in the editor: the
// turn reads the open buffers over the disk, each edit call becomes one
// WorkspaceEdit (or pending review hunks), so the next call reads the
// buffers with it applied, the user is asked where the turn's home is,
// and output goes to the output channel.
type editorWorkspace struct {
	s     *Server
	t     *task
	turn  int // its edits are this turn's in the undo journal
	label string
	// home is the file (relative) and line the turn is about, where its
	// approvals show as diagnostics; "" for none.
	home     string
	homeLine int
}

func (w *editorWorkspace) Root() string { return w.s.session().root }

func (w *editorWorkspace) source() editorSource {
	return w.s.source()
}

func (w *editorWorkspace) Read(ctx context.Context, path string) (string, int32, bool, error) {
	return w.source().Read(ctx, path)
}

// LineHashes passes on the hashes the server keeps for open buffers, so
// view_anchored on a large buffer does not hash every line again
// (edittool.HashSource).
func (w *editorWorkspace) LineHashes(path string, version int32) *anchored.Index {
	return w.source().LineHashes(path, version)
}

func (w *editorWorkspace) Confirm(ctx context.Context, q approval.Question) (approval.Answer, error) {
	return confirmer{s: w.s, who: w.label, path: w.home, line: w.homeLine}.Confirm(ctx, q)
}

func (w *editorWorkspace) Output(stream string, p []byte) { w.s.output.write(stream, p) }

// Progress shows a step of the turn's work (an MCP call's progress) in
// the turn's work-done progress.
func (w *editorWorkspace) Progress(msg string) { w.t.report(w.s.ctx, msg) }

// The read tools read through the workspace itself: it must pass the
// buffers' line hashes on.
var _ edittool.HashSource = (*editorWorkspace)(nil)

func (w *editorWorkspace) PrivateDirs() []string { return settings.PrivateDirs(w.s.getenv) }

func (w *editorWorkspace) Propose(ctx context.Context, compute func(context.Context, *edittool.Batch) error) (string, error) {
	var computeErr error
	o := w.s.propose(ctx, w.t, w.turn, "the tool call", w.label, func(ctx context.Context, b *edittool.Batch) (int, error) {
		computeErr = compute(ctx, b)
		return 1, computeErr
	})
	if errors.Is(computeErr, approval.ErrStopTurn) {
		return "", computeErr
	}
	switch {
	case o.noop:
		return "", nil
	case o.applied:
		return o.message, nil
	case o.severity == protocol.MessageTypeError || o.severity == protocol.MessageTypeWarning:
		return "", errors.New(o.message)
	}
	return o.message, nil // queued for review
}

func severityName(s protocol.DiagnosticSeverity) string {
	switch s {
	case protocol.DiagnosticSeverityError:
		return "error"
	case protocol.DiagnosticSeverityWarning:
		return "warning"
	case protocol.DiagnosticSeverityInformation:
		return "info"
	case protocol.DiagnosticSeverityHint:
		return "hint"
	}
	return "problem"
}

// fixActions are "Agent: fix — <message>" code actions, one per diagnostic
// the editor sent with the request (not agentls's own pending-edit hints).
func (s *Server) fixActions(d document, ds []protocol.Diagnostic) []protocol.CodeAction {
	lines := d.buf.Lines()
	var out []protocol.CodeAction
	for _, dg := range ds {
		if dg.Source == "agentls" {
			continue
		}
		msg, _, _ := strings.Cut(strings.TrimSpace(dg.Message), "\n")
		msg = clip(msg, 77, "...")
		line := int(dg.Range.Start.Line)
		around := protocol.Range{
			Start: protocol.Position{Line: uint32(max(0, line-aiContext))},
			End:   protocol.Position{Line: uint32(max(0, min(lines-1, line+aiContext+1)))},
		}
		title := "Agent: fix — " + msg
		out = append(out, protocol.CodeAction{
			Title: title, Kind: protocol.QuickFix, Diagnostics: []protocol.Diagnostic{dg},
			Command: &protocol.Command{Title: title, Command: cmdAsk, Arguments: []any{askArgs{
				Prompt: "Fix the problem the editor shows below, with the smallest change that fixes its cause.", URI: d.uri, Range: &around, Diagnostics: []protocol.Diagnostic{dg},
			}}},
		})
	}
	return out
}

// withoutRunning drops the ask actions (agentls.ask) whose turn runs
// now: while "Agent: run the tests" waits for its approval, offering it
// again would start the same work twice.
func (s *Server) withoutRunning(actions []protocol.CodeAction) []protocol.CodeAction {
	return slices.DeleteFunc(actions, func(a protocol.CodeAction) bool {
		if a.Command == nil || a.Command.Command != cmdAsk || len(a.Command.Arguments) != 1 {
			return false
		}
		args, ok := a.Command.Arguments[0].(askArgs)
		return ok && s.tasks.asking(args)
	})
}

// clip shortens s to at most n bytes, at a character boundary, marking
// the cut with more.
func clip(s string, n int, more string) string {
	if len(s) <= n+len(more) {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + more
}
