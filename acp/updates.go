package acp

import (
	"context"
	"encoding/base64"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/internal/text"
	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/edittool"
	"github.com/agentls/agentls/tools/shelltool"
)

// A tracker shows one turn to the client as session/updates: the
// model's text and thinking as they stream, each tool call as a
// tool_call when it starts and a tool_call_update when it ends, with the
// diffs its edits made and its output. It knows the call running now, so
// that a question or an edit is shown as that call's.
type tracker struct {
	s   *session
	ctx context.Context // the updates' own: not cancelled with the turn

	mu    sync.Mutex
	muted bool
	// turn and next make the calls' ids: "call-TURN-N", unique in the
	// session as ACP asks (clients keep a session's calls by id; a replay
	// is turn 0).
	turn    int
	next    int
	ids     map[*tools.ToolUse]sdk.ToolCallId
	current *call // the call running now (nil: none)
	shown   strings.Builder
	ended   []savedCall
	log     string // the turn's conversation log
	plan    planner
}

// A call is a tool call shown to the client.
type call struct {
	id    sdk.ToolCallId
	kind  sdk.ToolKind
	title string
	diffs []sdk.ToolCallContent // what its edits changed, as they were applied
	// terminals are the client terminals its commands ran in (embedded
	// in its content, for the client to keep showing).
	terminals []sdk.ToolCallContent
}

func newTracker(s *session, ctx context.Context) *tracker {
	return &tracker{s: s, ctx: ctx, ids: map[*tools.ToolUse]sdk.ToolCallId{}}
}

// mute stops the updates: the prompt was answered.
func (t *tracker) mute() {
	t.mu.Lock()
	t.muted = true
	t.mu.Unlock()
}

// finish ends a call left running (the turn was cancelled in it): it is
// shown failed.
func (t *tracker) finish() {
	t.mu.Lock()
	c := t.current
	t.current = nil
	t.mu.Unlock()
	if c != nil {
		t.mu.Lock()
		t.ended = append(t.ended, savedCall{Title: c.title, Kind: c.kind, Status: sdk.ToolCallStatusFailed})
		t.mu.Unlock()
		t.send(sdk.UpdateToolCall(c.id, sdk.WithUpdateStatus(sdk.ToolCallStatusFailed),
			sdk.WithUpdateContent([]sdk.ToolCallContent{sdk.ToolContent(sdk.TextBlock("cancelled"))})))
	}
}

func (t *tracker) send(u sdk.SessionUpdate) {
	t.mu.Lock()
	muted := t.muted
	t.mu.Unlock()
	if muted {
		return
	}
	if err := t.s.a.conn.SessionUpdate(t.ctx, sdk.SessionNotification{SessionId: t.s.id, Update: u}); err != nil {
		t.s.a.logf("session/update: %v", err)
	}
}

// message shows text as the agent's.
func (t *tracker) message(text string) {
	t.mu.Lock()
	t.shown.WriteString(text)
	t.mu.Unlock()
	t.send(sdk.UpdateAgentMessageText(text))
}

// flushPlan ends the plan's last line (a reply ended or was cut for a
// call) and sends the plan if that changed it.
func (t *tracker) flushPlan() {
	t.mu.Lock()
	plan, changed := t.plan.flush()
	t.mu.Unlock()
	if changed {
		t.sendPlan(plan)
	}
}

// sendPlan shows the model's plan (plan.go).
func (t *tracker) sendPlan(entries []sdk.PlanEntry) {
	t.send(sdk.UpdatePlan(entries...))
}

// saved is the turn as its transcript keeps it.
func (t *tracker) saved(prompt, final string) savedTurn {
	t.mu.Lock()
	defer t.mu.Unlock()
	return savedTurn{Prompt: prompt, Text: t.shown.String(), Calls: append([]savedCall(nil), t.ended...), Final: final, Log: t.log, Plan: slices.Clone(t.plan.sent)}
}

// setLog records the turn's conversation log.
func (t *tracker) setLog(path string) {
	t.mu.Lock()
	t.log = path
	t.mu.Unlock()
}

// nextID numbers a call.
func (t *tracker) nextID() sdk.ToolCallId {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.next++
	return sdk.ToolCallId(fmt.Sprintf("call-%d-%d", t.turn, t.next))
}

// observe is the turn's Observe.
func (t *tracker) observe(e agent.Event) {
	switch e.Kind {
	case agent.EventText:
		t.message(e.Text)
		t.mu.Lock()
		plan, changed := t.plan.feed(e.Text)
		t.mu.Unlock()
		if changed {
			t.sendPlan(plan)
		}
	case agent.EventReply:
		t.flushPlan()
	case agent.EventReasoning:
		t.send(sdk.UpdateAgentThoughtText(e.Text))
	case agent.EventNotice:
		t.message(fmt.Sprintf("\n> agentls: %s\n\n", e.Text))
	case agent.EventToolStart:
		t.flushPlan()
		t.start(e.Use)
	case agent.EventToolDone:
		t.done(e)
	}
}

// start shows a call as it starts.
func (t *tracker) start(use *tools.ToolUse) *call {
	c := &call{id: t.nextID(), kind: kindOf(use.Tool), title: titleOf(*use)}
	t.mu.Lock()
	t.ids[use] = c.id
	t.current = c
	t.mu.Unlock()
	t.send(sdk.StartToolCall(c.id, c.title, sdk.WithStartKind(c.kind), sdk.WithStartStatus(sdk.ToolCallStatusInProgress),
		sdk.WithStartLocations(t.locations(*use)), sdk.WithStartRawInput(rawInput(*use))))
	return c
}

