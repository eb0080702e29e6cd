package agent

import (
	"context"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/modeltest"
	"github.com/agentls/agentls/tools"
)

// TestUnclosedLastBlock: a reply the model ended itself inside its last
// block runs that block when the block holds no other fence line (the
// real model stopped at "}" of user.go, recorded in the evaluation's
// go-add-field); cut by a length limit, or holding a fence line that may
// open a nested block, it stays a problem and nothing is written.
func TestUnclosedLastBlock(t *testing.T) {
	user := "package user\n\ntype User struct {\n\tName string\n}\n"
	withEmail := "package user\n\ntype User struct {\n\tName string\n\tEmail string\n}"
	readme := "# lib\n"
	for _, tc := range []struct {
		name, file, reply, finish string
		want                      string
		problem                   bool
	}{
		{"ended by the model", "user.go", "```save user.go\n" + withEmail, "stop", withEmail + "\n", false},
		{"ended by the model after prose", "user.go", "Here it is:\n\n```save user.go\n" + withEmail + "\n", "stop", withEmail + "\n", false},
		{"cut by a length limit", "user.go", "```save user.go\n" + withEmail, "length", user, true},
		{"a fence line inside", "README.md", "```save README.md\n# lib\n\n## Layout\n\n```\nsrc/\n", "stop", readme, true},
		{"an opener alone", "user.go", "```save user.go", "stop", user, true},
		// delete's block stays empty: its opener is the whole call.
		{"a delete's opener alone", "README.md", "Removing it.\n```delete README.md", "stop", "", false},
		{"a delete's opener cut by a length limit", "README.md", "```delete README.md", "length", readme, true},
		{"a delete's opener, then prose", "README.md", "```delete README.md\n\nThe file README.md has been deleted.", "stop", "", false},
		// The fence closed on the opener's line (the real model moved
		// notes.md to "docs/notes.md```"): the path ends before it.
		{"a delete closed on its line", "README.md", "```delete README.md```", "stop", "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := modeltest.Text(tc.reply, 50)
			r.FinishReason = tc.finish
			srv := modeltest.New(r, modeltest.Text("Done.", 50))
			defer srv.Close()
			ws := &memWorkspace{files: map[string]string{"user.go": user, "README.md": readme}}
			turn := boundTurn(t, srv, ws, tools.FormatMarkdown)
			var notices []string
			turn.Observe = func(e Event) {
				if e.Kind == EventNotice {
					notices = append(notices, e.Text)
				}
			}
			turn.Run(context.Background(), Request{Prompt: "Add a field Email of type string to the User struct in user.go.", Root: "/ws"})
			if got := ws.files[tc.file]; got != tc.want {
				t.Errorf("%s = %q, want %q", tc.file, got, tc.want)
			}
			if ws.files["user.go"] != user && tc.file != "user.go" {
				t.Errorf("user.go changed: %q", ws.files["user.go"])
			}
			msgs := srv.Requests()[1].Body.Messages
			told := msgs[len(msgs)-1].Content
			if tc.problem != strings.Contains(told, "never closes") {
				t.Errorf("problem reported = %v, want %v: the model was told %q", !tc.problem, tc.problem, told)
			}
			if !tc.problem && (len(notices) == 0 || !strings.Contains(notices[0], "read as closed")) {
				t.Errorf("notices = %q", notices)
			}
		})
	}
}
