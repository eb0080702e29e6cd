// Package parse finds fenced blocks and tool uses in a model's reply.
//
// A reply is parsed incrementally: Parser accepts the reply in chunks of any
// size as it streams from the model (Write, WriteString, then Finish), never
// re-reads text it has already decided on, and reports a fenced block or
// tool use only once no later text can change it. Feeding a reply in one
// piece or in many gives the same result (a fuzz target checks it), and
// what streaming reports is never retracted.
//
// Positions are byte offsets into the reply, the same unit in every format.
//
// # How it stays linear
//
// One scanner walks the reply once, in one of a few modes: between calls,
// inside thinking, inside a fence, inside an xml call, inside an @ call's
// JSON. The first undecided byte only moves forward. Newlines are found
// lazily and remembered in a small window; the fence rules look ahead at
// most 24 lines. Lines that need no rule (a block's content, plain text)
// are skipped in one loop. A step that lacks input returns and resumes
// after the next write where its search stopped. Only the bytes an
// undecided block still needs are kept, in one buffer the parser owns, so
// streaming allocates the calls found, not the reply. A reply given whole
// as a string is not copied.
//
// # The rules (fence.go, think.go, xmlcall.go, atcall.go say each in full)
//
//   - Fences follow gptme: variable-length fences at column 0, nesting by
//     language-tagged fences; `~~~` and indented fences are text. A bare
//     fence of the block's length closes it whatever follows. In a block
//     of 4+ backticks shorter fences are content (CommonMark). Only a
//     Markdown document (a markdown/md block, or a path ending .md) keeps
//     gptme's nested bare blocks. A block the reply ends inside is
//     dropped, and is a Problem when it was a call.
//   - Thinking: <think>/<thinking> at a line start, or a fence tagged
//     thinking> (Gemini), opens a section in which nothing is a call. A
//     reply may begin inside a section whose opening tag it never wrote;
//     until a think tag settles that, streaming holds its calls.
//     Options.TaggedThinking and Options.StartInThinking settle it up front.
//   - markdown: a top-level block whose first tag word is a registered
//     block type is a call; a path-argument tool takes the rest of the tag
//     as one path, spaces kept.
//   - xml: <tool-use> children, and <function_calls><invoke name=…> with
//     <parameter> elements as kwargs; element text is raw up to its own
//     closing tag; CDATA is unwrapped.
//   - tool: @name(id): {json} at a line start, braces counted outside
//     strings, arguments read leniently (lenientjson.go); fenced blocks are
//     calls too, in text order.
//
// Nothing inside a fenced block or a thinking section is a call. What
// looked like a call but could not be read is a Problem, which the agent
// shows the model.
//
// # Deliberate differences from gptme (research/gptme.md §12)
//
//   - Every thinking section is skipped, not only the first; think tags
//     count outside code only, so a </think> in code destroys nothing.
//   - A bare fence followed by text closes a command block (shell,
//     ipython) there; a content block (save, patch, …) takes the reading
//     under which every later fence pairs up, and says so with a Problem
//     when closing and nesting both pair (blockkind.go).
//   - A block that never closes is a Problem, not silently swallowed.
//   - Line endings are kept in contents (gptme turns CRLF into LF): the
//     edit engine needs the original bytes.
//   - A path-argument tool with no path has no arguments (gptme saved to a
//     file named "save"); words are split on runs of whitespace.
//   - Calls are in text order in every format (gptme sorted XML calls by
//     tag name and put markdown calls before @ calls).
//   - XML and @ calls inside a fence, inline code or thinking are not run.
//   - Element text keeps its first line's indentation; single quotes
//     delimit strings when counting braces; an unterminated @ call is a
//     Problem.
//   - Examples render @tool(call_N): {…} with an id, and fences longer than
//     any in their content, so the prompt shows what the parser reads.
package parse
