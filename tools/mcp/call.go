package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentls/agentls/internal/text"
	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/approval"
	"github.com/agentls/agentls/tools/vision"
)

// A Turn is what an MCP call reaches of the turn it runs in (TurnOf: the
// turn's tools.Env): the user to ask, the output the user watches, and
// the turn's progress (the editor's work-done progress). The zero value
// asks nobody and shows nothing.
type Turn struct {
	// Confirm asks the user; nil: nobody can be asked.
	Confirm approval.Confirmer
	// Output shows a call's progress lines; nil: nowhere.
	Output func(stream string, p []byte)
	// Progress shows a call's progress notifications in the turn's
	// progress too; nil: not there.
	Progress func(msg string)
}

// TurnOf returns what an MCP call reaches of env.
func TurnOf(env tools.Env) Turn {
	t := Turn{Progress: env.Progress}
	if env.Workspace != nil {
		t.Confirm, t.Output = env.Workspace, env.Workspace.Output
	}
	return t
}

// MaxResultBytes bounds what the model reads of one call's result; the
// rest is cut, and the model told so.
const MaxResultBytes = 100 << 10

// runFunc returns the Run of one of a server's tools in a turn.
func (m *Manager) runFunc(s *server, t *sdk.Tool, spec *tools.ToolSpec, turn Turn) tools.RunFunc {
	return func(ctx context.Context, use tools.ToolUse) (string, error) {
		args, err := arguments(spec, use)
		if err != nil {
			return "", err
		}
		if err := m.approve(ctx, turn, s.name, t, args); err != nil {
			return "", err
		}
		return m.call(ctx, s, t.Name, args, turn)
	}
}

// arguments reads a call's JSON arguments: a fenced block's or an xml
// element's body is one JSON object; a native call's, or an xml invoke's
// parameters, are named (an invoke's values are text: one whose schema
// is not a string is read as JSON when it parses).
func arguments(spec *tools.ToolSpec, use tools.ToolUse) (map[string]any, error) {
	args := map[string]any{}
	if body := strings.TrimSpace(use.Content); body != "" {
		if err := json.Unmarshal([]byte(body), &args); err != nil {
			return nil, fmt.Errorf("the arguments of %s must be one JSON object (%v); write them as {\"name\": value, …}", spec.Name, err)
		}
	}
	for i, a := range use.Args {
		if i < len(spec.Parameters) {
			args[spec.Parameters[i].Name] = coerce(spec, spec.Parameters[i].Name, a, use.Format)
		}
	}
	for k, v := range use.Kwargs {
		args[k] = coerce(spec, k, v, use.Format)
	}
	return args, nil
}

func coerce(spec *tools.ToolSpec, name string, v any, format tools.Format) any {
	s, ok := v.(string)
	if !ok || format != tools.FormatXML {
		return v
	}
	i := slices.IndexFunc(spec.Parameters, func(p tools.Parameter) bool { return p.Name == name })
	if i < 0 || spec.Parameters[i].Type == "string" {
		return v
	}
	var decoded any
	if json.Unmarshal([]byte(s), &decoded) == nil {
		return decoded
	}
	return v
}

// allowed reports whether a tool runs without asking, and why.
func (m *Manager) allowed(server string, t *sdk.Tool) bool {
	name := server + "." + t.Name
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.always[name] {
		return true
	}
	for _, g := range m.cfg.Allowlist {
		if ok, _ := path.Match(g, name); ok {
			return true
		}
	}
	return readOnly(t) && slices.Contains(m.cfg.ReadOnly, server)
}

// approve asks the user before a call, as a command is asked, unless the
// tool is allowed; "Always" allows it for the rest of the session.
func (m *Manager) approve(ctx context.Context, turn Turn, server string, t *sdk.Tool, args map[string]any) error {
	if m.allowed(server, t) {
		return nil
	}
	name := server + "." + t.Name
	shown, _ := json.Marshal(args)
	// Every argument is shown: a long call's summary comes with all of
	// it (approval.Command), not cut at some length.
	q := approval.Command(name+" "+string(shown), "MCP server "+server+"'s tools can do whatever the server can; toolAllowlist lets a tool run without asking", name)
	err := approval.Gate{Confirmer: turn.Confirm, Memory: keptTools{m}}.Ask(ctx, q)
	return approval.Say(err, func(r *approval.Refusal) string {
		switch r.Reason {
		case approval.NobodyToAsk:
			return fmt.Sprintf("%s needs the user's approval, and nobody can be asked here; the user can add it to toolAllowlist; do without it", name)
		case approval.PolicyDenies:
			return fmt.Sprintf("%s needs the user's approval, and the approval policy denies that without asking anyone (approvalPolicy: deny); the user can add it to toolAllowlist; do without it", name)
		case approval.TimedOut:
			return fmt.Sprintf("nobody answered in time whether to run %s: it was not run; do without it, or ask the user", name)
		}
		return fmt.Sprintf("the user declined to run %s; do without it, or ask the user", name)
	})
}

// keptTools are the tools the user answered "Always" for (Manager.always),
// as the approval.Gate keeps them.
type keptTools struct{ m *Manager }

func (k keptTools) Allows(name string) bool {
	k.m.mu.Lock()
	defer k.m.mu.Unlock()
	return k.m.always[name]
}

func (k keptTools) Keep(name string) error {
	k.m.mu.Lock()
	defer k.m.mu.Unlock()
	k.m.always[name] = true
	return nil
}

