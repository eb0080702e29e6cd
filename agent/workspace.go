package agent

import (
	"context"
	"fmt"
	"os"

	"github.com/agentls/agentls/internal/statedir"
	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/approval"
	"github.com/agentls/agentls/tools/browser"
	"github.com/agentls/agentls/tools/builtin"
	"github.com/agentls/agentls/tools/computer"
	"github.com/agentls/agentls/tools/morph"
	"github.com/agentls/agentls/tools/rag"
	"github.com/agentls/agentls/tools/screenshot"
	"github.com/agentls/agentls/tools/shelltool"
	"github.com/agentls/agentls/tools/vision"
)

// A Workspace is where a turn's tools run (DESIGN §2): tools.Workspace,
// the one contract every front-end implements — the files as the turn's
// view has them, a way to propose an edit, the user to ask, the user's own
// folders and the output channel. The language server implements it over
// the editor's buffers (edits become WorkspaceEdits or pending review),
// agentls ask over the disk (edits are written atomically), the ACP agent
// over its client's files.
type Workspace = tools.Workspace

// BindTools returns reg with the built-in tools bound to env, the turn's
// tools.Env (the front-end's Workspace and what else it has: an editor's
// buffers and line hashes, its progress), configured by opts (the
// settings': ToolOptionsOf): it is a loop over builtin.Tools calling each
// tool's Bind. BindTools adds to env what the turn's tools share: the
// files its edits wrote (a runner the user allowed asks again before it
// runs one), the web hosts allowed with "Always" (browser and screenshot),
// and view_image for ipython's cells. The shell tools run in the Host host
// returns (made on first use; nil: the workspace runs no commands). Two
// tools are special, and said so in the list's Config rather than rewired
// by name: patch falls back to morph's apply model when opts ask
// (builtin.Config.MorphFallback), and subagent runs child turns over the
// very registry BindTools returns (the Subagents in the call's context:
// WithSubagents). Without an apply model morph is marked unavailable.
//
// Tools reg holds that the list does not name keep their own Run.
func BindTools(reg *tools.Registry, env tools.Env, host func() (*shelltool.Host, error), opts ToolOptions) *tools.Registry {
	root := env.Workspace.Root()
	env.Writes = &tools.TurnWrites{}
	env.Hosts = &approval.Kept{}
	env.ViewImage = func(ctx context.Context, rel string) (string, error) {
		return vision.ViewImage(ctx, root, rel, opts.Vision) // view_image(path) in a cell is the tool's
	}
	cfg := opts.config(root, host)
	var bound *tools.Registry // the registry a subagent's tools are chosen from: the one returned
	cfg.Subagent = func(tools.Env) tools.RunFunc { return runSubagent(&bound) }
	bound = reg.BindTools(env, builtin.Tools(cfg))
	if opts.ApplyModel == nil {
		bound = unavailable(bound, tools.NameMorph)
	}
	return bound
}

// ToolOptions configure the built-in tools that the settings, not the
// workspace, shape. The zero value is the settings' defaults: view_image
// on (vision auto) at the default bound, and a browser that asks before
// every fetch and has no search engine.
type ToolOptions struct {
	Vision  vision.Options
	Browser browser.Options
	// ApplyModel is the model morph merges lazy edits with (the
	// applyModel setting); nil: none, and morph is unavailable (a call
	// is refused saying so).
	ApplyModel *ModelConfig
	// ApplyModelFallback sends a patch whose placeholder hunks cannot be
	// placed to the apply model as a lazy edit (morph.PatchFallback).
	ApplyModelFallback bool
	// Embeddings is the model rag re-ranks its passages with (the
	// embeddings setting); nil: BM25 alone.
	Embeddings *ModelConfig
	// ComputerAllowlist are globs on the computer tool's actions that run
	// without asking (the computerAllowlist setting).
	ComputerAllowlist []string
	// Getenv reads the apply and embeddings models' keys, and the
	// computer tool's $DISPLAY; nil: the process's environment.
	Getenv func(string) string
}

// config is the built-in tools' Config for a turn in root whose shell
// tools run in the Host host returns.
func (o ToolOptions) config(root string, host func() (*shelltool.Host, error)) builtin.Config {
	return builtin.Config{
		Shell:         host,
		Vision:        o.Vision,
		Browser:       o.Browser,
		Screenshot:    screenshot.Options{Vision: o.Vision, Timeout: o.Browser.Timeout},
		Computer:      o.computer(),
		Morph:         o.morph(),
		MorphFallback: o.ApplyModelFallback && o.ApplyModel != nil,
		Rag:           o.rag(root),
	}
}

// computer returns the computer tool's options: the display Getenv
// names, the allowlist, and vision's bounds for its screenshots.
func (o ToolOptions) computer() computer.Options {
	getenv := o.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	return computer.Options{Display: getenv("DISPLAY"), Allowlist: o.ComputerAllowlist, Vision: o.Vision}
}

// morph returns the morph tool's options: its apply model, if any.
func (o ToolOptions) morph() morph.Options {
	if o.ApplyModel == nil {
		return morph.Options{}
	}
	getenv := o.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	return morph.Options{Complete: ApplyModel(*o.ApplyModel, getenv), Model: o.ApplyModel.Model}
}

// rag returns the rag tool's options: its index kept in root's state
// folder ("rag"), made on rag's first call.
func (o ToolOptions) rag(root string) rag.Options {
	getenv := o.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	opts := rag.Options{StateDir: func() (string, error) { return statedir.Dir(getenv, "rag", root) }}
	if o.Embeddings != nil {
		opts.Embed, opts.EmbedModel = Embedder(*o.Embeddings, getenv), o.Embeddings.Model
	}
	return opts
}

// unavailable returns reg with the named tool marked unavailable (its
// Requires says why: agentls tools --all shows it), so a turn's
// selection leaves it out.
func unavailable(reg *tools.Registry, name string) *tools.Registry {
	specs := reg.All()
	for i, s := range specs {
		if s.Name == name {
			off := *s
			off.Available = func() bool { return false }
			specs[i] = &off
		}
	}
	out, err := tools.NewRegistry(specs...)
	if err != nil {
		return reg // the same specs as reg, which is valid
	}
	return out
}

// A Runner runs a turn's tool calls: it looks the tool up in Registry and
// calls its Run, so a tool runs the same way in the language server and in
// agentls ask, and a tool added to the registry with its own Run (an MCP
// server's) needs no code here. It is the ToolRunner of both.
type Runner struct {
	Registry *tools.Registry
}

func (r Runner) RunTool(ctx context.Context, use tools.ToolUse) (string, error) {
	spec, ok := r.Registry.Get(use.Tool)
	if !ok {
		return "", fmt.Errorf("there is no %s tool here", use.Tool)
	}
	if !spec.Runnable() {
		return "", fmt.Errorf("the %s tool is known here but cannot run in this workspace (nothing runs it); do without it", spec.Name)
	}
	return spec.Run(ctx, use)
}
