package edittool

import (
	"context"

	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/approval"
)

// A Workspace is where a turn's read and edit tools run (agent.Workspace
// is one): the files as the turn sees them, a way to apply a Batch, the
// user to ask about protected files. One that is also a HashSource passes
// its buffers' line hashes on to view_anchored and patch_anchored.
type Workspace interface {
	// Root is the workspace folder, absolute: a Batch checks paths
	// against it.
	Root() string
	// Read is the turn's view of a file (Source): the open buffer and its
	// version, else the disk (edits.NotOpen); exists is false when there
	// is no such file.
	Source
	// Propose runs compute on a fresh Batch and applies what it changed,
	// all of it or nothing: at once, or queued for the user's review.
	// compute may run again, against newer text, when the first result
	// was refused because the files moved on. It returns what to tell the
	// model of the outcome ("" when compute changed nothing), or an error
	// that says why nothing was applied (wrapping compute's own error,
	// approval.ErrStopTurn included).
	Propose(ctx context.Context, compute func(context.Context, *Batch) error) (string, error)
	// Confirm asks the user (approval.Confirmer); where nobody can be
	// asked it returns approval.ErrNobodyToAsk, and what needed asking is
	// refused.
	approval.Confirmer
	// PrivateDirs are the user's own agentls folders, which an edit
	// changes only with the user's approval (ProtectedReason). The
	// workspace says where they are because the tools read no
	// environment of their own.
	PrivateDirs() []string
}

// A batchTool is one of the tools a Batch runs: how it reads its call,
// and whether it changes files (an edit, proposed to the workspace) or
// only reads them.
type batchTool struct {
	edits bool
	run   func(b *Batch, ctx context.Context, use tools.ToolUse) (string, error)
}

// batchToolNames are the tools this package runs, each known to
// batchTool.
func batchToolNames() []string {
	return []string{"save", "append", "patch", "patch_many", "apply_patch", "patch_anchored", "delete", "move", "read", "view_anchored"}
}

// lookupBatchTool returns the tool of that name this package runs. It is a
// switch rather than a table so that IsEditTool, which code actions call
// for every call of a reply, allocates nothing.
func lookupBatchTool(name string) (batchTool, bool) {
	switch name {
	case "save":
		return batchTool{edits: true, run: (*Batch).runSave}, true
	case "append":
		return batchTool{edits: true, run: (*Batch).runAppend}, true
	case "patch":
		return batchTool{edits: true, run: (*Batch).runPatch}, true
	case "patch_many":
		return batchTool{edits: true, run: (*Batch).runPatchMany}, true
	case "apply_patch":
		return batchTool{edits: true, run: (*Batch).runApplyPatch}, true
	case "patch_anchored":
		return batchTool{edits: true, run: (*Batch).runPatchAnchored}, true
	case "delete":
		return batchTool{edits: true, run: (*Batch).runDelete}, true
	case "move":
		return batchTool{edits: true, run: (*Batch).runMove}, true
	case "read":
		return batchTool{run: (*Batch).runRead}, true
	case "view_anchored":
		return batchTool{run: (*Batch).runViewAnchored}, true
	}
	return batchTool{}, false
}

// Runs returns the run functions of the tools this package runs, bound to
// ws, for Registry.Bind. A read reads ws's view. An edit is computed on a
// fresh Batch inside ws.Propose, so what it changed is applied (or queued
// for review) before the next call reads; edits to protected files are
// put to the user first, once per call even if Propose computes it again.
func Runs(ws Workspace) map[string]tools.RunFunc {
	runs := map[string]tools.RunFunc{}
	for _, name := range batchToolNames() {
		t, _ := lookupBatchTool(name)
		if !t.edits {
			runs[name] = func(ctx context.Context, use tools.ToolUse) (string, error) {
				return t.run(&Batch{Root: ws.Root(), Source: ws, Confirm: ws}, ctx, use)
			}
			continue
		}
		runs[name] = func(ctx context.Context, use tools.ToolUse) (string, error) {
			return proposeEdit(ctx, ws, t, use)
		}
	}
	return runs
}

// proposeEdit runs one edit call in ws and returns what the model reads:
// the tool's own message, then the workspace's word on what became of it.
func proposeEdit(ctx context.Context, ws Workspace, t batchTool, use tools.ToolUse) (string, error) {
	var out string
	approved := false
	msg, err := ws.Propose(ctx, func(ctx context.Context, b *Batch) error {
		// An edit is computed whole before anything is written: an
		// error here changed nothing (tools.Unchanged).
		var err error
		if out, err = t.run(b, ctx, use); err != nil || approved {
			return tools.Unchanged(err)
		}
		// Asked once: a second computation (the first was refused) edits
		// the same files.
		if err := b.ConfirmProtected(ctx, ws, ws.PrivateDirs()...); err != nil {
			return tools.Unchanged(err)
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

// How each tool reads its call: positional arguments, else the named ones
// of an @ call or xml parameters; the body, else its named argument.

func (b *Batch) runSave(ctx context.Context, use tools.ToolUse) (string, error) {
	return b.Save(ctx, arg(use, 0, "path"), body(use, "content"))
}

func (b *Batch) runAppend(ctx context.Context, use tools.ToolUse) (string, error) {
	return b.Append(ctx, arg(use, 0, "path"), body(use, "content"))
}

func (b *Batch) runPatch(ctx context.Context, use tools.ToolUse) (string, error) {
	return b.Patch(ctx, arg(use, 0, "path"), body(use, "patch"))
}

func (b *Batch) runPatchMany(ctx context.Context, use tools.ToolUse) (string, error) {
	return b.PatchMany(ctx, use, use.Kwargs["patches"])
}

func (b *Batch) runApplyPatch(ctx context.Context, use tools.ToolUse) (string, error) {
	return b.ApplyPatch(ctx, body(use, "patch"))
}

func (b *Batch) runPatchAnchored(ctx context.Context, use tools.ToolUse) (string, error) {
	ops := body(use, "ops")
	if v, ok := use.Kwargs["ops"]; ok && ops == "" {
		ops = jsonText(v) // ops given as a list rather than a string
	}
	return b.PatchAnchored(ctx, arg(use, 0, "path"), ops)
}

func (b *Batch) runDelete(ctx context.Context, use tools.ToolUse) (string, error) {
	return b.Delete(ctx, arg(use, 0, "path"), use.Content)
}

func (b *Batch) runMove(ctx context.Context, use tools.ToolUse) (string, error) {
	return b.Move(ctx, arg(use, 0, "path"), arg(use, 1, "to"), use.Content)
}

func (b *Batch) runRead(ctx context.Context, use tools.ToolUse) (string, error) {
	return b.Read(ctx, readPaths(use), lineArg(use, "start_line"), lineArg(use, "end_line"))
}

func (b *Batch) runViewAnchored(ctx context.Context, use tools.ToolUse) (string, error) {
	return b.ViewAnchored(ctx, arg(use, 0, "path"), lineArg(use, "start_line"), lineArg(use, "end_line"))
}
