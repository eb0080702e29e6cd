package agent

import (
	"context"

	"github.com/agentls/agentls/edits"
	"github.com/agentls/agentls/procs/policy"
	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/edittool"
	"github.com/agentls/agentls/tools/shelltool"
)

// recordWrites makes the edit tools among runs (save, patch, apply_patch,
// …, and morph) record in writes the files each call names before it
// runs, so that the turn's shell asks again before an allowlisted runner
// runs them (shelltool.TurnWrites). A call is recorded even if its edit
// is then refused or fails: the question is asked once too often rather
// than once too few; a call whose files cannot be told records
// policy.UnknownFile, which every runner runs.
func recordWrites(runs map[string]tools.RunFunc, root string, writes *shelltool.TurnWrites) {
	for name, run := range runs {
		if !edittool.IsEditTool(name) && name != "morph" {
			continue
		}
		runs[name] = func(ctx context.Context, use tools.ToolUse) (string, error) {
			writes.Add(writtenBy(root, use)...)
			return run(ctx, use)
		}
	}
}

// writtenBy returns the files an edit call names, relative to root.
func writtenBy(root string, use tools.ToolUse) []string {
	paths := edittool.PathsOf(use)
	if use.Tool == "morph" {
		if len(use.Args) > 0 {
			paths = []string{use.Args[0]}
		} else if p, ok := use.Kwargs["path"].(string); ok {
			paths = []string{p}
		}
	}
	if len(paths) == 0 {
		return []string{policy.UnknownFile}
	}
	out := make([]string, 0, len(paths))
	for _, p := range paths {
		if clean, err := edits.CleanPath(root, p); err == nil {
			p = clean
		}
		out = append(out, p)
	}
	return out
}
