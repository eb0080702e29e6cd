package agent

import (
	"reflect"
	"testing"
)

func TestParseChat(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		history    []ChatMessage
		prompt     string
	}{
		{"first message", "# Chat\n\n## You\n\nrename Config\n", nil, "rename Config"},
		{"a conversation", "## You\n\nrename Config\n\n## Agent\n\nDone.\n\n## You\n\nnow Load\n",
			[]ChatMessage{{Role: "user", Content: "rename Config"}, {Role: "assistant", Content: "Done."}}, "now Load"},
		{"headings in code are text", "## You\n\nwhat is this?\n```md\n## Agent\n```\n",
			nil, "what is this?\n```md\n## Agent\n```"},
		{"the agent spoke last: nothing to send", "## You\n\nhi\n\n## Agent\n\nhello\n", nil, ""},
		{"CRLF", "## You\r\n\r\nhi\r\n", nil, "hi"},
		{"no headings", "just text\n", nil, ""},
		{"turn markers are not the conversation", "## You\n\nrename Config\n\n## Agent\n\nDone.\n<!-- agent turn 3 -->\n\n## You\n\nnow Load\n",
			[]ChatMessage{{Role: "user", Content: "rename Config"}, {Role: "assistant", Content: "Done."}}, "now Load"},
		{"an undone turn is left out", "## You\n\nrename Config\n\n## Agent\n\nDone.\n" + ChatTurnMarker(3, true) + "\n\n## You\n\nrename Load\n\n## Agent\n\nOK.\n" + ChatTurnMarker(4, false) + "\n\n## You\n\nthanks\n",
			[]ChatMessage{{Role: "user", Content: "rename Load"}, {Role: "assistant", Content: "OK."}}, "thanks"},
		{"a marker in code is text", "## You\n\nsee\n```\n" + ChatTurnMarker(3, true) + "\n```\n",
			nil, "see\n```\n" + ChatTurnMarker(3, true) + "\n```"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			history, prompt := ParseChat(tc.text)
			if !reflect.DeepEqual(history, tc.history) || prompt != tc.prompt {
				t.Errorf("ParseChat = %+v, %q; want %+v, %q", history, prompt, tc.history, tc.prompt)
			}
		})
	}
}

func TestChatTurnMarker(t *testing.T) {
	for _, undone := range []bool{false, true} {
		turn, gotUndone, ok := ParseChatTurnMarker(ChatTurnMarker(12, undone))
		if !ok || turn != 12 || gotUndone != undone {
			t.Errorf("ParseChatTurnMarker(ChatTurnMarker(12, %v)) = %d, %v, %v", undone, turn, gotUndone, ok)
		}
	}
	for _, line := range []string{"<!-- agent turn -->", "<!-- agent turn x -->", "agent turn 3", "<!-- agent turn 3 --> more"} {
		if _, _, ok := ParseChatTurnMarker(line); ok {
			t.Errorf("ParseChatTurnMarker(%q) took it for a marker", line)
		}
	}
}
