package agent

import (
	"context"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/modeltest"
	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/approval"
	"github.com/agentls/agentls/tools/builtin"
	"github.com/agentls/agentls/tools/computer/xvfbtest"
)

// TestTurnComputer: under Xvfb, the model takes a screenshot with the
// computer tool (allowlisted), then types into the screen, which nobody
// can be asked about; its next requests carry the screen's image, then
// the refusal.
func TestTurnComputer(t *testing.T) {
	display := xvfbtest.Start(t, "import")
	t.Setenv("DISPLAY", display) // the tool is offered only where $DISPLAY is set
	srv := modeltest.New(
		modeltest.Text("```computer screenshot\n```\n", 100),
		modeltest.Text("```computer type\nrm -rf ~\n\n```\n", 100),
		modeltest.Text("The screen is empty.", 100))
	defer srv.Close()
	getenv := func(k string) string {
		if k == "DISPLAY" {
			return display
		}
		return ""
	}
	ws := nobodyWorkspace{dirWorkspace{memWorkspace: &memWorkspace{files: map[string]string{}}, root: t.TempDir(),
		opts: ToolOptions{ComputerAllowlist: []string{"screenshot"}, Getenv: getenv}}}
	reg, _, err := builtin.Registry().Select([]string{"computer"})
	if err != nil {
		t.Fatal(err)
	}
	bound := BindTools(reg, tools.Env{Workspace: ws}, noHost, testToolOptions(ws))
	turn := &Turn{Model: testModel(t, srv.URL, ModelConfig{Retries: 1}), Registry: bound, Format: tools.FormatMarkdown, Runner: Runner{Registry: bound}}
	if _, err := turn.Run(context.Background(), Request{Prompt: "what is on my screen?"}); err != nil {
		t.Fatal(err)
	}
	msgs := srv.Requests()[1].Body.Messages
	msg := msgs[len(msgs)-1]
	if !strings.Contains(msg.Content, "(image screenshot of the screen "+display+", 1024×768, sent)") || len(msg.Images) != 1 ||
		!strings.HasPrefix(msg.Images[0], "data:image/png;base64,") {
		t.Errorf("the model was told %q with %d images", msg.Content, len(msg.Images))
	}
	msgs = srv.Requests()[2].Body.Messages
	if msg := msgs[len(msgs)-1]; !strings.Contains(msg.Content, `computer: type "rm -rf ~\n" needs the user's approval`) {
		t.Errorf("after typing, the model was told %q", msg.Content)
	}
}

// nobodyWorkspace is a workspace where nobody can be asked (agentls ask
// without a terminal).
type nobodyWorkspace struct{ dirWorkspace }

func (nobodyWorkspace) Confirm(context.Context, approval.Question) (approval.Answer, error) {
	return approval.Skip, approval.ErrNobodyToAsk
}

// TestTurnScreenshotScreen: `screenshot screen` grabs the X screen as the
// computer tool's screenshot action does — asked like it (refused with
// nobody to ask), or sent when computerAllowlist allows screenshots —
// though the computer tool itself is not offered.
func TestTurnScreenshotScreen(t *testing.T) {
	display := xvfbtest.Start(t, "import")
	getenv := func(k string) string {
		if k == "DISPLAY" {
			return display
		}
		return ""
	}
	for _, tc := range []struct {
		name      string
		allowlist []string
		want      string
		images    int
	}{
		{"allowlisted", []string{"screenshot"}, "(image screenshot of the screen " + display + ", 1024×768, sent)", 1},
		{"nobody to ask", nil, "needs the user's approval", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := modeltest.New(modeltest.Text("```screenshot screen\n```\n", 100), modeltest.Text("Seen.", 100))
			defer srv.Close()
			ws := nobodyWorkspace{dirWorkspace{memWorkspace: &memWorkspace{files: map[string]string{}}, root: t.TempDir(),
				opts: ToolOptions{ComputerAllowlist: tc.allowlist, Getenv: getenv}}}
			reg, _, err := builtin.Registry().Select([]string{"screenshot"})
			if err != nil {
				t.Fatal(err)
			}
			bound := BindTools(reg, tools.Env{Workspace: ws}, noHost, testToolOptions(ws))
			turn := &Turn{Model: testModel(t, srv.URL, ModelConfig{Retries: 1}), Registry: bound, Format: tools.FormatMarkdown, Runner: Runner{Registry: bound}}
			if _, err := turn.Run(context.Background(), Request{Prompt: "what is on my screen?"}); err != nil {
				t.Fatal(err)
			}
			msgs := srv.Requests()[1].Body.Messages
			if msg := msgs[len(msgs)-1]; !strings.Contains(msg.Content, tc.want) || len(msg.Images) != tc.images {
				t.Errorf("the model was told %q with %d images", msg.Content, len(msg.Images))
			}
		})
	}
}
