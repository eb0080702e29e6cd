package agent

import (
	"context"
	"fmt"

	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/approval"
	"github.com/agentls/agentls/tools/edittool"
	"github.com/agentls/agentls/tools/shelltool"
)

// A Workspace is what a turn's tools see and do (DESIGN §2): the files as
// the turn's view has them, a way to propose an edit, the user to ask, and
// the shell. The language server implements it over the editor's buffers
// (edits become WorkspaceEdits or pending review), agentls ask over the
// disk (edits are written atomically).
type Workspace interface {
	// Root is the workspace folder, absolute.
	Root() string
	// Source reads the files edits are computed against: the turn's view
	// (open buffers over the disk, or the disk).
	Source() edittool.Source
	// Propose runs compute on a fresh Batch and applies what it changed,
	// all of it or nothing: at once, or queued for the user's review.
	// compute may run again, against newer text, when the first result
	// was refused because the files moved on. It returns what to tell the
	// model of the outcome ("" when compute changed nothing), or an error
	// that says why nothing was applied (wrapping compute's own error,
	// approval.ErrStopTurn included).
	Propose(ctx context.Context, compute func(context.Context, *edittool.Batch) error) (string, error)
	// Confirmer asks the user; nil when nobody can be asked.
	Confirmer() approval.Confirmer
	// Shell is the workspace's shell host, made on first use; nil with
	// no error when the workspace runs no commands.
	Shell() (*shelltool.Host, error)
	// PrivateDirs are the user's own agentls folders, which an edit
	// changes only with the user's approval (edit.ProtectedReason).
	PrivateDirs() []string
}

// WorkspaceRunner runs a turn's tool calls in a Workspace: the one
// ToolRunner of the language server and agentls ask. Read tools read the
// turn's view; edit tools are computed there and proposed, edits to
// protected files put to the user first; shell tools run in the host.
type WorkspaceRunner struct {
	Registry  *tools.Registry
	Workspace Workspace
}

func (r *WorkspaceRunner) RunTool(ctx context.Context, use tools.ToolUse) (string, error) {
	spec, ok := r.Registry.Get(use.Tool)
	if !ok {
		return "", fmt.Errorf("there is no %s tool here", use.Tool)
	}
	ws := r.Workspace
	switch {
	case edittool.IsReadTool(spec.Name):
		b := &edittool.Batch{Root: ws.Root(), Source: ws.Source()}
		return b.Run(ctx, spec, use)
	case shelltool.IsShellTool(spec.Name):
		h, err := ws.Shell()
		if err != nil {
			return "", err
		}
		if h == nil {
			return "", fmt.Errorf("the %s tool cannot run here", spec.Name)
		}
		return h.RunTool(ctx, use, ws.Confirmer())
	case !edittool.IsEditTool(spec.Name):
		return "", fmt.Errorf("the %s tool is not available in agentls yet; use the edit tools", spec.Name)
	}
	var out string
	approved := false
	msg, err := ws.Propose(ctx, func(ctx context.Context, b *edittool.Batch) error {
		var err error
		if out, err = b.Run(ctx, spec, use); err != nil || approved {
			return err
		}
		// Asked once: a second computation (the first was refused) edits
		// the same files.
		if err := b.ConfirmProtected(ctx, ws.Confirmer(), ws.PrivateDirs()...); err != nil {
			return err
		}
		approved = true
		return nil
	})
	switch {
	case err != nil:
		return "", err
	case msg == "":
		return out, nil
	}
	return out + "\n" + msg, nil
}
