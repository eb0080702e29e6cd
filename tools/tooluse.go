package tools

// A Block is a fenced code block found at the top level of a reply (blocks
// nested inside it are part of its content).
type Block struct {
	// Lang is the text after the opening fence, trimmed: "patch a.go".
	Lang string
	// Content is the block's lines exactly as in the reply, line endings
	// included, without the line ending of the last line.
	Content string
	// Start and End are the byte offsets of the opening fence and of the end
	// of the closing fence (before its line ending).
	Start, End int
	// ContentStart and ContentEnd delimit Content in the reply.
	ContentStart, ContentEnd int
	// Fence is the number of backticks of the opening fence.
	Fence int
}

// A ToolUse is one call of a tool found in a reply.
type ToolUse struct {
	// Tool is the tool's name as resolved from the reply: a block type maps
	// to its tool (```py → ipython); xml and @ calls keep the name written.
	Tool string
	// Args are the positional arguments: the words of a fenced block's
	// language tag after the block type (one path, spaces kept, for tools
	// whose argument is a path), or xml attribute values. Nil for @ calls.
	Args []string
	// Kwargs are named arguments: the JSON object of an @ call, or the
	// <parameter name=…> elements of an xml <invoke>.
	Kwargs map[string]any
	// Content is the body: a block's content, an xml element's text.
	Content string
	// CallID is the id of a native tool call (@name(id): …), if any.
	CallID string
	// Start and End are the byte offsets of the call in the reply.
	Start, End int
	// Format is the syntax the call was written in.
	Format Format
}

// A Problem is something in a reply that looked like a tool call but could
// not be read as one; the agent reports it to the model so it can retry.
type Problem struct {
	Start   int
	Message string
}

// ToolRef tells the parser which tool a fenced block's type belongs to.
type ToolRef struct {
	Name string
	// PathArg means the rest of the language tag is one path, spaces
	// included (```save my file.txt → Args ["my file.txt"]).
	PathArg bool
}