// done shows how a call ended: its diffs, or its output.
func (t *tracker) done(e agent.Event) {
	t.mu.Lock()
	c := t.current
	id, started := t.ids[e.Use]
	if !started || c == nil || c.id != id {
		t.mu.Unlock()
		c = t.start(e.Use) // ended without a start (an image withdrawn)
		t.mu.Lock()
	}
	t.current = nil
	t.mu.Unlock()
	status := sdk.ToolCallStatusCompleted
	var content []sdk.ToolCallContent
	t.mu.Lock()
	content = append(content, c.diffs...)
	content = append(content, c.terminals...)
	t.mu.Unlock()
	out := strings.TrimSpace(e.Text)
	if e.Err != nil {
		status = sdk.ToolCallStatusFailed
		out = strings.TrimSpace(strings.TrimSpace(out + "\n" + e.Err.Error()))
	}
	for _, img := range e.Images {
		// What the call showed the model (view_image, a screenshot),
		// shown to the user too.
		content = append(content, sdk.ToolContent(sdk.ImageBlock(base64.StdEncoding.EncodeToString(img.Data), img.MIMEType)))
	}
	if out != "" && (len(content) == len(e.Images) || e.Err != nil) {
		if c.kind == sdk.ToolKindExecute {
			f := text.Fence(out)
			out = f + "\n" + out + "\n" + f
		}
		content = append(content, sdk.ToolContent(sdk.TextBlock(out)))
	}
	t.mu.Lock()
	t.ended = append(t.ended, savedCall{Title: c.title, Kind: c.kind, Status: status})
	t.mu.Unlock()
	t.send(sdk.UpdateToolCall(c.id, sdk.WithUpdateStatus(status), sdk.WithUpdateContent(content)))
}

// addTerminal embeds a client terminal in the running call, at once,
// so that the client shows the command's output as it comes.
func (t *tracker) addTerminal(id string) {
	t.mu.Lock()
	c := t.current
	if c == nil {
		t.mu.Unlock()
		return
	}
	c.terminals = append(c.terminals, sdk.ToolTerminalRef(id))
	content := append(append([]sdk.ToolCallContent(nil), c.diffs...), c.terminals...)
	t.mu.Unlock()
	t.send(sdk.UpdateToolCall(c.id, sdk.WithUpdateContent(content)))
}

// running returns the call running now, or one started for a question
// asked outside any (own: the caller ends it).
func (t *tracker) running(title string) (c *call, own bool) {
	t.mu.Lock()
	c = t.current
	t.mu.Unlock()
	if c != nil {
		return c, false
	}
	return t.begin(title, sdk.ToolKindOther), true
}

// begin shows a call of agentls's own (not the model's), pending.
func (t *tracker) begin(title string, kind sdk.ToolKind) *call {
	c := &call{id: t.nextID(), kind: kind, title: title}
	t.send(sdk.StartToolCall(c.id, c.title, sdk.WithStartKind(c.kind), sdk.WithStartStatus(sdk.ToolCallStatusPending)))
	return c
}

// addDiff records an applied change for the running call.
func (t *tracker) addDiff(d sdk.ToolCallContent) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.current != nil {
		t.current.diffs = append(t.current.diffs, d)
	}
}

// locations are the files a call reads or edits, absolute, for the
// client to follow.
func (t *tracker) locations(use tools.ToolUse) []sdk.ToolCallLocation {
	var paths []string
	switch {
	case edittool.IsEditTool(use.Tool):
		paths = edittool.PathsOf(use)
	case use.Tool == tools.NameRead:
		paths = edittool.ReadPaths(use)
	}
	var out []sdk.ToolCallLocation
	for _, p := range paths {
		if !filepath.IsAbs(p) {
			p = filepath.Join(t.s.root, filepath.FromSlash(p))
		}
		out = append(out, sdk.ToolCallLocation{Path: p})
	}
	return out
}

// kindOf maps agentls's tools onto ACP's kinds.
func kindOf(tool string) sdk.ToolKind {
	switch {
	case tool == tools.NameDelete:
		return sdk.ToolKindDelete
	case tool == tools.NameMove:
		return sdk.ToolKindMove
	case edittool.IsEditTool(tool), tool == tools.NameMorph:
		return sdk.ToolKindEdit
	case edittool.IsReadTool(tool), tool == tools.NameViewImage:
		return sdk.ToolKindRead
	case shelltool.IsShellTool(tool):
		return sdk.ToolKindExecute
	case tool == tools.NameBrowser, tool == tools.NameScreenshot:
		return sdk.ToolKindFetch
	case tool == tools.NameRag:
		return sdk.ToolKindSearch
	case tool == tools.NameSubagent:
		return sdk.ToolKindThink
	}
	return sdk.ToolKindOther
}

// titleOf is a call as the client lists it: the tool and its path, or a
// command's first line.
func titleOf(use tools.ToolUse) string {
	if shelltool.IsShellTool(use.Tool) {
		cmd := use.Content
		if c, ok := use.Kwargs["command"].(string); ok && cmd == "" {
			cmd = c
		}
		first, _, more := strings.Cut(strings.TrimSpace(cmd), "\n")
		if more {
			first += " …"
		}
		if first != "" {
			return use.Tool + ": " + first
		}
	}
	return agent.DescribeUse(use)
}

// rawInput is a call's arguments as the client may show them.
func rawInput(use tools.ToolUse) map[string]any {
	in := map[string]any{"tool": use.Tool}
	if len(use.Args) > 0 {
		in["args"] = use.Args
	}
	for k, v := range use.Kwargs {
		in[k] = v
	}
	if use.Content != "" {
		in["content"] = use.Content
	}
	return in
}
