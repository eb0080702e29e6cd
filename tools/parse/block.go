package parse

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

// A Problem is something in a reply that looked like a tool call but could
// not be read as one; the agent reports it to the model so it can retry.
type Problem struct {
	Start   int
	Message string
}
