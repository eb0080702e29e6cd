// Command agentls is a language server that brings a coding agent's tools
// into any editor, and the same engine on the command line.
//
// Usage:
//
//	agentls [serve] [--stdio] [--listen ADDR] [--log FILE]
//	agentls anchors view FILE [--lines A:B] [--json]
//	agentls anchors apply FILE < ops.json
//	agentls apply [-C DIR] [--format markdown|xml|tool] [--dry-run] [--json] [--protected] < reply.md
//	agentls parse [--format markdown|xml|tool] [--streaming] [--thinking auto|tagged|off] [--blocks] < reply.md
//	agentls policy [-C DIR] 'COMMAND LINE'
//	agentls ask [-C DIR] [--model M] [--format F] [--max-steps N] [--prompt full|compact|auto] PROMPT
//	agentls tools [-C DIR] [--format F] [--all] [--json]
//	agentls mcp list [-C DIR] [--json]
//	agentls trust [--revoke] [DIR]
//	agentls acp
//	agentls demo [--keep | --editor [--dir DIR] [--listen ADDR]]
//	agentls version (or agentls --version)
//
// See the README for every subcommand. Exit codes: 0 done, 1 refused or
// failed with nothing changed, 2 usage.
//
// # Shape
//
// main.go dispatches; each subcommand is one file with a
// run…(ctx, args, stdin, stdout, stderr) int function, so tests run the
// CLI in-process. parseFlags gives every subcommand the same behaviour:
// -h prints the usage and exits 0; a usage error prints one line prefixed
// "agentls CMD:", then the usage, and exits 2. Every subcommand that works
// in a folder (-C DIR, trust DIR) takes it through workspaceRoot:
// absolute, symlinks resolved, as the server resolves its root, since
// trust is recorded by that path.
//
// ask, demo and acp start their turns through the one core, agent.Prepare
// (ask.go, demo.go, package acp), as the server does, and tools lists what
// such a turn offers (agent.OfferedTools): the settings come from the same
// files (loadSettings), flags on top. ask's diskWorkspace writes each edit
// call with edits.ApplyToDisk before the next call reads; its shell host
// (newShellHost) asks on the terminal (terminalConfirmer) when stdin is
// one, and otherwise nobody can be asked, so what needs approval is
// refused with how to do without. The
// problems a finished command's output names are printed on stderr.
//
// Bare agentls with a terminal on stdin says on stderr that it waits for
// an LSP client (serveNotice); an editor's pipe gets only the log. serve
// --listen serves a Unix socket (mode 0600, peers of another uid refused)
// or loopback TCP, where the first frame must carry the token written to
// the state folder (listen.go, lsp/internal/rpc). --log files are 0600
// and secret-looking values are redacted as they are written (redact.go).
//
// demo runs a scripted turn with agent/modeltest as the model in a
// temporary workspace: a multi-file edit, an anchored edit, a failing
// `go test` turned into diagnostics. demo --editor serves that model for a
// real editor instead, in a new folder whose settings it trusts only
// while it runs (settings.Trust.GrantWhile); demo_model.go answers each
// request from the conversation so far.
//
// # Tests
//
// The contract of DESIGN §7 is tested by testscript files in
// testdata/script (script_test.go): the test binary is agentls itself, so
// `exec agentls …` runs the real program over real pipes, in a HOME and
// XDG folders of its own; `model serve FILE…` starts a fake model for
// ask, `exits N` asserts an exit code, `ttyin` gives a pseudo-terminal.
// Go tests stay for what a script cannot say (the LSP frames, the demo,
// redaction). same_settings_test.go runs one settings value through the
// server and through ask and compares what each does.
package main
