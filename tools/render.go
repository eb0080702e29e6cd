package tools

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"html"
	"strings"

	"github.com/agentls/agentls/internal/text"
)

// RenderCall writes a tool use as the model should write it in format, so
// that parsing the text gives the call back. callID is used by the tool
// format when the use has none.
func (s *ToolSpec) RenderCall(use ToolUse, format Format, callID string) string {
	switch format {
	case FormatXML:
		return s.renderXML(use)
	case FormatTool:
		if use.CallID != "" {
			callID = use.CallID
		}
		args, _ := json.Marshal(s.NamedArgs(use)) // maps of JSON values always marshal
		return fmt.Sprintf("@%s(%s): %s", s.Name, callID, args)
	default:
		return s.renderMarkdown(use)
	}
}

// renderMarkdown writes a fenced block, with a fence longer than any run of
// backticks in the content (gptme always writes three, which a block
// holding a fenced example ends early).
func (s *ToolSpec) renderMarkdown(use ToolUse) string {
	fence := text.Fence(use.Content)
	header := s.blockType()
	if len(use.Args) > 0 {
		header += " " + strings.Join(use.Args, " ")
	}
	return fence + header + "\n" + use.Content + "\n" + fence
}

// renderXML writes gptme's <tool-use> form, positional arguments as
// attributes named after the parameters, or, for a call with named
// arguments, the <function_calls> form.
func (s *ToolSpec) renderXML(use ToolUse) string {
	var b strings.Builder
	if len(use.Kwargs) > 0 {
		b.WriteString("<function_calls>\n<invoke name=\"" + html.EscapeString(s.Name) + "\">\n")
		named := s.NamedArgs(use)
		for _, p := range s.Parameters {
			v, ok := named[p.Name]
			if !ok {
				continue
			}
			text, isString := v.(string)
			if !isString {
				raw, _ := json.Marshal(v)
				text = string(raw)
			}
			fmt.Fprintf(&b, "<parameter name=\"%s\">%s</parameter>\n", p.Name, text)
		}
		b.WriteString("</invoke>\n</function_calls>")
		return b.String()
	}
	b.WriteString("<tool-use>\n<" + s.Name)
	for i, a := range use.Args {
		name := "args"
		if i < len(s.Parameters) {
			name = s.Parameters[i].Name
		}
		fmt.Fprintf(&b, " %s=\"%s\"", name, html.EscapeString(a))
	}
	b.WriteString(">\n" + use.Content + "\n</" + s.Name + ">\n</tool-use>")
	return b.String()
}

// FunctionSchema is a tool's definition for native tool calling, as the
// OpenAI chat API takes it in "tools": [{"type": "function", "function": …}].
type FunctionSchema struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
}

// Schema returns the tool's native tool-call definition.
func (s *ToolSpec) Schema() FunctionSchema {
	var props bytes.Buffer
	props.WriteString("{")
	required := []string{}
	for i, p := range s.Parameters {
		if i > 0 {
			props.WriteString(",")
		}
		name, _ := json.Marshal(p.Name)
		props.Write(name)
		props.WriteString(":")
		if p.Schema != nil {
			props.Write(p.Schema)
		} else {
			prop, _ := json.Marshal(struct {
				Type        string `json:"type"`
				Description string `json:"description,omitempty"`
			}{p.Type, p.Description})
			props.Write(prop)
		}
		if p.Required {
			required = append(required, p.Name)
		}
	}
	props.WriteString("}")
	params, _ := json.Marshal(struct {
		Type       string          `json:"type"`
		Properties json.RawMessage `json:"properties"`
		Required   []string        `json:"required"`
	}{"object", props.Bytes(), required})
	desc := s.Description
	if s.Instructions != "" {
		desc += "\n\n" + s.Instructions
	}
	return FunctionSchema{Name: cmp.Or(s.NativeName, s.Name), Description: desc, Parameters: params}
}

// formatIntro tells the model how to call tools in each format.
func formatIntro(format Format) string {
	switch format {
	case FormatXML:
		return "Call a tool by writing a <tool-use> element: each child element is one call, named after the tool, " +
			"with its arguments as attributes and its input as the element's text. Write code as it is; do not escape it. " +
			"Calls inside code blocks or thinking are not run."
	case FormatTool:
		return "Call tools with the native tool-calling interface; each call's arguments are a JSON object. " +
			"Calls written as text are shown as @name(call_id): {arguments}."
	default:
		return "Call a tool by writing a fenced code block whose language tag is the tool's block type, " +
			"followed by its arguments: ```save path/to/file. The block's content is the tool's input. " +
			"A block is run when its closing fence is followed by a blank line or the end of the message. " +
			"Blocks inside thinking are not run; other code blocks (```go, ```bash) are just text."
	}
}

// RenderPrompt renders the tools section of a system prompt in format: how
// to call tools, then the description, instructions and examples of each
// tool in reg, in load order.
func RenderPrompt(reg *Registry, format Format) string {
	specs := reg.All()
	var b strings.Builder
	b.WriteString("# Tools\n\n")
	b.WriteString(formatIntro(format))
	b.WriteString("\n")
	for _, s := range specs {
		b.WriteString("\n## " + s.Name + "\n\n")
		b.WriteString(s.Description + "\n")
		if format == FormatMarkdown && len(s.BlockTypes) > 0 {
			b.WriteString("\nBlock types: " + strings.Join(s.BlockTypes, ", ") + "\n")
		}
		if s.Instructions != "" {
			b.WriteString("\n" + strings.TrimSpace(s.Instructions) + "\n")
		}
		if extra := s.FormatInstructions[format]; extra != "" {
			b.WriteString("\n" + strings.TrimSpace(extra) + "\n")
		}
		if len(s.Examples) > 0 {
			b.WriteString("\n### Examples\n")
			calls := 0
			for _, ex := range s.Examples {
				b.WriteString("\n")
				if ex.Title != "" {
					b.WriteString("#### " + ex.Title + "\n\n")
				}
				for _, st := range ex.Steps {
					b.WriteString(renderStep(reg, s, st, format, &calls))
				}
			}
		}
	}
	return b.String()
}

func renderStep(reg *Registry, s *ToolSpec, st ExampleStep, format Format, calls *int) string {
	var b strings.Builder
	label := map[Role]string{RoleUser: "User", RoleAssistant: "Assistant", RoleSystem: "System"}[st.Role]
	b.WriteString("> " + label + ":")
	if st.Text != "" {
		if strings.Contains(st.Text, "\n") {
			b.WriteString("\n" + st.Text)
		} else {
			b.WriteString(" " + st.Text)
		}
	}
	b.WriteString("\n")
	if st.Call != nil {
		*calls++
		spec := s
		if st.Call.Tool != s.Name {
			// An example may call another tool, which may not be enabled:
			// render the call with its name as the block type then.
			var ok bool
			if spec, ok = reg.Get(st.Call.Tool); !ok {
				spec = &ToolSpec{Name: st.Call.Tool}
			}
		}
		b.WriteString(spec.RenderCall(*st.Call, format, fmt.Sprintf("call_%d", *calls)) + "\n")
	}
	b.WriteString("\n")
	return b.String()
}
