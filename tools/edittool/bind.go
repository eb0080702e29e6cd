package edittool

import (
	"context"

	"github.com/agentls/agentls/edits"
	"github.com/agentls/agentls/procs/policy"
	"github.com/agentls/agentls/tools"
)

// A Workspace is where a turn's read and edit tools run: the one
// contract every front-end implements (tools.Workspace).
type Workspace = tools.Workspace

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
	return []string{tools.NameSave, tools.NameAppend, tools.NamePatch, tools.NamePatchMany, tools.NameApplyPatch, tools.NamePatchAnchored, tools.NameDelete, tools.NameMove, tools.NameRead, tools.NameViewAnchored}
}

// lookupBatchTool returns the tool of that name this package runs. It is a
// switch rather than a table so that IsEditTool, which code actions call
// for every call of a reply, allocates nothing.
func lookupBatchTool(name string) (batchTool, bool) {
	switch name {
	case tools.NameSave:
		return batchTool{edits: true, run: (*Batch).runSave}, true
	case tools.NameAppend:
		return batchTool{edits: true, run: (*Batch).runAppend}, true
	case tools.NamePatch:
		return batchTool{edits: true, run: (*Batch).runPatch}, true
	case tools.NamePatchMany:
		return batchTool{edits: true, run: (*Batch).runPatchMany}, true
	case tools.NameApplyPatch:
		return batchTool{edits: true, run: (*Batch).runApplyPatch}, true
	case tools.NamePatchAnchored:
		return batchTool{edits: true, run: (*Batch).runPatchAnchored}, true
	case tools.NameDelete:
		return batchTool{edits: true, run: (*Batch).runDelete}, true
	case tools.NameMove:
		return batchTool{edits: true, run: (*Batch).runMove}, true
	case tools.NameRead:
		return batchTool{run: (*Batch).runRead}, true
	case tools.NameViewAnchored:
		return batchTool{run: (*Batch).runViewAnchored}, true
	}
	return batchTool{}, false
}

// bind returns the run function of the tool named name in env. A read
// reads the workspace's view. An edit records the files it names in
// env.Writes, then is computed on a fresh Batch inside the workspace's
// Propose, so what it changed is applied (or queued for review) before the
// next call reads; edits to protected files are put to the user first,
// once per call even if Propose computes it again.
func bind(name string, env tools.Env) tools.RunFunc {
	t, _ := lookupBatchTool(name)
	ws := env.Workspace
	if !t.edits {
		return func(ctx context.Context, use tools.ToolUse) (string, error) {
			return t.run(&Batch{Root: ws.Root(), Source: ws, Confirm: ws, Hashes: env.Hashes}, ctx, use)
		}
	}
	return func(ctx context.Context, use tools.ToolUse) (string, error) {
		env.Writes.Add(WrittenBy(ws.Root(), use)...)
		return proposeEdit(ctx, env, t, use)
	}
}

// proposeEdit runs one edit call in env's workspace and returns what the
// model reads: the tool's own message, then the workspace's word on what
// became of it.
func proposeEdit(ctx context.Context, env tools.Env, t batchTool, use tools.ToolUse) (string, error) {
	ws := env.Workspace
	var out string
	approved := false
	msg, err := Propose(ctx, ws, env.Hashes, func(ctx context.Context, b *Batch) error {
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

// Propose is Workspace.Propose for a computation on a Batch (an edit
// tool's, morph's, a pasted edit's): compute runs on a fresh Batch over
// the files as ws has them now, with hashes (nil: none) for the anchored
// tools, and what it changed is applied all or nothing.
func Propose(ctx context.Context, ws Workspace, hashes tools.Hashes, compute func(context.Context, *Batch) error) (string, error) {
	return ws.Propose(ctx, func(ctx context.Context, files tools.Source) (edits.Changeset, error) {
		b := &Batch{Root: ws.Root(), Source: files, Hashes: hashes}
		err := compute(ctx, b)
		return b.Changes, err
	})
}

// WrittenBy returns the files an edit call names, relative to root, for
// TurnWrites; policy.UnknownFile when they cannot be told, which every
// runner runs. A call is recorded before it runs, even if its edit is
// then refused or fails: the question is asked once too often rather than
// once too few.
func WrittenBy(root string, use tools.ToolUse) []string {
	paths := PathsOf(use)
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
