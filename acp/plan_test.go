package acp

import (
	"fmt"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agentls/agentls/agent/modeltest"
)

// planString is a plan as "status:content" lines.
func planString(entries []sdk.PlanEntry) string {
	var out []string
	for _, e := range entries {
		out = append(out, fmt.Sprintf("%s:%s", e.Status, e.Content))
	}
	return strings.Join(out, "|")
}

// TestPlanner: a markdown task list outside code blocks is the plan; a
// later run of task lines replaces it; chunks may cut lines anywhere.
func TestPlanner(t *testing.T) {
	for _, tc := range []struct {
		name, reply string
		want        string // the last plan sent ("" none)
	}{
		{"none", "Just text.\n- a bullet\n", ""},
		{"list", "Plan:\n- [ ] read\n- [~] fix\n* [x] test\n1. [ ] ship\n", "pending:read|in_progress:fix|completed:test|pending:ship"},
		{"no final newline", "- [ ] read\n- [ ] fix", "pending:read|pending:fix"},
		{"blank lines inside", "- [x] one\n\n- [ ] two\n", "completed:one|pending:two"},
		{"replaced by a later run", "- [ ] one\n- [ ] two\nDone one.\n- [x] one\n- [ ] two\n", "completed:one|pending:two"},
		{"inside a code block", "```markdown\n- [ ] not a plan\n```\n", ""},
		{"after a code block", "```\n- [ ] no\n```\n- [ ] yes\n", "pending:yes"},
		{"not a task", "- [?] odd\n- [ ]\n- []x\n", ""},
	} {
		for _, size := range []int{1, 3, 1000} {
			t.Run(fmt.Sprintf("%s/%d", tc.name, size), func(t *testing.T) {
				var p planner
				var last []sdk.PlanEntry
				for i := 0; i < len(tc.reply); i += size {
					if plan, ok := p.feed(tc.reply[i:min(i+size, len(tc.reply))]); ok {
						last = plan
					}
				}
				if plan, ok := p.flush(); ok {
					last = plan
				}
				if got := planString(last); got != tc.want {
					t.Errorf("plan %q, want %q", got, tc.want)
				}
			})
		}
	}
}

// TestPlanUpdates: a task list in the model's reply reaches the client as
// plan updates, whole each time, the later list of the turn (after a
// tool call) replacing the first; the plan changes nothing by itself.
func TestPlanUpdates(t *testing.T) {
	srv := modeltest.New(
		modeltest.Text("Plan:\n- [ ] look around\n- [ ] report\n\n```shell\nls\n```\n", 5),
		modeltest.Text("- [x] look around\n- [ ] report\n\nThere is nothing.\n", 5))
	defer srv.Close()
	client := &fakeClient{answers: []string{optAllowOnce}}
	conn, id, _ := connect(t, srv.URL, client, true)
	prompt(t, conn, id, sdk.TextBlock("look around, then report"))
	var plans []string
	for _, u := range client.takeUpdates() {
		if u.Plan != nil {
			plans = append(plans, planString(u.Plan.Entries))
		}
	}
	if len(plans) == 0 {
		t.Fatal("no plan update")
	}
	if plans[0] != "pending:look around" || !strings.Contains(strings.Join(plans, "\n"), "pending:look around|pending:report") || plans[len(plans)-1] != "completed:look around|pending:report" {
		t.Errorf("plans sent:\n%s", strings.Join(plans, "\n"))
	}
}
