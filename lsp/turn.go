package lsp

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/internal/text"
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
// its id at once. It fails at once when no model is configured. The turn
// is made by agent.Prepare from the server's settings, as agentls ask's
// is from its own: the server adds only the editor's workspace (buffers,
// WorkspaceEdits, approvals where the request was made), its shell host,
// its MCP servers and what the user sees.
func (s *Server) startTurn(plan turnPlan) (int, error) {
	s.config.refresh() // the workspace's file as it is now, under the trust rule
	// The turn's number, given once it prepared: a request that fails
	// at once (no model) takes none.
	var id int
	ws := &editorWorkspace{s: s, home: plan.home, homeLine: plan.homeLine}
	req := plan.req
	// The turn's task and context, set before it runs: Observe and
	// Notify are called only while it runs, on its goroutine.
	var t *task
	ctx := s.ctx
	turnLine := func(text string) { s.output.write(fmt.Sprintf("turn %d", id), []byte(text+"\n")) }
	var prepared *agent.Prepared
	prepared, err := agent.Prepare(agent.Setup{
		Settings:  s.settings.get(),
		Getenv:    s.getenv,
		Workspace: ws,
		Buffers:   ws.Buffers,
		Hashes:    ws,
		Progress:  ws.Progress,
		Host:      s.cmds.get,
		MCP:       s.mcp,
		ReadOnly:  plan.readOnly,
		Slots:     &s.subagentSlots, // bounded across the server's turns
		Mentions:  s.mentionSource(ws, &req),
		Observe: func(e agent.Event) {
			if e.Kind == agent.EventToolStart {
				// The tokens so far with each step: a turn's cost shows
				// while it runs.
				t.report(ctx, fmt.Sprintf("step %d: %s (%s)", e.Step, agent.DescribeUse(*e.Use), prepared.Usage()))
				s.commands.toolStart(t, e.Step, *e.Use)
			}
			if e.Kind == agent.EventToolDone {
				s.commands.end(t)
			}
			if e.Kind == agent.EventToolDone && e.Call != nil {
				// Each call's timing line: "[shell] go test ./... 4.2 s, exit 1".
				turnLine(e.Call.Summary())
			}
			if plan.observe != nil {
				plan.observe(ctx, e)
			}
		},
		ObserveSubagent: func(n int, e agent.Event) {
			if e.Kind == agent.EventToolStart {
				t.report(ctx, fmt.Sprintf("subagent %d: step %d: %s", n, e.Step, agent.DescribeUse(*e.Use)))
			}
		},
		Notify: func(n agent.Notice) {
			switch n.Kind {
			case agent.NoticeWarning:
				s.client.logMessage(ctx, protocol.MessageTypeWarning, fmt.Sprintf("agentls: agent turn %d: %s", id, n.Text))
			case agent.NoticeLog:
				s.client.logMessage(ctx, protocol.MessageTypeInfo, fmt.Sprintf("agentls: agent turn %d: %s", id, n.Text))
			default: // rules and mentions: listed under the turn
				turnLine(n.Text)
			}
		},
	})
	if err != nil {
		return 0, err
	}
	id = s.journal.NewTurn()
	ws.turn, ws.label = id, fmt.Sprintf("agent turn %d", id)
	prepared.SetID(id)
	if plan.ask != nil {
		// Before the command answers: a code action requested right
		// after it must not offer the same ask again.
		s.tasks.startAsk(*plan.ask, id)
	}
	s.goTurnTask(id, fmt.Sprintf("agentls: agent turn %d", id), func(taskCtx context.Context, task *task) {
		t, ctx, ws.t = task, taskCtx, task
		if plan.ask != nil {
			defer s.tasks.endAsk(*plan.ask, id)
		}
		defer s.commands.end(t) // a turn cancelled in its command
		sum, err := prepared.Run(ctx, req)
		if plan.done != nil {
			plan.done(context.WithoutCancel(ctx), sum, err)
		}
		s.usage.add(prepared.ModelName(), prepared.Usage())
		s.finishTurn(ctx, t, id, sum, prepared.CostLine(), err)
	})
	return id, nil
}

// agentRequest gathers what the editor knows around a request: the open
// files and the selection.
func (s *Server) agentRequest(a askArgs) (agent.Request, error) {
	root := s.session().root
	req := agent.Request{Prompt: a.Prompt, Root: root}
	for _, d := range s.docs.Files() {
		if rel, err := s.relPath(d); err == nil {
			req.OpenFiles = append(req.OpenFiles, rel)
		}
	}
	sort.Strings(req.OpenFiles)
	if a.URI == "" || a.Range == nil {
		return req, nil
	}
	d, ok := s.docs.Get(a.URI)
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
	req.Selection = &agent.Selection{Path: rel, StartLine: int(a.Range.Start.Line) + 1, EndLine: int(a.Range.End.Line) + 1, Language: d.Language, Text: text}
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
		s.client.logMessage(ctx, protocol.MessageTypeInfo, fmt.Sprintf("agentls: agent turn %d:\n%s", id, final))
	}
	keys := s.editorKeys()
	changed := s.journal.FilesOfTurn(id)
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
		final = text.Shorten(final, 300, "… (the rest: "+keys.output+")")
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
