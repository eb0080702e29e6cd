package agent

import (
	"context"
	"fmt"
	"maps"
	"os"

	"github.com/agentls/agentls/internal/statedir"
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

// A Workspace is what a turn's tools see and do (DESIGN §2): the edit
// tools' Workspace (the files as the turn's view has them, a way to
// propose an edit, the user to ask, the user's own folders) and the output
// channel. The language server implements it over the editor's buffers
// (edits become WorkspaceEdits or pending review), agentls ask over the
// disk (edits are written atomically), the ACP agent over its client's
// files. BindTools binds the built-in tools to one.
type Workspace interface {
	edittool.Workspace
	// Output writes a tool's live output to what the user watches (the
	// editor's output channel, the terminal), as from stream ("cmd 3").
	// It must not block long.
	Output(stream string, p []byte)
}

// BindTools returns reg with the built-in tools bound to where the turn
// runs, configured by opts (the settings': ToolOptionsOf):
//   - read and the edit tools to ws: each edit call computed on a Batch in
//     ws.Propose, edits to protected files put to the user first;
//   - the shell tools to the Host that host returns (made on first use;
//     nil and no error: the workspace runs no commands), asking through ws;
//   - view_image to ws's root; browser asking through ws before each fetch
//     its allowlist does not allow (one Browser a call: an "Always" lasts
//     the turn); screenshot through the browser's approval;
//   - morph through opts' apply model (none: marked unavailable);
//   - rag over ws's files, its index in the state folder;
//   - computer on the screen $DISPLAY names, each action asked unless
//     allowlisted; subagent as child turns over the bound tools themselves
//     (the Subagents in the call's context: WithSubagents).
//
// Tools reg holds that none of these packages runs keep their own Run.
func BindTools(reg *tools.Registry, ws Workspace, host func() (*shelltool.Host, error), opts ToolOptions) *tools.Registry {
	runs := edittool.Runs(ws)
	// The files the turn's edits name, so that an allowlisted runner
	// asks again before it runs them (turnwrites.go).
	writes := &shelltool.TurnWrites{}
	maps.Copy(runs, shelltool.RunsInTurn(host, ws, writes)) // no name is in two
	runs["ipython"] = shelltool.WithImages(runs["ipython"], func(ctx context.Context, rel string) (string, error) {
		return vision.ViewImage(ctx, ws.Root(), rel, opts.Vision) // view_image(path) in a cell is the tool's
	})
	maps.Copy(runs, vision.Runs(ws, opts.Vision))
	web := browser.New(ws, opts.Browser) // one for both: an "Always" for a host covers screenshots too
	runs["browser"] = web.Run
	shots := screenshot.Options{Vision: opts.Vision, Timeout: opts.Browser.Timeout}
	if copts := opts.computer(); computer.Available(copts.Display) {
		// `screenshot screen` is the computer tool's screenshot action,
		// asked as that is (the screen leaves the machine).
		screen := computer.New(ws, copts)
		shots.Screen = func(ctx context.Context) (string, error) {
			return screen.Run(ctx, tools.ToolUse{Tool: "computer", Args: []string{"screenshot"}})
		}
	}
	maps.Copy(runs, screenshot.Runs(web, shots))
	maps.Copy(runs, morph.Runs(ws, opts.morph()))
	if opts.ApplyModelFallback && opts.ApplyModel != nil && runs["patch"] != nil {
		runs["patch"] = morph.PatchFallback(runs["patch"], ws, opts.morph())
	}
	maps.Copy(runs, rag.Runs(ws, opts.rag(ws.Root())))
	maps.Copy(runs, computer.Runs(ws, opts.computer())) // each action asks through ws unless allowlisted
	recordWrites(runs, ws.Root(), writes)
	bound := reg.Bind(runs)
	if opts.ApplyModel == nil {
		bound = unavailable(bound, "morph")
	}
	return bindSubagent(bound, ws)
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
