package agent

import "strings"

// A chat document is a Markdown file that is the conversation: the user
// writes under "## You", the agent's replies stream in under "## Agent".
// Sending it again gives the model every earlier exchange in it, so a
// chat resumes from its file in any editor.
const (
	ChatYouHeading   = "## You"
	ChatAgentHeading = "## Agent"
)

// ParseChat reads a chat document: the earlier exchanges as history, and
// the text under the last "## You" heading as the new message. Headings
// inside fenced code are text.
func ParseChat(text string) (history []ChatMessage, prompt string) {
	type section struct {
		role string
		body strings.Builder
	}
	var sections []*section
	var cur *section
	fence := ""
	for _, line := range strings.SplitAfter(text, "\n") {
		bare := strings.TrimRight(line, "\r\n")
		if fence == "" && strings.HasPrefix(bare, "```") {
			fence = bare[:len(bare)-len(strings.TrimLeft(bare, "`"))]
		} else if fence != "" && strings.HasPrefix(bare, fence) && strings.TrimLeft(bare, "`") == "" {
			fence = ""
		}
		if fence == "" {
			switch strings.TrimSpace(bare) {
			case ChatYouHeading:
				cur = &section{role: "user"}
				sections = append(sections, cur)
				continue
			case ChatAgentHeading:
				cur = &section{role: "assistant"}
				sections = append(sections, cur)
				continue
			}
		}
		if cur != nil {
			cur.body.WriteString(line)
		}
	}
	if len(sections) == 0 || sections[len(sections)-1].role != "user" {
		return nil, ""
	}
	for _, sec := range sections[:len(sections)-1] {
		if body := strings.TrimSpace(sec.body.String()); body != "" {
			history = append(history, ChatMessage{Role: sec.role, Content: body})
		}
	}
	return history, strings.TrimSpace(sections[len(sections)-1].body.String())
}