// call calls a tool on the server, starting it if it is not running,
// within the call timeout. The turn's cancellation and the timeout both
// cancel the request (the SDK sends notifications/cancelled); the server
// keeps running.
func (m *Manager) call(ctx context.Context, s *server, tool string, args map[string]any, turn Turn) (string, error) {
	name := s.name + "." + tool
	c, err := s.ensure(ctx)
	if err != nil {
		return "", err
	}
	timeout := m.config().timeout()
	callCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	params := &sdk.CallToolParams{Name: tool, Arguments: args}
	token := fmt.Sprintf("agentls-%d", m.tokens.Add(1))
	params.SetProgressToken(token)
	sink := &progressSink{caught: make(chan struct{}, 1), show: func(p *sdk.ProgressNotificationParams) {
		if turn.Output == nil && turn.Progress == nil {
			return
		}
		line := fmt.Sprintf("%s: %g", name, p.Progress)
		if p.Total > 0 {
			line += fmt.Sprintf("/%g", p.Total)
		}
		if p.Message != "" {
			line += " " + p.Message
		}
		if turn.Progress != nil {
			turn.Progress(line)
		}
		if turn.Output != nil {
			turn.Output(s.stream(), []byte(line+"\n"))
		}
	}}
	s.mu.Lock()
	s.progress[token] = sink
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.progress, token)
		s.mu.Unlock()
	}()
	res, err := c.session.CallTool(callCtx, params)
	if callCtx.Err() == nil {
		// The lines the server sent before its answer come first.
		s.drain(sink, c.done)
	}
	switch {
	case ctx.Err() != nil:
		return "", fmt.Errorf("%s: %w (the server was told to stop it)", name, ctx.Err())
	case callCtx.Err() != nil:
		return "", fmt.Errorf("%s did not answer within %s; it was cancelled and the server goes on (the user's mcpTimeout setting sets the bound)", name, timeout)
	case err != nil && ended(c, err):
		return "", fmt.Errorf("MCP server %s ended during the call of %s (%s; %v); it is started again at the next call", s.name, name, c.exit, err)
	case err != nil:
		return "", fmt.Errorf("%s: the server answered with an error: %w", name, err)
	}
	s.succeeded()
	text := resultText(ctx, res, m.config().Images)
	if res.IsError {
		return "", fmt.Errorf("%s failed: %s", name, cmpText(text, "the server gave no reason"))
	}
	return text, nil
}

// ended reports whether a call failed because the session ended (the
// server exited, or wrote what is not MCP, which ends it too), and then
// waits for the watcher, which follows the connection's end at once, to
// say how. An error the server answered with leaves the session up.
func ended(c *conn, err error) bool {
	var answered *jsonrpc.Error
	if errors.As(err, &answered) {
		return false
	}
	select {
	case <-c.done:
		return true
	case <-time.After(endGrace):
		return false
	}
}

// endGrace bounds how long a failed call waits to learn whether the
// session ended with it.
const endGrace = 5 * time.Second

func cmpText(s, otherwise string) string {
	if strings.TrimSpace(s) == "" {
		return otherwise
	}
	return s
}

// resultText is what the model reads of a result: its text parts; each
// image part sent to the model with it as view_image sends one (checked,
// fitted to the bounds, and within the turn's) and described, or, when it
// cannot be, a placeholder saying why; a placeholder for each audio or
// binary part; the structured content when there is nothing else; cut to
// MaxResultBytes.
func resultText(ctx context.Context, res *sdk.CallToolResult, images vision.Options) string {
	var parts []string
	for i, c := range res.Content {
		switch c := c.(type) {
		case *sdk.TextContent:
			parts = append(parts, c.Text)
		case *sdk.ImageContent:
			parts = append(parts, sendImage(ctx, fmt.Sprintf("image %d", i+1), c, images))
		case *sdk.AudioContent:
			parts = append(parts, fmt.Sprintf("[audio (%s, %d bytes): not shown to the model]", c.MIMEType, len(c.Data)))
		case *sdk.ResourceLink:
			parts = append(parts, fmt.Sprintf("[resource %s: %s]", c.Name, c.URI))
		case *sdk.EmbeddedResource:
			switch r := c.Resource; {
			case r == nil:
			case r.Text != "":
				parts = append(parts, r.Text)
			default:
				parts = append(parts, fmt.Sprintf("[resource %s (%s, %d bytes): not shown to the model]", r.URI, r.MIMEType, len(r.Blob)))
			}
		}
	}
	if len(parts) == 0 && res.StructuredContent != nil {
		if b, err := json.Marshal(res.StructuredContent); err == nil {
			parts = append(parts, string(b))
		}
	}
	return clipResult(strings.Join(parts, "\n"))
}

// clipResult cuts a result to MaxResultBytes, at a character boundary,
// and says so.
func clipResult(s string) string {
	if len(s) <= MaxResultBytes {
		return s
	}
	return text.Clip(s, MaxResultBytes) + fmt.Sprintf("\n[agentls: the result was %d bytes; only the first %d KB are shown]", len(s), MaxResultBytes>>10)
}

// clip shortens s to at most n bytes and a mark, at a character boundary.
func clip(s string, n int) string { return text.Shorten(s, n, "…") }

// sendImage sends an image part of a result to the model and returns its
// description, or a placeholder saying why it was not sent.
func sendImage(ctx context.Context, name string, c *sdk.ImageContent, opts vision.Options) string {
	if opts.Mode == vision.ModeOff {
		return fmt.Sprintf("[%s (%s, %d bytes): not shown to the model, whose vision setting is off]", name, c.MIMEType, len(c.Data))
	}
	text, err := vision.Send(ctx, name, c.Data, opts)
	if err != nil {
		return fmt.Sprintf("[%s (%s, %d bytes): not shown to the model: %v]", name, c.MIMEType, len(c.Data), err)
	}
	return text
}
