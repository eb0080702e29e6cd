// Package lsp is agentls's language server: the editor-facing adapter over
// the engine. It keeps the editor's open documents, turns agent replies into
// one versioned WorkspaceEdit, and reports through the client's own means.
//
// It is built on go.lsp.dev/jsonrpc2 v0.10 with its own small router and
// server→client calls (the library's convenience layer has bugs that
// matter, DESIGN.md §13), using go.lsp.dev/protocol for types and method
// names, and the extension types in protocol.go. The transport's
// hardening (framing that survives bad frames, the --listen token, panic
// recovery, calls that end with the session) is lsp/internal/rpc.
//
// # Lifecycle and rules
//
// Serve runs one connection. Its lifecycle is explicit (new →
// initializing → running → shutdown): requests before initialize get
// -32002, after shutdown -32600, unknown requests -32601. initialize
// negotiates UTF-8 positions when offered, else UTF-16, and makes the
// session (session.go): root, capabilities, encoding and client quirks,
// never changed afterwards, so handlers read it without a lock. The lock
// order and which store owns what are written in session.go.
//
// No handler blocks: a command that does real work (an ask, an apply, a
// job) answers at once with an id and runs as a task (progress.go) with
// work-done progress, cancellable from the editor or agentls.cancel. A
// task checks for cancellation only before it sends a WorkspaceEdit; once
// sent, the editor's answer is awaited, so the outcome is always journalled.
//
// # Files by job
//
// The carved packages hold the stores and the transport, so that "a
// store calls no other store" is the compiler's rule (carve_test.go):
// lsp/internal/rpc (framing, the --listen token, panic recovery, the
// inbound order), lsp/internal/documents (the open buffers, their
// versions, line hashes and echo watches), lsp/internal/review (pending
// hunks), lsp/internal/position (the one position mapper). The undo
// history, edits/journal, is a store too, kept below both front-ends so
// that agentls acp records its edits in the same journal. This package
// holds the handlers, each group on the state it works on, with its
// dependencies as fields.
//
//   - server.go, initialize.go, session.go: Serve, the lifecycle and
//     dispatch, newServer's wiring; capabilities and client quirks; the
//     session and the lock order.
//   - commands.go: every workspace/executeCommand, declared once in
//     commandTable (name, argument shape, typed handler); the advertised
//     list, dispatch and InvalidParams errors all come from it.
//   - text_sync.go, editor_source.go, paths.go, linehashes.go: didOpen,
//     didChange, didClose over the documents store, and what follows a
//     change; editorSource reads a buffer over the disk (hands the edit
//     tools the buffer itself, tools.BufferSource, so a patch after a
//     keystroke copies nothing, and passes its line hashes on); which
//     file a URI names and where it lies.
//   - turn.go, editor_workspace.go, workspace_buffers.go,
//     mention_source.go: agentls.ask and the AI! / fix actions start a
//     turn through agent.Prepare (startTurn); editorWorkspace is the
//     turn's agent.Workspace; mentionSource is what the prompt's mentions
//     read.
//   - propose.go: propose computes a change on an edittool.Batch and hands
//     it to delivery (or queues it in review mode); agentls.applyReply.
//   - delivery.go, workspace_edit.go, created_on_disk.go,
//     unseen_buffer.go: the one way a change reaches the editor
//     (delivery.send): ONE versioned WorkspaceEdit, the applyEdit call,
//     the echo of the editor's didChange (documents.Store.Watch),
//     recovery of buffers Neovim skipped, one recompute on a refusal,
//     then pending review, so nothing is lost. Every wait is in
//     deliveryTimers. A file not open is sent as one whole-buffer replace
//     with the hash of its base (agentlsBaseHashes), so an unsaved buffer
//     the server cannot see is never edited on the wrong lines.
//   - undo.go: agentls.turn.undo/redo and agentls.edit.undo/redo: the
//     inverse of a turn's edits (edits/journal picks them), merged
//     per file, rebased onto what the user typed since, sent as one edit.
//   - review.go, review_view.go, review_diff.go: applyMode review, all on
//     pendingView: pending hunks (lsp/internal/review) shown as Hint
//     diagnostics that move with the user's edits, accepted or rejected
//     by code actions, shown as a diff (in scratch.go's folder).
//   - code_action.go, completion.go, reply_counts.go, ai_comment.go,
//     answers.go, fix_actions.go: code actions computed from state only
//     ("Apply agent reply (N edits)", AI! and AI? comments, fixes, undo,
//     accept/reject, approve/deny); a reply's count follows keystrokes
//     that cannot change it (replyCounts), since editors ask at every
//     cursor move; a chat's @mention completion.
//   - approve.go: approvalDesk: a Question becomes a pending-approval
//     diagnostic with Approve / Always / Deny / Stop code actions, plus
//     buttons where the client has showMessageRequest; every line of the
//     question is shown whole (a listing document where the client
//     clips), and a choice made from a summary must carry the question's
//     digest.
//   - command_host.go, jobs.go, save.go, command_progress.go, output.go,
//     diagnostics.go: the workspace's shelltool.Host (commandHost, made
//     on first use from agent.ShellOptionsOf, shared by the agent's shell
//     tools and agentls.run), saving modified buffers before an agent's
//     command (agentls/saveDocuments), progress per command, the
//     rate-limited output channel, and one publishDiagnostics per file
//     merging pending hunks, answers, approvals and command problems (a
//     finished command's replace those of its last run).
//   - chat.go: chat documents under .agentls/chat: ## You / ## Agent
//     sections, the reply streamed in as edits, undone with its turn
//     (rewindChat); a chat's path may not go through a symlink.
//   - settings_store.go, configuration.go, trust.go: the settings in
//     force (settingsStore), made from the editor's layers over the files;
//     configuration takes the editor's pushes and pulls, remakes them at
//     each turn when the workspace file or its trust changed (refresh),
//     and runs agentls.trust.
//   - status.go: agentls.status (statusDesk): model, tokens and cost,
//     what runs and waits, the trust and rules in force.
//   - client.go, progress.go, editor_keys.go: calls to the client
//     (editorClient), work-done progress and tasks, and the words each
//     editor's user reaches a command by.
//
// # Editors as they are (initialize.go's quirks, lsptest's profiles)
//
// What real editors showed, and the server adapts to: Neovim 0.7 applies
// documentChanges without announcing them, and when the user types during
// an apply it skips the newer buffer yet answers applied: true (hence the
// echo check); it inserts a created file's text above an empty line. VS
// Code is UTF-16 only, clips and joins a message box's lines (hence the
// listing document for approvals), and undoes a whole WorkspaceEdit at
// once. Helix has no showMessageRequest (approvals are code actions on a
// diagnostic), shows a progress end over the message before it (so a
// task's outcome is sent after its end), applies with failureHandling
// "abort" (changes before a failing one stay: partly made), and times out
// requests after 20 s (so nothing slow runs inside a request). Emacs'
// eglot 1.9 drops CreateFile and has no buttons either. Neither VS Code
// nor Neovim sends a progress token with executeCommand: the server
// creates one.
//
// lsp/lsptest is the fake editor every end-to-end test drives, under the
// Neovim, VS Code, Helix and Emacs profiles; testdata/scenarios holds the
// txtar scenarios TestScenarios runs under each.
package lsp
