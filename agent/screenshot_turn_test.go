package agent

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/modeltest"
	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/browser"
	"github.com/agentls/agentls/tools/builtin"
	"github.com/agentls/agentls/tools/screenshot"
)

// TestTurnScreenshot: the model calls screenshot on an allowlisted local
// page; its next request carries the page's image.
func TestTurnScreenshot(t *testing.T) {
	if !screenshot.Available() {
		t.Skip("Chromium is not installed (Debian: apt install chromium)")
	}
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "<html><body><h1>Dashboard</h1></body></html>")
	}))
	defer page.Close()
	srv := modeltest.New(modeltest.Text("```screenshot\n"+page.URL+"/\n```\n", 100), modeltest.Text("It shows a dashboard.", 100))
	defer srv.Close()
	ws := dirWorkspace{memWorkspace: &memWorkspace{files: map[string]string{}}, root: t.TempDir(),
		opts: ToolOptions{Browser: browser.Options{Allowlist: []string{"127.0.0.1"}}}}
	bound := BindTools(builtin.Registry(), tools.Env{Workspace: ws}, noHost, testToolOptions(ws))
	turn := &Turn{Model: testModel(t, srv.URL, ModelConfig{Retries: 1}), Registry: bound, Format: tools.FormatMarkdown, Runner: Runner{Registry: bound}}
	if _, err := turn.Run(context.Background(), Request{Prompt: "look at the dashboard"}); err != nil {
		t.Fatal(err)
	}
	msg := srv.Requests()[1].Body.Messages[3]
	if !strings.Contains(msg.Content, "(image screenshot of "+page.URL+"/, 1280×800, sent)") || len(msg.Images) != 1 ||
		!strings.HasPrefix(msg.Images[0], "data:image/png;base64,") {
		t.Errorf("the model was told %q with %d images", msg.Content, len(msg.Images))
	}
}
