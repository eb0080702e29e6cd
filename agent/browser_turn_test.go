package agent

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/agentls/agentls/agent/modeltest"
	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/approval"
	"github.com/agentls/agentls/tools/browser"
	"github.com/agentls/agentls/tools/builtin"
)

// declining is a memWorkspace whose user says no.
type declining struct{ dirWorkspace }

func (declining) Confirm(context.Context, approval.Question) (approval.Answer, error) {
	return approval.Skip, nil
}

// TestTurnReadsPage: the model calls browser; an allowlisted page's text
// is in its next request. Without the allowlist the user is asked, and
// when they decline the page gets no request and the model is told.
func TestTurnReadsPage(t *testing.T) {
	var hits atomic.Int32
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		fmt.Fprint(w, "<html><head><title>Notes</title></head><body><p>The answer is 42.</p></body></html>")
	}))
	defer page.Close()
	for _, tc := range []struct {
		name    string
		allow   []string
		decline bool
		want    string
		hits    int32
	}{
		{"allowlisted", []string{"127.0.0.1"}, false, "The answer is 42.", 1},
		{"declined", nil, true, "the user declined to fetch " + page.URL + "/notes?q=secret: nothing was sent", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hits.Store(0)
			srv := modeltest.New(modeltest.Text("```browser\n"+page.URL+"/notes?q=secret\n```\n", 100), modeltest.Text("done", 100))
			defer srv.Close()
			ws := dirWorkspace{memWorkspace: &memWorkspace{files: map[string]string{}}, root: t.TempDir(),
				opts: ToolOptions{Browser: browser.Options{Allowlist: tc.allow}}}
			var bound *tools.Registry
			if tc.decline {
				bound = BindTools(builtin.Registry(), tools.Env{Workspace: declining{ws}}, noHost, testToolOptions(declining{ws}))
			} else {
				bound = BindTools(builtin.Registry(), tools.Env{Workspace: ws}, noHost, testToolOptions(ws))
			}
			turn := &Turn{Model: testModel(t, srv.URL, ModelConfig{Retries: 1}), Registry: bound, Format: tools.FormatMarkdown, Runner: Runner{Registry: bound}}
			if _, err := turn.Run(context.Background(), Request{Prompt: "read the notes"}); err != nil {
				t.Fatal(err)
			}
			got := srv.Requests()[1].Body.Messages[3].Content
			if !strings.Contains(got, tc.want) {
				t.Errorf("the model was told %q, want %q", got, tc.want)
			}
			if n := hits.Load(); n != tc.hits {
				t.Errorf("the page got %d requests, want %d", n, tc.hits)
			}
		})
	}
}
