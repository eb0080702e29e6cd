package tools

import "fmt"

// Format is the way a model writes tool calls in its reply.
type Format string

const (
	// FormatMarkdown: fenced code blocks whose language tag names the tool,
	// e.g. ```save path/to/file.go.
	FormatMarkdown Format = "markdown"
	// FormatXML: <tool-use><save path="a.go">…</save></tool-use>, or
	// <function_calls><invoke name="save"><parameter name="path">…</parameter></invoke></function_calls>.
	FormatXML Format = "xml"
	// FormatTool: native tool calls, written into the text as
	// @name(call_id): {json}; fenced blocks are recognised too.
	FormatTool Format = "tool"
)

// AllFormats lists every format, in the order they are documented.
func AllFormats() []Format { return []Format{FormatMarkdown, FormatXML, FormatTool} }

// ParseFormat returns the Format named s.
func ParseFormat(s string) (Format, error) {
	for _, f := range AllFormats() {
		if string(f) == s {
			return f, nil
		}
	}
	return "", fmt.Errorf("unknown tool format %q (want markdown, xml or tool)", s)
}
