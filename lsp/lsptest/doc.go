// Package lsptest is an in-process fake editor for testing the language
// server end to end, in the spirit of gopls's fake editor: a real JSON-RPC
// client over a pipe that keeps versioned buffers, applies WorkspaceEdits
// the way editors do (version checks, the negotiated position encoding,
// resource operations), tells the server about its own changes, answers
// server requests, and records what the server shows.
//
// A test reads top to bottom: Start with the editor's options (profiles.go
// has the editors, options.go how it answers), act (editor.go), then
// Await expectations (expect.go) on what it saw, never sleep:
//
//	e := lsptest.Start(t, root, lsptest.VSCode(), lsptest.RefuseEdits("apply reply"))
//	e.ExecuteCommand("agentls.applyReply", map[string]any{"text": reply})
//	e.Await(lsptest.ShownMessage("refused", "pending review"),
//		lsptest.Diagnostics(lsptest.ForFile("a.go"), lsptest.WithCode("pending-edit")))
//
// client.go is the connection and the server's requests to the editor;
// edits.go applies WorkspaceEdits to the buffers and the disk.
//
// A failure names every expectation not met and what the editor saw
// (messages, requests, diagnostics, progress, edits applied, refused and
// held, buffers, the output channel's last lines); one that can no longer
// be met fails at once. Readers (Messages, Diagnostics, EditsApplied, …)
// return copies. Each server reads its environment through
// lsp.Options.Getenv, with state, config and cache folders of its own in
// the test's temporary folder, and Env adds variables over them; so no
// test sets the process's environment and tests on the fake editor run in
// parallel.
package lsptest
