// Package builtin lists agentls's built-in tools, in order. Each tool is
// declared, spec and Bind, in the package that runs it (edittool,
// shelltool, vision, browser, screenshot, computer, morph, rag), as a
// staticcheck Analyzer is; this package only assembles the list from the
// Config the settings make (agent.BindTools), and gives the spec-only
// registry that parsing and describing use (Registry: a call of it runs
// nothing). The one tool declared here is subagent (see subagentSpec).
// The tools' behaviour follows gptme's (research/gptme.md §3–9).
package builtin

import (
	"encoding/json"

	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/browser"
	"github.com/agentls/agentls/tools/computer"
	"github.com/agentls/agentls/tools/edittool"
	"github.com/agentls/agentls/tools/morph"
	"github.com/agentls/agentls/tools/rag"
	"github.com/agentls/agentls/tools/screenshot"
	"github.com/agentls/agentls/tools/shelltool"
	"github.com/agentls/agentls/tools/vision"
)

// Config is what the settings, not the workspace, make of the built-in
// tools (agent.ToolOptions gives one per turn). The zero value is the
// tools as described: no shell host (a call runs no command), vision
// auto, a browser that asks before every fetch, no apply model.
type Config struct {
	// Shell returns the shell host the shell tools run in (made on first
	// use); nil, or a nil Host: the workspace runs no commands.
	Shell      func() (*shelltool.Host, error)
	Vision     vision.Options
	Browser    browser.Options
	Screenshot screenshot.Options
	// Computer is the computer tool's, and `screenshot screen`'s.
	Computer computer.Options
	Morph    morph.Options
	// MorphFallback sends a patch whose placeholder hunks cannot be
	// placed to the apply model as a lazy edit (morph.WithFallback).
	MorphFallback bool
	Rag           rag.Options
	// Subagent binds the subagent tool: a call runs a child turn, which
	// only agent can start (agent.BindTools sets it). Nil: described only.
	Subagent func(env tools.Env) tools.RunFunc
}

// Tools returns every built-in tool, configured by c, in the order of the
// prompt's golden files (the registry orders them by load priority).
func Tools(c Config) []tools.Tool {
	shell := c.Shell
	if shell == nil {
		shell = func() (*shelltool.Host, error) { return nil, nil }
	}
	patch := edittool.PatchTool()
	if c.MorphFallback {
		patch = morph.WithFallback(patch, c.Morph)
	}
	return []tools.Tool{
		shelltool.ShellTool(shell), shelltool.IPythonTool(shell),
		edittool.SaveTool(), edittool.AppendTool(), patch, edittool.PatchManyTool(), edittool.ApplyPatchTool(),
		edittool.DeleteTool(), edittool.MoveTool(), edittool.ViewAnchoredTool(), edittool.PatchAnchoredTool(), edittool.ReadTool(),
		shelltool.TmuxTool(shell),
		vision.Tool(c.Vision),
		browser.Tool(c.Browser),
		morph.Tool(c.Morph),
		{Spec: subagentSpec(), Bind: c.Subagent},
		rag.Tool(c.Rag),
		screenshot.Tool(c.Screenshot, c.Browser, c.Computer),
		computer.Tool(c.Computer),
	}
}

// Registry returns a registry of every built-in tool, described only: no
// tool has a Run.
func Registry() *tools.Registry {
	r, err := tools.NewRegistry(Specs()...)
	if err != nil {
		panic("builtin: " + err.Error()) // the specs are constant: a test keeps them valid
	}
	return r
}

// Specs returns fresh specs of every built-in tool, in no particular order.
func Specs() []*tools.ToolSpec { return tools.Specs(Tools(Config{})) }

// subagentSpec is gptme's subagent. It is the one built-in tool declared
// here rather than beside its run function: a call runs a child turn,
// which only agent can start, and tools may not import agent. Its Bind
// is Config.Subagent, which agent.BindTools gives.
func subagentSpec() *tools.ToolSpec {
	return &tools.ToolSpec{
		Name:         tools.NameSubagent,
		BlockTypes:   []string{tools.NameSubagent},
		Description:  "Hand a self-contained sub-task to a subagent with its own conversation; its final answer comes back as the result.",
		Instructions: `The subagent starts fresh: it sees only the prompt you give it, so say everything it needs (files, names, what to answer). By default it may only read files; list the tools it needs in "tools" (only tools you have yourself; edit tools only if the task needs them: its edits are applied like yours). It stops after "max_steps" model calls or "timeout" seconds (bounded by your own). A few subagents may run at once; use them for research across many files, not for one quick read.`,
		Parameters: []tools.Parameter{
			{Name: "prompt", Type: "string", Required: true, Description: "The sub-task, complete: the subagent sees nothing else."},
			{Name: "tools", Schema: json.RawMessage(`{"type":"array","items":{"type":"string"},"description":"The tools the subagent may use (default: read)."}`)},
			{Name: "max_steps", Type: "integer", Description: "At most this many model calls (default 10)."},
			{Name: "timeout", Type: "integer", Description: "At most this many seconds (default 300)."},
		},
		DisabledByDefault: true,
		LoadPriority:      40,
		Examples: []tools.Example{
			{Steps: []tools.ExampleStep{
				tools.ExampleUser("which packages call Load?"),
				tools.ExampleAssistant("", tools.ExampleCall(tools.NameSubagent, "List every function in this repository that calls settings.Load, with its file and line. Answer with the list only.")),
				tools.ExampleSystem("Result of subagent:\nSubagent 1 answered (4 steps):\ncmd/agentls/ask.go:57 runAsk\nlsp/settings.go:40 loadSettings"),
			}},
		},
	}
}
