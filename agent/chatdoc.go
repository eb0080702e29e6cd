package agent

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// A chat document is a Markdown file that is the conversation: the user
// writes under "## You", the agent's replies stream in under "## Agent".
// Sending it again gives the model every earlier exchange in it, so a
// chat resumes from its file in any editor.
const (
	ChatYouHeading   = "## You"
	ChatAgentHeading = "## Agent"
)

// ChatTurnMarker is the line that ends the agent's reply of a turn in a
// chat document: an HTML comment (hidden in rendered Markdown) naming the
// turn, so undoing the turn can find its exchange. An undone turn's
// exchange — the message that started it and the reply — stays in the
// document but is left out of the conversation the model is given.
func ChatTurnMarker(turn int, undone bool) string {
	if undone {
		return fmt.Sprintf("<!-- agent turn %d: undone, so this exchange is left out of the conversation; agentls.turn.redo {\"turn\": %d} brings it back -->", turn, turn)
	}
	return fmt.Sprintf("<!-- agent turn %d -->", turn)
}

var chatTurnMarkerRE = regexp.MustCompile(`^<!-- agent turn ([0-9]+)(: undone[^>]*)? -->$`)

// ParseChatTurnMarker reads a ChatTurnMarker line.
func ParseChatTurnMarker(line string) (turn int, undone, ok bool) {
	m := chatTurnMarkerRE.FindStringSubmatch(strings.TrimSpace(line))
	if m == nil {
		return 0, false, false
	}
	turn, err := strconv.Atoi(m[1])
	return turn, m[2] != "", err == nil
}

// ParseChat reads a chat document: the earlier exchanges as history, and
// the text under the last "## You" heading as the new message. Headings
// inside fenced code are text.
func ParseChat(text string) (history []ChatMessage, prompt string) {
	type section struct {
		role   string
		body   strings.Builder
		undone bool // the reply of an undone turn
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
		if fence == "" && cur != nil {
			if _, undone, ok := ParseChatTurnMarker(bare); ok {
				cur.undone = cur.undone || undone && cur.role == "assistant"
				continue // agentls's note, not the conversation
			}
		}
		if cur != nil {
			cur.body.WriteString(line)
		}
	}
	if len(sections) == 0 || sections[len(sections)-1].role != "user" {
		return nil, ""
	}
	earlier := sections[:len(sections)-1]
	for i, sec := range earlier {
		// An undone turn is left out: its reply, and the message that
		// started it.
		if sec.undone || sec.role == "user" && i+1 < len(earlier) && earlier[i+1].undone {
			continue
		}
		if body := strings.TrimSpace(sec.body.String()); body != "" {
			history = append(history, ChatMessage{Role: sec.role, Content: body})
		}
	}
	return history, strings.TrimSpace(sections[len(sections)-1].body.String())
}
