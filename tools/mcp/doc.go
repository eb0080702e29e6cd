// Package mcp makes the tools of the user's MCP servers (Model Context
// Protocol, through the official Go SDK) tools of an agent turn.
//
// The user names servers in the mcpServers setting: a command run over
// stdio, or a streamable HTTP URL. A Manager starts each server when the
// first turn offers its tools (SelectTurn), lists its tools, restarts it
// after a crash with a backoff, reports its state (Status), and kills
// every server it started, with whatever they started, when it is closed:
// stdio servers run under procs/proc, in a session of their own that the
// guard's watchdog kills should agentls die first.
//
// Each MCP tool becomes a tools.ToolSpec named <server>.<tool>, with the
// server's description and input schema, callable in the three formats:
// a fenced block typed <server>.<tool> whose body is the JSON arguments,
// an xml element or invoke of that name, or a native call by its
// sanitized name (<server>__<tool>, NativeName). Calling one is an action
// with effects (DESIGN §8a): it asks the user through the turn's
// approval.Confirmer, as a command does, unless the toolAllowlist setting
// matches it, or the server annotates it read-only and the user listed
// the server in mcpReadOnly. A server's annotations are its own claim,
// so they never make a tool read-only for the tools allowlist's
// read-only preset (hint:read-only).
//
// Files: config.go (the settings' shapes and checks), manager.go (servers'
// lifecycle), stdio.go (a stdio server's process), spec.go (tools as
// specs, names), call.go (a call: approval, timeout, result), turn.go
// (which servers a turn offers), progresstap.go (a call's progress
// notifications counted on their way in, so its result waits until they
// were shown: the SDK could deliver the result first).
//
// A server whose session ends by itself is marked failed and restarted by
// the next call after a backoff (1 s doubling to 30 s). A server's tools
// are replaced whole when it sends tools/list_changed. A result is text
// only, clipped to MaxResultBytes; images go through vision.Send. The
// language server holds one Manager for its life; agentls ask makes one
// per turn, and agentls tools and agentls mcp list one per listing.
package mcp
