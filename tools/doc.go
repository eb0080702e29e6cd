// Package tools holds what agentls knows about a tool: its ToolSpec, the
// Registry and allowlist, and the rendering of calls and instructions into
// a system prompt for each tool format. Finding tool uses in a reply is
// tools/parse; asking the user before a tool acts is tools/approval.
//
// # Specs and registry
//
// A ToolSpec is one tool: its name, block types, instructions and
// examples (written once, rendered per format), parameters (with JSON
// Schema for native calls), hints for the allowlist, availability,
// whether it is disabled by default, and Run. NamedArgs gives a call's
// arguments by parameter name whatever format it came in, so a tool reads
// its arguments one way. The built-in tools' names are constants
// (NameShell, NamePatch, …).
//
// # A tool's one home
//
// A Tool is a spec and its Bind, declared in the package that runs it
// (edittool, shelltool, vision, browser, screenshot, computer, morph,
// rag), as a staticcheck Analyzer carries its Run; tools/builtin lists
// them. Bind takes an Env, everything a tool may reach in one turn, said
// once: the Workspace (the one contract every front-end implements:
// Root, Read, Propose, Confirm, PrivateDirs, Output) and the parts a
// front-end may lack, nil then — Buffers (an editor's open buffers, for
// rag), Hashes (their line hashes, for the anchored tools), Progress, and
// what the turn's tools share: ViewImage, Writes (TurnWrites) and Hosts.
// No tool finds a capability by asserting on the workspace's type or by
// a value in a context, except two things that belong to one call, not
// the turn, and so travel with the call: its outcome (ReportOutcome) and
// its images (AttachImage).
//
// Registry.Select applies an allowlist: exact names or block types,
// globs, hint:TAG, or the read-only preset; an entry matching nothing is
// an error, so a typo never silently disables a tool. RenderPrompt renders
// the tools section of a system prompt; golden files in
// tools/builtin/testdata keep it under review.
//
// Run is set where what runs the tool exists: Registry.BindTools returns
// a registry whose specs are copies with their run functions (binding in
// place would let one turn's calls run in another's workspace). A spec
// with no Run is parsed and described, and a call of it is refused with a
// message to the model (Runnable); agentls tools offers only runnable
// tools.
//
// # What a call returns
//
// A RunFunc's text is what the model reads; an error is a failure the
// model reads, never the end of the turn, and the output returned with it
// is kept. A Failure says what the call left behind (Unchanged,
// PartlyChanged, ChangedOf), so the model is never told "nothing changed"
// when a script's first commands ran or an editor applied part of an
// edit. ReportOutcome adds a short outcome ("exit 1") to the call's log
// line; AttachImage sends an image with the call's result (ErrNoImages
// outside a turn).
package tools
