// Package tools holds what agentls knows about tools: the ToolSpec registry
// and allowlist, the rendering of tool instructions into a system prompt, and
// the parser that finds tool uses in a model's reply.
//
// A reply is parsed incrementally: Parser accepts the reply in chunks of any
// size as it streams from the model, never re-reads text it has already
// decided on, and reports a fenced block or tool use only once no later text
// can change it. Feeding a reply in one piece or in many gives the same
// result; the total cost is linear in the reply's length.
//
// The parsing rules follow gptme's (see DESIGN.md and research/gptme.md
// §1–2) with its known bugs fixed; docs/ARCHITECTURE.md lists each deliberate
// difference.
//
// Positions are byte offsets into the reply, the same unit in every format.
package tools
