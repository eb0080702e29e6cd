package tools

import "os/exec"

// Helpers for the packages that declare tools: the steps of an Example,
// and the parameters and checks that recur.

// ExampleUser is a user's message in an example.
func ExampleUser(text string) ExampleStep { return ExampleStep{Role: RoleUser, Text: text} }

// ExampleAssistant is the assistant's text and, if call is set, its call.
func ExampleAssistant(text string, call *ToolUse) ExampleStep {
	return ExampleStep{Role: RoleAssistant, Text: text, Call: call}
}

// ExampleSystem is what a call returned, in an example.
func ExampleSystem(text string) ExampleStep { return ExampleStep{Role: RoleSystem, Text: text} }

// ExampleCall is a call of tool with a body and positional arguments.
func ExampleCall(tool, content string, args ...string) *ToolUse {
	if args == nil {
		args = []string{}
	}
	return &ToolUse{Tool: tool, Args: args, Content: content}
}

// PathParam is a required path parameter: "The <what>, relative to the
// workspace root."
func PathParam(what string) Parameter {
	return Parameter{Name: "path", Type: "string", Required: true,
		Description: "The " + what + ", relative to the workspace root."}
}

// OnPath is an Available that reports whether program is on PATH.
func OnPath(program string) func() bool {
	return func() bool {
		_, err := exec.LookPath(program)
		return err == nil
	}
}
