package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
)

// A ToolSpec describes one tool: how the model calls it (block types,
// parameters), what the model is told about it (description, instructions,
// examples), when it is offered (availability, allowlist defaults) and what
// it does (Run).
type ToolSpec struct {
	// Name is what the model calls the tool by in the xml and tool formats,
	// and in the allowlist.
	Name string
	// NativeName, when set, is the name in native tool definitions, for a
	// Name the model APIs refuse (they take ^[a-zA-Z0-9_-]{1,64}$; an MCP
	// tool's is <server>.<tool>). It must also be one of BlockTypes, which
	// is how a native call by it is looked up.
	NativeName string
	// BlockTypes are the fenced-block types that call the tool in markdown
	// (```save path). The first is the one shown to the model.
	BlockTypes []string
	// PathArg means a block's language tag after its type is one path,
	// spaces included.
	PathArg bool
	// Description is one line: what the tool is for.
	Description string
	// Instructions tell the model how to use the tool, in any format;
	// FormatInstructions add what only one format needs.
	Instructions       string
	FormatInstructions map[Format]string
	// Examples are rendered into the prompt in the configured format.
	Examples []Example
	// Parameters are the tool's named arguments, in positional order: a
	// call's Args fill them in order, and its Content fills the next one if
	// that one is required.
	Parameters []Parameter
	// Hints tag the tool for the allowlist (hint:read-only).
	Hints []string
	// Available reports whether the tool can run here (a program it needs
	// is installed); nil means always.
	Available func() bool
	// Requires says what Available checks, for the user ("python3 on
	// PATH"): agentls tools --all names it for a tool that is hidden.
	Requires string
	// DisabledByDefault tools load only when the allowlist names them.
	DisabledByDefault bool
	// LoadPriority orders tools in the prompt, lowest first; ties by name.
	LoadPriority int
	// Run executes a call. It is set where what the tool needs exists
	// (Registry.BindTools: each Tool's Bind in a turn's Env), so a spec
	// declared alone has none: it is parsed, and a call of it is refused
	// with a message to the model.
	Run RunFunc
}

// A RunFunc executes one tool use and returns what the model reads.
// An error is reported to the model as the tool's failure; it never ends the
// turn.
type RunFunc func(ctx context.Context, use ToolUse) (string, error)

// A Parameter is one named argument of a tool.
type Parameter struct {
	Name string
	// Type is a JSON Schema type: string, integer, number, boolean, array
	// or object.
	Type        string
	Description string
	Required    bool
	// Schema, when set, is the parameter's full JSON Schema (for arrays and
	// objects), used instead of Type and Description.
	Schema json.RawMessage
}

// An Example shows the model a short exchange using the tool.
type Example struct {
	Title string
	Steps []ExampleStep
}

// An ExampleStep is one message of an example: text from the user, the
// assistant or the system, or an assistant's tool call.
type ExampleStep struct {
	Role Role
	Text string
	// Call, on an assistant step, is rendered after Text in the prompt's
	// format. Its Tool is the spec's name.
	Call *ToolUse
}

// Role is who speaks in an example step.
type Role string

const (
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleSystem    Role = "system"
)

// Runnable reports whether the tool has a run function: whether a call of
// it can do anything here.
func (s *ToolSpec) Runnable() bool { return s.Run != nil }

// IsAvailable reports whether the tool can run here.
func (s *ToolSpec) IsAvailable() bool { return s.Available == nil || s.Available() }

// HasHint reports whether the tool carries the hint tag.
func (s *ToolSpec) HasHint(hint string) bool { return slices.Contains(s.Hints, hint) }

// blockType is the block type shown to the model.
func (s *ToolSpec) blockType() string {
	if len(s.BlockTypes) > 0 {
		return s.BlockTypes[0]
	}
	return s.Name
}

// NamedArgs returns a call's arguments by parameter name, whatever the
// format it was written in: Args fill the parameters in order, Content
// fills the next parameter if that one is required, and Kwargs are taken as
// they are. Tools read their arguments through it.
func (s *ToolSpec) NamedArgs(use ToolUse) map[string]any {
	named := map[string]any{}
	i := 0
	for _, a := range use.Args {
		if i >= len(s.Parameters) {
			break
		}
		named[s.Parameters[i].Name] = a
		i++
	}
	if use.Content != "" && i < len(s.Parameters) && s.Parameters[i].Required {
		named[s.Parameters[i].Name] = use.Content
	}
	for k, v := range use.Kwargs {
		named[k] = v
	}
	return named
}

func (s *ToolSpec) validate() error {
	if s.Name == "" {
		return fmt.Errorf("a tool has no name")
	}
	if s.Description == "" {
		return fmt.Errorf("tool %s has no description", s.Name)
	}
	seen := map[string]bool{}
	for _, p := range s.Parameters {
		if p.Name == "" || seen[p.Name] {
			return fmt.Errorf("tool %s: parameter names must be unique and non-empty (%q)", s.Name, p.Name)
		}
		seen[p.Name] = true
		if p.Schema != nil && !json.Valid(p.Schema) {
			return fmt.Errorf("tool %s: parameter %s: schema is not valid JSON", s.Name, p.Name)
		}
	}
	for _, ex := range s.Examples {
		for _, st := range ex.Steps {
			if st.Call != nil && st.Call.Tool == "" {
				return fmt.Errorf("tool %s: example %q has a call without a tool", s.Name, ex.Title)
			}
		}
	}
	return nil
}
