package tools

import (
	"context"

	"github.com/agentls/agentls/anchored"
	"github.com/agentls/agentls/edits"
	"github.com/agentls/agentls/tools/approval"
)

// A Source reads the files that a turn's tools see: the editor's open
// buffers over the disk, or the disk.
type Source interface {
	// Read returns the content of path (relative to the root) and the
	// editor's version of it (edits.NotOpen for the disk); exists is
	// false when there is no such file.
	Read(ctx context.Context, path string) (content string, version int32, exists bool, err error)
}

// A BufferSource is a Source that keeps open buffers as edits.Buffers
// (the language server's editor). ReadBuffer hands one over without
// joining its text, so that a patch to a large buffer the user just typed
// in is resolved on its chunks (edits.Buffer.ResolveHunks) and recorded
// on the Buffer (edits.Changeset.EditBuffer), not on a copy of the whole
// document. The edit tools use it where it serves and Read otherwise;
// either way a file reads the same.
type BufferSource interface {
	Source
	// ReadBuffer returns the open buffer of path (relative to the root)
	// and the editor's version of it; ok is false when path is not open
	// (Read reads it from the disk).
	ReadBuffer(ctx context.Context, path string) (buf *edits.Buffer, version int32, ok bool)
}

// A Workspace is where a turn's tools run (DESIGN §2), the one contract
// every front-end implements: the language server over the editor's
// buffers (edits become WorkspaceEdits or pending review), agentls ask
// over the disk (edits are written atomically), the ACP agent over its
// client's files.
type Workspace interface {
	// Root is the workspace folder, absolute: paths are checked against
	// it.
	Root() string
	// Read is the turn's view of a file: the open buffer and its
	// version, else the disk (edits.NotOpen).
	Source
	// Propose calls compute on the files as they are now and applies the
	// changeset it returns, all of it or nothing: at once, or queued for
	// the user's review. compute may run again, against newer text, when
	// the first result was refused because the files moved on. It
	// returns what to tell the model of the outcome ("" when compute
	// changed nothing), or an error that says why nothing was applied
	// (wrapping compute's own error, approval.ErrStopTurn included).
	Propose(ctx context.Context, compute func(ctx context.Context, files Source) (edits.Changeset, error)) (string, error)
	// Confirm asks the user; where nobody can be asked it returns
	// approval.ErrNobodyToAsk, and what needed asking is refused.
	approval.Confirmer
	// PrivateDirs are the user's own agentls folders, which an edit
	// changes only with the user's approval. The workspace says where
	// they are because the tools read no environment of their own.
	PrivateDirs() []string
	// Output writes a tool's live output to what the user watches (the
	// editor's output channel, the terminal), as from stream ("cmd 3").
	// It must not block long.
	Output(stream string, p []byte)
}

// Hashes keeps the line hashes of open buffers' current versions, as the
// server does for each buffer once it was anchored, so that anchoring a
// large buffer again does not hash every line; and the anchor tables of
// the last views, so that patch_anchored on the text a view showed
// resolves its anchors without anchoring the text again.
type Hashes interface {
	// LineHashes returns the line hashes of path at version, or nil when
	// it keeps none for that version.
	LineHashes(path string, version int32) *anchored.Index
	// Views returns where view_anchored keeps the anchor tables of the
	// files it showed last, for patch_anchored on the same text; nil
	// when none are kept.
	Views() *anchored.Views
}

// An Env is everything a tool's Bind may reach in one turn, said once:
// the workspace, and the parts a front-end may or may not have (nil when
// it has not). A tool reaches nothing else: no type assertion on the
// workspace and no value in a context says what it may do.
//
// Two things stay per call and travel in the call's context, because
// they belong to one call and not to the turn: the outcome a call reports
// (ReportOutcome) and the images it attaches to its own result
// (AttachImage). Whoever runs the call collects both.
type Env struct {
	// Workspace is where the turn runs; it is never nil.
	Workspace Workspace
	// Buffers returns the text of the buffers open in an editor, by path
	// relative to the root, so that rag searches an unsaved change
	// before it is saved. Nil: nothing is open, rag reads the disk.
	Buffers func() map[string]string
	// Hashes passes the editor's line hashes, and the anchor tables of
	// the last views, on to view_anchored and patch_anchored. Nil: they
	// hash what they read.
	Hashes Hashes
	// Progress shows a step of the turn's work in the front-end's
	// progress (an MCP call's notifications). Nil: only Output shows it.
	Progress func(msg string)
	// ViewImage shows the model the workspace image at rel (relative to
	// the root) with the result of the call ctx belongs to: view_image
	// inside an ipython cell. Nil: cells cannot show images.
	ViewImage func(ctx context.Context, rel string) (string, error)
	// Writes records the files the turn's edit tools write, so that a
	// runner the user allowed asks again before it runs one. Nil: none
	// are recorded.
	Writes *TurnWrites
	// Hosts are the web hosts the user allowed with "Always" for the rest
	// of the turn; browser and screenshot share them, so one answer
	// covers both. Nil: each keeps its own.
	Hosts *approval.Kept
}
