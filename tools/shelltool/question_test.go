package shelltool

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/approval"
)

// seeingUser approves a question only when it shows every line of want
// (its summary and its detail, as a Confirmer shows both), as a user
// who reads before pressing Run; otherwise it declines.
type seeingUser struct {
	want  []string
	mu    sync.Mutex
	asked []approval.Question
}

func (u *seeingUser) Confirm(_ context.Context, q approval.Question) (approval.Answer, error) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.asked = append(u.asked, q)
	shown := q.What() + "\n" + q.Detail
	for _, l := range u.want {
		if !strings.Contains(shown, l) {
			return approval.Skip, nil
		}
	}
	return approval.Run, nil
}

// TestQuestionsShowEveryLine is the attack of issue 24: a block whose
// first line is harmless and whose second does the harm. The question
// used to show `import math  # … (+2 lines)`; a user who approves only
// what was shown declined, or approved line 1 and ran line 2. Now every
// question (a shell block, a Python cell, a cell's %%bash) holds every
// line, and the approved block runs.
func TestQuestionsShowEveryLine(t *testing.T) {
	for _, tc := range []struct {
		name, tool, body string
		python           bool
	}{
		{"shell", "shell", "echo harmless\ntouch pwned\necho done", false},
		{"ipython cell", "ipython", "import math  # nothing else happens\nopen('pwned', 'w').write('x')\nprint(math.pi)", true},
		{"a cell's %%bash", "ipython", "%%bash\necho harmless  # nothing else happens\ntouch pwned\necho done", true},
		{"a long line", "ipython", "note = '" + strings.Repeat("harmless ", 20) + "'; open('pwned', 'w').write('x')", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.python {
				needIPython(t)
			}
			root := t.TempDir()
			h := newHost(t, Options{Root: root})
			lines := strings.Split(tc.body, "\n")
			if tc.name == "a cell's %%bash" {
				lines = lines[1:] // the command the cell starts; the cell is asked first
			}
			u := &seeingUser{want: lines}
			out, err := h.RunTool(context.Background(), tools.ToolUse{Tool: tc.tool, Content: tc.body}, u)
			if err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			if _, err := os.Stat(filepath.Join(root, "pwned")); err != nil {
				t.Errorf("the approved block did not run whole (%v); asked:", err)
				for _, q := range u.asked {
					t.Errorf("  %q / %q", q.What(), q.Detail)
				}
			}
			for _, q := range u.asked {
				if strings.Contains(q.Action, "\n") {
					t.Errorf("the summary %q has more than one line", q.Action)
				}
			}
		})
	}
}
