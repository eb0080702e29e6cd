package acp

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/edits"
	"github.com/agentls/agentls/settings"
	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/approval"
	"github.com/agentls/agentls/tools/edittool"
)

// workspace is a session's agent.Workspace: files are read from the
// client's buffers when it offers fs/read_text_file (unsaved changes
// included), else from the disk; each edit call is written all or
// nothing, through fs/write_text_file when the client offers it (so it
// lands in its buffers), else atomically to the disk as agentls ask
// writes; questions go to the client.
type workspace struct {
	s       *session
	turn    int // the turn's number in the undo journal
	calls   *tracker
	confirm approval.Confirmer
}

// ToolOptions makes workspace an agent.ToolConfigured.
func (w *workspace) ToolOptions() agent.ToolOptions { return agent.ToolOptionsOf(w.s.set) }

func (w *workspace) Root() string          { return w.s.root }
func (w *workspace) PrivateDirs() []string { return settings.PrivateDirs(w.s.a.opts.Getenv) }

// Output is not shown live: each command's output is in its tool call
// when it ends.
func (w *workspace) Output(string, []byte) {}

func (w *workspace) Confirm(ctx context.Context, q approval.Question) (approval.Answer, error) {
	if w.confirm == nil {
		return approval.Skip, approval.ErrNobodyToAsk
	}
	return w.confirm.Confirm(ctx, q)
}

// Read reads path as the disk has it, checked as every read is (inside
// the root, symbolic links included, a regular file), then, when the
// client offers it, as the client's buffer has it.
func (w *workspace) Read(ctx context.Context, path string) (string, int32, bool, error) {
	disk := edittool.DiskSource{Root: w.s.root}
	content, version, exists, err := disk.Read(ctx, path)
	if err != nil || !exists || !w.s.client.Fs.ReadTextFile {
		return content, version, exists, err
	}
	resp, err := w.s.a.conn.ReadTextFile(ctx, sdk.ReadTextFileRequest{SessionId: w.s.id, Path: w.abs(path)})
	if err != nil {
		return "", edits.NotOpen, false, fmt.Errorf("fs/read_text_file %s: %w", path, err)
	}
	return resp.Content, edits.NotOpen, true, nil
}

// abs is a checked relative path's absolute one.
func (w *workspace) abs(rel string) string {
	return filepath.Join(w.s.root, filepath.FromSlash(rel))
}

// Propose computes an edit call's changes over the files as the workspace
// reads them and applies them all or none.
func (w *workspace) Propose(ctx context.Context, compute func(context.Context, tools.Source) (edits.Changeset, error)) (string, error) {
	cs, err := compute(ctx, w)
	if err != nil {
		return "", err
	}
	changes := cs.Effective()
	if len(changes) == 0 {
		return "", nil
	}
	if w.s.reviewing() {
		// Review mode: nothing is written until /review accepts it
		// (review.go); the call shows what waits.
		var names []string
		for _, c := range changes {
			names = append(names, c.Path)
			w.calls.addDiff(diffOf(w.abs(c.Path), c))
		}
		return heldMessage(w.s.hold(changes), names), nil
	}
	where, err := w.apply(ctx, &cs)
	if err != nil {
		return "", err
	}
	if note := w.s.record(w.turn, fmt.Sprintf("ACP turn %d", w.turn), changes); note != "" {
		w.calls.message(fmt.Sprintf("\n> agentls: %s\n\n", note))
	}
	var names []string
	for _, c := range changes {
		names = append(names, c.Path)
		w.calls.addDiff(diffOf(w.abs(c.Path), c))
	}
	return where + strings.Join(names, ", "), nil
}

// apply writes a changeset's effective changes, all or none, through the
// client when it offers fs/write_text_file, else to the disk; it says
// where they went.
func (w *workspace) apply(ctx context.Context, cs *edits.Changeset) (string, error) {
	if w.s.client.Fs.WriteTextFile {
		if err := w.writeThroughClient(ctx, cs.Effective()); err != nil {
			return "", err
		}
		return "Written to the editor's buffers: ", nil
	}
	if err := edits.ApplyToDisk(w.s.root, cs); err != nil {
		return "", err // it says that nothing was written
	}
	return "Written to disk: ", nil
}

// diffOf is a change as ACP shows it: the old text (none for a new file)
// and the new.
func diffOf(abs string, c *edits.FileChange) sdk.ToolCallContent {
	switch c.Action {
	case edits.Create:
		return sdk.ToolDiffContent(abs, c.Result())
	case edits.Delete:
		return sdk.ToolDiffContent(abs, "", c.Base())
	}
	return sdk.ToolDiffContent(abs, c.Result(), c.Base())
}

// writeThroughClient writes changes with fs/write_text_file, all or
// nothing: every file's path and content are checked first (each still
// the Base it was computed from, a file to create absent); if a write
// fails, the files already written get their old text back, and the
// error says what was restored. Deletions, which ACP cannot ask of the
// client, are made on the disk once every write succeeded.
func (w *workspace) writeThroughClient(ctx context.Context, changes []*edits.FileChange) error {
	for _, c := range changes {
		if _, err := edits.ResolveInRoot(w.s.root, c.Path); err != nil {
			return fmt.Errorf("%s: %w. Nothing was written.", c.Path, err)
		}
		cur, _, exists, err := w.Read(ctx, c.Path)
		switch {
		case err != nil:
			return fmt.Errorf("%s: %w. Nothing was written.", c.Path, err)
		case c.Action == edits.Create && exists:
			return fmt.Errorf("%s was created meanwhile. Nothing was written.", c.Path)
		case c.Action != edits.Create && (!exists || cur != c.Base()):
			return fmt.Errorf("%s changed since the edit was computed. Nothing was written.", c.Path)
		}
	}
	var written []*edits.FileChange
	undo := func(cause error) error {
		var restored, lost []string
		for _, c := range written {
			var err error
			switch c.Action {
			case edits.Create:
				err = os.Remove(w.abs(c.Path))
			case edits.Delete:
				err = os.WriteFile(w.abs(c.Path), []byte(c.Base()), 0o644)
			default:
				_, err = w.s.a.conn.WriteTextFile(context.WithoutCancel(ctx), sdk.WriteTextFileRequest{SessionId: w.s.id, Path: w.abs(c.Path), Content: c.Base()})
			}
			if err != nil {
				lost = append(lost, c.Path)
			} else {
				restored = append(restored, c.Path)
			}
		}
		msg := cause.Error()
		if len(restored) > 0 {
			msg += "; restored " + strings.Join(restored, ", ")
		}
		if len(lost) > 0 {
			return fmt.Errorf("%s; COULD NOT RESTORE %s: they hold the new text", msg, strings.Join(lost, ", "))
		}
		return errors.New(msg + ". Nothing was written.")
	}
	for _, c := range changes {
		if c.Action == edits.Delete {
			continue
		}
		if _, err := w.s.a.conn.WriteTextFile(ctx, sdk.WriteTextFileRequest{SessionId: w.s.id, Path: w.abs(c.Path), Content: c.Result()}); err != nil {
			return undo(fmt.Errorf("fs/write_text_file %s: %w", c.Path, err))
		}
		written = append(written, c)
	}
	for _, c := range changes {
		if c.Action != edits.Delete {
			continue
		}
		if err := os.Remove(w.abs(c.Path)); err != nil {
			return undo(fmt.Errorf("delete %s: %w", c.Path, err))
		}
		written = append(written, c)
	}
	return nil
}
