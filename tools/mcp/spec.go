package mcp

import (
	"cmp"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentls/agentls/internal/text"
	"github.com/agentls/agentls/tools"
)

// toolName is what an MCP tool may be called to be callable here: a
// fenced block's type ends at a space, an xml element's name at most of
// the rest. The MCP spec asks servers for the same characters.
var toolName = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,128}$`)

func validToolName(name string) bool { return toolName.MatchString(name) }

// maxSchemaPrompt bounds the input schema shown in a text format's prompt.
const maxSchemaPrompt = 4 << 10

// specsOf returns a server's tools as specs (without Run), the tools
// they are (in step), and the names of the tools left out because their
// names cannot be written in a call.
func specsOf(server string, list []*sdk.Tool) (specs []*tools.ToolSpec, kept []*sdk.Tool, skipped []string) {
	natives := map[string]bool{}
	for _, t := range list {
		if !validToolName(t.Name) {
			skipped = append(skipped, t.Name)
			continue
		}
		spec := toolSpec(server, t)
		// Two tools whose native names fold together (a.b and a_b) keep
		// apart by a number.
		native := spec.NativeName
		for i := 2; natives[native]; i++ {
			native = nativeName(server, t.Name, fmt.Sprintf("_%d", i))
		}
		natives[native] = true
		spec.NativeName = native
		spec.BlockTypes = []string{spec.Name, native}
		specs = append(specs, spec)
		kept = append(kept, t)
	}
	return specs, kept, skipped
}

// toolSpec makes one MCP tool a spec: its name <server>.<tool>, its
// description, and its input schema as parameters (the native definition)
// and as text (the markdown and xml prompts, whose calls carry the JSON
// arguments as the block's body).
func toolSpec(server string, t *sdk.Tool) *tools.ToolSpec {
	name := server + "." + t.Name
	schema, _ := json.Marshal(t.InputSchema)
	desc := firstLine(cmp.Or(t.Description, t.Title))
	if desc == "" {
		desc = "Tool " + t.Name + " of the MCP server " + server + "."
	}
	var instructions []string
	if rest := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(t.Description), desc)); rest != "" {
		instructions = append(instructions, rest)
	}
	instructions = append(instructions, fmt.Sprintf("From the MCP server %s; each call asks the user unless they allowed it.", server))
	shown := text.Shorten(string(schema), maxSchemaPrompt, "…")
	spec := &tools.ToolSpec{
		Name:         name,
		NativeName:   nativeName(server, t.Name, ""),
		Description:  desc,
		Instructions: strings.Join(instructions, "\n\n"),
		FormatInstructions: map[tools.Format]string{
			tools.FormatMarkdown: fmt.Sprintf("Write its arguments as one JSON object in the block:\n```%s\n{...}\n```\nIts arguments' JSON Schema: %s", name, shown),
			tools.FormatXML:      fmt.Sprintf("Write its arguments as one JSON object in the element: <%s>{...}</%s>, or as the parameters of an <invoke name=%q>. Its arguments' JSON Schema: %s", name, name, name, shown),
		},
		Parameters:   parameters(schema),
		LoadPriority: 100, // after the built-in tools
	}
	if readOnly(t) {
		// Not hint:read-only: that is the server's claim, and the
		// read-only preset must hold only what agentls knows changes
		// nothing.
		spec.Hints = []string{"mcp-read-only"}
	}
	return spec
}

// nativeName is the name of <server>.<tool> in native tool calls: the
// characters the APIs take and the @name(id) text form reads (letters,
// digits, '_'), at most 64 of them, suffix kept.
func nativeName(server, tool, suffix string) string {
	clean := func(s string) string {
		return strings.Map(func(r rune) rune {
			if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' {
				return r
			}
			return '_'
		}, s)
	}
	n := clean(server) + "__" + clean(tool)
	if len(n)+len(suffix) > 64 {
		n = n[:64-len(suffix)]
	}
	return n + suffix
}

// parameters are an input schema's properties, the required ones first
// (in the schema's order), then the others by name; each keeps its whole
// schema.
func parameters(schema []byte) []tools.Parameter {
	var s struct {
		Properties map[string]json.RawMessage `json:"properties"`
		Required   []string                   `json:"required"`
	}
	if json.Unmarshal(schema, &s) != nil {
		return nil
	}
	var out []tools.Parameter
	for _, name := range s.Required {
		if p, ok := s.Properties[name]; ok && !slices.ContainsFunc(out, func(q tools.Parameter) bool { return q.Name == name }) {
			out = append(out, tools.Parameter{Name: name, Required: true, Schema: p, Type: schemaType(p)})
		}
	}
	var rest []string
	for name := range s.Properties {
		if !slices.Contains(s.Required, name) {
			rest = append(rest, name)
		}
	}
	slices.Sort(rest)
	for _, name := range rest {
		p := s.Properties[name]
		out = append(out, tools.Parameter{Name: name, Schema: p, Type: schemaType(p)})
	}
	return out
}

// schemaType is a property's JSON type ("" when it has none or several).
func schemaType(p json.RawMessage) string {
	var s struct {
		Type any `json:"type"`
	}
	json.Unmarshal(p, &s)
	t, _ := s.Type.(string)
	return t
}

func readOnly(t *sdk.Tool) bool { return t.Annotations != nil && t.Annotations.ReadOnlyHint }

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = strings.TrimSpace(s[:i])
	}
	return s
}

// commandLine shows a stdio server's command, never its environment.
func commandLine(c ServerConfig) string {
	return strings.Join(append([]string{c.Command}, c.Args...), " ")
}
