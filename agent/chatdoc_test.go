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
	} {
		t.Run(tc.name, func(t *testing.T) {
			history, prompt := ParseChat(tc.text)
			if !reflect.DeepEqual(history, tc.history) || prompt != tc.prompt {
				t.Errorf("ParseChat = %+v, %q; want %+v, %q", history, prompt, tc.history, tc.prompt)
			}
		})
	}
}
