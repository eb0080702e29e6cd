// Package edittool runs the file tools — save, append, patch, patch_many,
// apply_patch and patch_anchored, and read and view_anchored, which read
// through the same view — against a Batch: the edits of one request,
// gathered into one edits.Changeset that is applied all together (by the
// language server as one WorkspaceEdit, by the CLI to disk) or not at all.
// Tools read files through the batch, so a later edit sees the earlier
// ones. Tools declares them (tool.go), each bound in a turn to the Env's
// Workspace, where each call is its own Batch (Propose), proposed before
// the next call reads, its files recorded in the Env's TurnWrites.
//
// # The view
//
// A Batch reads through a Source: the editor's buffers over the disk in
// the server, DiskSource in the CLI; first, through its own changeset.
// Where the Source keeps its buffers as edits.Buffers
// (tools.BufferSource: the server's), patch and patch_many resolve an
// open file's hunks on its chunks and record the change on the Buffer,
// so the first patch after a keystroke does not copy the document; the
// edits, messages and refusals are those of its text.
// Each edit tool changes the batch or, on error, leaves it as it was
// (multi-file tools run on a copy). The Batch's Hashes (the Env's: the
// editor's) hand view_anchored and patch_anchored the buffer's line
// hashes, and keep the anchor table of each file's last view
// (anchored.Views): patch_anchored on the very text a view showed
// resolves through it, any other text afresh, with the same result.
//
// read shows files with line numbers as the batch sees them, in a fence
// the content cannot end; folders are listed; binary files, missing paths
// and anything outside the root are refused per path, so one bad path
// hides no other. A patch without a path whose body holds `=== PATH:`
// sections is applied as patch_many.
//
// # A whole reply (reply.go, searchreplace.go, pasted.go)
//
// Batch.ApplyReply runs every edit of a pasted reply in reply order (what
// agentls apply and agentls.applyReply do): the edit tool calls, and
// aider-style SEARCH/REPLACE blocks found among the other fenced blocks
// (Batch.SearchReplace; an empty SEARCH creates a missing file). A block
// that names no file is refused, not skipped.
//
// # Trust (protected.go, userconfig.go, readsecret.go)
//
// An edit that touches a file configuring what runs — any .git component,
// .agentls, .gitattributes, .gitmodules, .envrc, editor project settings,
// the user's own agentls folders, or the files that configure the user's
// programs (~/.gitconfig, shell rc files, ~/.ssh, …) wherever the
// workspace is — is put to the user before it is sent or written
// (Batch.ConfirmProtected, once per call), whether named directly or
// through a symlink, with names folded as case-insensitive file systems
// and Windows read them (ProtectedReason). agentls apply refuses such
// edits without --protected.
//
// read and view_anchored follow the shell policy's secret rule
// (policy.SecretRule): a file that may hold secrets (.env*, keys,
// credential stores, a link to one) is put to the user first, and where
// nobody can be asked it is skipped with a note.
package edittool
