package agent

import (
	"fmt"
	"slices"
	"strings"

	openai "github.com/sashabaranov/go-openai"

	"github.com/agentls/agentls/internal/text"
	"github.com/agentls/agentls/tools"
)

// A Request is what the user asked, with what the editor knows around it.
type Request struct {
	// Prompt is the user's words: typed, or an AI! comment's instruction.
	Prompt string
	// Root is the workspace folder; OpenFiles are the files open in the
	// editor, relative to Root.
	Root      string
	OpenFiles []string
	// Selection, if any, is the code the request is about.
	Selection *Selection
	// Diagnostics are the problems the editor shows in the selection (or
	// the one the user asked to fix).
	Diagnostics []Diagnostic
	// History is the conversation the request continues (a chat
	// document's earlier exchanges), oldest first.
	History []ChatMessage
	// Files are the files the request names (the selection's, those in
	// the prompt) as the read tool shows them, in the message from the
	// first step. Turn.Run fills them when nil (context.go).
	Files []FileText
	// Likely are the files a compact turn whose request names none shows
	// the model from the first step, in the same form as Files: the top
	// folder's files when they are few and small, else those that share
	// words with the request (context.go). Turn.Run fills them.
	Likely []FileText
	// Listing is the workspace's top folder as the read tool lists it,
	// for a compact turn (context.go): a small model then reads a real
	// file instead of inventing a path, and finds the file a request
	// points at without naming it ("the link … points to a file that
	// does not exist"). Turn.Run fills it.
	Listing string
	// Rules are the project's rules as a prompt section (Rules.Prompt),
	// sent at the end of the system prompt.
	Rules string
	// Attached is what the prompt's mentions added (ExpandMentions),
	// sent right after the prompt.
	Attached string
	// Images are the images the user attached to the prompt (an ACP
	// client's image blocks, checked and fitted by the front-end), sent
	// with the user's message.
	Images []tools.Image
}

// shownFiles are the files the request's message shows whole or cut:
// those it names, then the likely ones.
func (r Request) shownFiles() []FileText { return slices.Concat(r.Files, r.Likely) }

// A ChatMessage is one earlier message of a conversation.
type ChatMessage struct {
	// Role is "user" or "assistant".
	Role    string
	Content string
}

// A Selection is a span of a file the user pointed at.
type Selection struct {
	Path               string // relative to the root
	StartLine, EndLine int    // 1-based, inclusive
	Language           string
	Text               string
}

// A Diagnostic is a problem the editor shows.
type Diagnostic struct {
	Path     string
	Line     int // 1-based
	Severity string
	Source   string
	Message  string
}

// systemIntro is the fixed part of the system prompt: what the assistant
// is and how it works here. The rules are the ones the engine enforces or
// depends on, so a model that follows them has its edits land.
const systemIntro = `You are a coding agent working inside the user's editor through agentls.
You read and change the user's code with the tools below; the user sees every edit in the editor and can undo it.

How to work:
- Read before you edit: use the read tool on the files you will change, unless their current text is in this conversation. Edits are checked against the editor's live buffers, including unsaved changes.
- Make the smallest edits that do the job. In a patch, copy the ORIGINAL lines exactly as they are in the file, with enough context to be unique.
- All the edits of one message are applied together or not at all; if one does not match, none is applied and you are told why. Fix that edit and send it again.
- Keep to the user's request. When it is done, say in one or two sentences what you changed.
`

// SystemPrompt returns the system message: who the assistant is, the
// workspace, and the tools in format (for the tool format, the tools'
// instructions; their schemas go as native tools, see NativeTools).
func SystemPrompt(reg *tools.Registry, format tools.Format, req Request) string {
	var b strings.Builder
	b.WriteString(systemIntro)
	b.WriteString("\n# Workspace\n\n")
	fmt.Fprintf(&b, "Root: %s\n", req.Root)
	if len(req.OpenFiles) > 0 {
		fmt.Fprintf(&b, "Open in the editor: %s\n", strings.Join(req.OpenFiles, ", "))
	}
	b.WriteString("Paths in tool calls are relative to the root.\n\n")
	b.WriteString(tools.RenderPrompt(reg, format))
	b.WriteString(rulesSection(req))
	return b.String()
}

// rulesSection is the project's rules at the end of a system prompt, ""
// when there are none.
func rulesSection(req Request) string {
	if req.Rules == "" {
		return ""
	}
	return "\n\n" + strings.TrimSpace(req.Rules) + "\n"
}

// UserMessage returns the user's message: the prompt, then the selection
// with its file and line numbers, then the diagnostics.
func UserMessage(req Request) string {
	var b strings.Builder
	b.WriteString(strings.TrimSpace(req.Prompt))
	b.WriteString("\n")
	if req.Attached != "" {
		b.WriteString(req.Attached)
	}
	if s := req.Selection; s != nil {
		fmt.Fprintf(&b, "\nSelected in %s, lines %d-%d:\n", s.Path, s.StartLine, s.EndLine)
		fence := text.Fence(s.Text)
		fmt.Fprintf(&b, "%s%s\n", fence, s.Language)
		b.WriteString(s.Text)
		if !strings.HasSuffix(s.Text, "\n") {
			b.WriteString("\n")
		}
		b.WriteString(fence + "\n")
	}
	if len(req.Files) > 0 {
		b.WriteString("\nThe current content of the files named here, as read shows it (the line numbers are not part of the files):\n")
		for _, f := range req.Files {
			b.WriteString(f.Text)
			if !strings.HasSuffix(f.Text, "\n") {
				b.WriteString("\n")
			}
		}
	}
	if len(req.Diagnostics) > 0 {
		b.WriteString("\nProblems the editor shows:\n")
		for _, d := range req.Diagnostics {
			src := ""
			if d.Source != "" {
				src = " (" + d.Source + ")"
			}
			fmt.Fprintf(&b, "- %s:%d: %s%s: %s\n", d.Path, d.Line, d.Severity, src, d.Message)
		}
	}
	return b.String()
}

// Messages returns the opening messages of a turn.
func Messages(reg *tools.Registry, format tools.Format, req Request) []openai.ChatCompletionMessage {
	return messagesWith(SystemPrompt(reg, format, req), req)
}

// messagesWith returns the opening messages of a turn under the system
// prompt system.
func messagesWith(system string, req Request) []openai.ChatCompletionMessage {
	msgs := []openai.ChatCompletionMessage{{Role: openai.ChatMessageRoleSystem, Content: system}}
	for _, m := range req.History {
		role := openai.ChatMessageRoleUser
		if m.Role == "assistant" {
			role = openai.ChatMessageRoleAssistant
		}
		msgs = append(msgs, openai.ChatCompletionMessage{Role: role, Content: m.Content})
	}
	return append(msgs, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser, Content: UserMessage(req)})
}

// NativeTools returns the tools as native tool definitions, for the tool
// format; other formats call tools in text and send none.
func NativeTools(reg *tools.Registry, format tools.Format) []openai.Tool {
	if format != tools.FormatTool {
		return nil
	}
	var out []openai.Tool
	for _, s := range reg.All() {
		fs := s.Schema()
		out = append(out, openai.Tool{Type: openai.ToolTypeFunction, Function: &openai.FunctionDefinition{
			Name: fs.Name, Description: fs.Description, Parameters: fs.Parameters,
		}})
	}
	return out
}
