package tools

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

// ToolRef tells the parser which tool a fenced block's type belongs to.
type ToolRef struct {
	Name string
	// PathArg means the rest of the language tag is one path, spaces
	// included (```save my file.txt → Args ["my file.txt"]).
	PathArg bool
}
