// Package tools holds what agentls knows about a tool: its ToolSpec, the
// Registry and allowlist, and the rendering of calls and instructions into
// a system prompt for each tool format. Finding tool uses in a reply is
// tools/parse; asking the user before a tool acts is tools/approval.
package tools
