package agent

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentls/agentls/agent/modeltest"
	"github.com/agentls/agentls/edits"
	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/builtin"
)

// TestPastedUses: a reply's pasted diff and whole file become the calls
// that apply them, the diff as an apply_patch whose hunks are the diff's;
// what cannot be placed, or is a tool call already, becomes none.
func TestPastedUses(t *testing.T) {
	reg := builtin.Registry()
	diff := "--- a/a.go\n+++ b/a.go\n@@ -1,3 +1,3 @@\n package p\n \n-const A = 1\n+const A = 2\n"
	reply := "Here:\n\n```diff\n" + diff + "```\n\n**b.go**\n```go\npackage p\n\nconst B = 3\n```\n"
	uses := pastedUses(reply, reg, tools.FormatMarkdown)
	if len(uses) != 2 || uses[0].Tool != "apply_patch" || uses[1].Tool != "save" || uses[1].Args[0] != "b.go" || uses[1].Content != "package p\n\nconst B = 3" {
		t.Fatalf("uses %+v", uses)
	}
	want, err := edits.ParseUnifiedDiff(diff)
	if err != nil {
		t.Fatal(err)
	}
	got, err := edits.ParseV4A(uses[0].Content)
	if err != nil {
		t.Fatalf("the patch %q: %v", uses[0].Content, err)
	}
	if diff := cmp.Diff(want[0].Hunks, got[0].Hunks, cmp.FilterPath(func(p cmp.Path) bool { return p.Last().String() == ".Line" }, cmp.Ignore())); diff != "" || got[0].Path != "a.go" {
		t.Errorf("the hunks changed on the way (-diff +patch):\n%s", diff)
	}
	for _, tc := range []struct{ name, reply string }{
		{"a tool call", "```save b.go\nx\n```\n"},
		{"no path", "```go\npackage p\n```\n"},
		{"a deletion", "```diff\n--- a/a.go\n+++ /dev/null\n@@ -1 +0,0 @@\n-package p\n```\n"},
		{"nothing to place by", "**a.go**\n```diff\n@@ -5,0 +6 @@\n+const C = 4\n```\n"},
	} {
		if uses := pastedUses(tc.reply, reg, tools.FormatMarkdown); len(uses) != 0 {
			t.Errorf("%s: %+v", tc.name, uses)
		}
	}
	if uses := pastedUses(reply, reg, tools.FormatTool); uses != nil {
		t.Errorf("native format: %+v", uses)
	}
}

// TestTurnAppliesPastedDiff: a reply that answers with a ```diff block and
// no tool call (what small models and chat answers do) is applied in the
// turn as agentls apply applies it; the model reads that it was.
func TestTurnAppliesPastedDiff(t *testing.T) {
	srv := modeltest.New(
		modeltest.Text("Change it like this:\n\n```diff\n--- a/a.go\n+++ b/a.go\n@@ -1,3 +1,3 @@\n package p\n \n-const A = 1\n+const A = 2\n```\n", 9),
		modeltest.Text("Done.", 9),
	)
	defer srv.Close()
	runner := &recordingRunner{}
	turn := newTurn(t, srv, tools.FormatMarkdown, runner)
	if _, err := turn.Run(context.Background(), Request{Prompt: "set A to 2 in a.go"}); err != nil {
		t.Fatal(err)
	}
	if len(runner.uses) != 1 || runner.uses[0].Tool != "apply_patch" || !strings.Contains(runner.uses[0].Content, "-const A = 1\n") || !strings.Contains(runner.uses[0].Content, "+const A = 2\n") {
		t.Fatalf("calls run: %+v", runner.uses)
	}
	reqs := srv.Requests()
	if got := reqs[1].Body.Messages[len(reqs[1].Body.Messages)-1].Content; !strings.Contains(got, "they were applied as these calls") {
		t.Errorf("the model read %q", got)
	}
}
