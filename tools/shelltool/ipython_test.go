package shelltool

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/agentls/agentls/procs/policy"
	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/approval"
)

// pythonOnly allows Python (the ipython question) and answers every
// command question with answer (nil error) or, when nobody is set, says
// nobody can be asked, as agentls ask without a terminal does.
type pythonOnly struct {
	answer approval.Answer
	nobody bool
	mu     sync.Mutex
	asked  []string
}

func (p *pythonOnly) Confirm(_ context.Context, q approval.Question) (approval.Answer, error) {
	if q.Pattern == "ipython" {
		return approval.Run, nil
	}
	p.mu.Lock()
	p.asked = append(p.asked, q.Action)
	p.mu.Unlock()
	if p.nobody {
		return approval.Skip, approval.ErrNobodyToAsk
	}
	return p.answer, nil
}

func needIPython(t *testing.T) {
	t.Helper()
	if err := exec.Command("python3", "-c", "import IPython").Run(); err != nil {
		t.Skip("IPython is not installed for python3 (pip install ipython, or Debian's ipython3): the ipython tool runs plain python3")
	}
}

// TestIPythonCommandsGoThroughPolicy is the attack: the model writes
// `!touch pwned` in a cell the user let run as Python. The command is put
// to the command policy like a shell block's: with nobody to allow it, or
// the user declining, or the policy denying it, nothing is created; an
// allowed read-only command runs without a question.
func TestIPythonCommandsGoThroughPolicy(t *testing.T) {
	needIPython(t)
	root := t.TempDir()
	h := newHost(t, Options{Root: root, Policy: policy.Config{Deny: []string{"rm"}}})
	ctx := context.Background()
	for _, tc := range []struct {
		name    string
		cell    string
		user    *pythonOnly
		want    string
		created string
	}{
		{"nobody to ask", "!touch pwned1", &pythonOnly{nobody: true}, "agentls: not run: `touch pwned1` needs the user's approval", ""},
		{"declined", "!touch pwned2", &pythonOnly{answer: approval.Skip}, "agentls: not run: the user declined to run `touch pwned2`", ""},
		{"denied by configuration", "!rm -rf x", &pythonOnly{answer: approval.Run}, "agentls: not run: command denied", ""},
		{"allowed by the user", "!touch made", &pythonOnly{answer: approval.Run}, "Executed code block in IPython", "made"},
		{"allowed by the policy", "!echo read only", &pythonOnly{nobody: true}, "read only", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := h.RunTool(ctx, tools.ToolUse{Tool: "ipython", Content: tc.cell}, tc.user)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(out, tc.want) || !strings.HasPrefix(out, "Executed code block in IPython ") {
				t.Errorf("output %q, want it to say %q", out, tc.want)
			}
			for _, f := range []string{"pwned1", "pwned2"} {
				if _, err := os.Stat(filepath.Join(root, f)); err == nil {
					t.Fatalf("%s was created", f)
				}
			}
			if tc.created != "" {
				if _, err := os.Stat(filepath.Join(root, tc.created)); err != nil {
					t.Errorf("the allowed command did not run: %v", err)
				}
			}
			if tc.name == "allowed by the policy" && len(tc.user.asked) != 0 {
				t.Errorf("a read-only command was asked about: %q", tc.user.asked)
			}
		})
	}
}
