package agent

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/agentls/agentls/agent/modeltest"
	"github.com/agentls/agentls/edits"
	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/approval"
	"github.com/agentls/agentls/tools/builtin"
	"github.com/agentls/agentls/tools/shelltool"
)

// memWorkspace is a Workspace over a map whose user says yes and whose
// output is kept.
type memWorkspace struct {
	mu     sync.Mutex
	files  map[string]string
	output strings.Builder
}

func (w *memWorkspace) Root() string          { return "/ws" }
func (w *memWorkspace) PrivateDirs() []string { return nil }

func (w *memWorkspace) Read(_ context.Context, p string) (string, int32, bool, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	c, ok := w.files[p]
	return c, 1, ok, nil
}

func (w *memWorkspace) Propose(ctx context.Context, compute func(context.Context, tools.Source) (edits.Changeset, error)) (string, error) {
	cs, err := compute(ctx, w)
	if err != nil {
		return "", err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, c := range cs.Effective() {
		if c.Action == edits.Delete {
			delete(w.files, c.Path)
			continue
		}
		w.files[c.Path] = c.Result()
	}
	return "applied", nil
}

func (w *memWorkspace) Confirm(context.Context, approval.Question) (approval.Answer, error) {
	return approval.Run, nil
}

func (w *memWorkspace) Output(_ string, p []byte) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.output.Write(p)
}

func noHost() (*shelltool.Host, error) { return nil, nil }

// TestCustomToolRunsInTurn: a tool added to the registry with its own Run
// (as issue #15's MCP tools will be) is offered, called by the model and
// run by the Runner, with no code outside the test knowing its name; the
// built-in tools bound beside it leave it as it is.
func TestCustomToolRunsInTurn(t *testing.T) {
	ws := &memWorkspace{files: map[string]string{}}
	issue := &tools.ToolSpec{
		Name: "lookup_issue", BlockTypes: []string{"lookup_issue"}, Description: "Show an issue of the project.",
		Parameters: []tools.Parameter{{Name: "id", Type: "string", Required: true, Description: "The issue's number."}},
		Run: func(_ context.Context, use tools.ToolUse) (string, error) {
			ws.Output("lookup_issue", []byte("fetching\n"))
			return "issue " + strings.Join(use.Args, " ") + ": open", nil
		},
	}
	all, err := tools.NewRegistry(append(builtin.Specs(), issue)...)
	if err != nil {
		t.Fatal(err)
	}
	reg, _, err := BindTools(all, tools.Env{Workspace: ws}, noHost, testToolOptions(ws)).Select([]string{"read", "lookup_issue"})
	if err != nil {
		t.Fatal(err)
	}
	srv := modeltest.New(
		modeltest.Text("Looking.\n```lookup_issue 14\n```\n", 100),
		modeltest.Text("Issue 14 is open.", 100),
	)
	defer srv.Close()
	turn := &Turn{Model: testModel(t, srv.URL, ModelConfig{Retries: 1}), Registry: reg, Format: tools.FormatMarkdown, Runner: Runner{Registry: reg}}
	if _, err := turn.Run(context.Background(), Request{Prompt: "is issue 14 open?", Root: "/ws"}); err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model calls", len(reqs))
	}
	if !strings.Contains(reqs[0].Body.Messages[0].Content, "lookup_issue") {
		t.Error("the prompt does not offer the tool")
	}
	msgs := reqs[1].Body.Messages
	if got := msgs[len(msgs)-1].Content; got != "Result of lookup_issue 14:\nissue 14: open" {
		t.Errorf("the model was told %q", got)
	}
	if ws.output.String() != "fetching\n" {
		t.Errorf("output %q", ws.output.String())
	}
}

// TestRunnerRefuses: a call of a tool the registry does not hold, or holds
// with nothing to run it (declared, never bound), is refused with a
// message the model can act on, and nothing runs.
func TestRunnerRefuses(t *testing.T) {
	declared := &tools.ToolSpec{Name: "weather", Description: "Show the weather."}
	reg, err := tools.NewRegistry(declared)
	if err != nil {
		t.Fatal(err)
	}
	r := Runner{Registry: BindTools(reg, tools.Env{Workspace: &memWorkspace{}}, noHost, testToolOptions(&memWorkspace{}))}
	for _, tc := range []struct {
		tool, want string
	}{
		{"weather", "the weather tool is known here but cannot run in this workspace (nothing runs it); do without it"},
		{"rm_rf", "there is no rm_rf tool here"},
	} {
		t.Run(tc.tool, func(t *testing.T) {
			out, err := r.RunTool(context.Background(), tools.ToolUse{Tool: tc.tool})
			if err == nil || err.Error() != tc.want || out != "" {
				t.Errorf("out %q, err %v; want %q", out, err, tc.want)
			}
		})
	}
}

// TestBindToolsRunsEveryBuiltin: bound to a workspace, every built-in tool
// runs (agentls tools reports what Runnable says), and an edit then a read
// of it, chained by the model, go through the workspace: the read sees the
// edit.
func TestBindToolsRunsEveryBuiltin(t *testing.T) {
	ws := &memWorkspace{files: map[string]string{}}
	reg := BindTools(builtin.Registry(), tools.Env{Workspace: ws}, noHost, testToolOptions(ws))
	for _, s := range reg.All() {
		if !s.Runnable() {
			t.Errorf("%s is not bound", s.Name)
		}
	}
	r := Runner{Registry: reg}
	ctx := context.Background()
	if _, err := r.RunTool(ctx, tools.ToolUse{Tool: "save", Args: []string{"a.txt"}, Content: "hello\n"}); err != nil {
		t.Fatal(err)
	}
	out, err := r.RunTool(ctx, tools.ToolUse{Tool: "read", Args: []string{"a.txt"}})
	if err != nil || !strings.Contains(out, "hello") {
		t.Errorf("read after save: %q, %v", out, err)
	}
	if _, err := r.RunTool(ctx, tools.ToolUse{Tool: "py", Content: "print(1)"}); err == nil || !strings.Contains(err.Error(), "runs no commands") {
		t.Errorf("ipython by its block type, with no host: %v", err)
	}
}

// BenchmarkBindAndRun: what a turn pays to bind its tools (once per turn:
// it grows with the tools, as an MCP server can bring hundreds) and to
// dispatch one call (a lookup: it should not grow).
func BenchmarkBindAndRun(b *testing.B) {
	for _, extra := range []int{1, 100, 1000} {
		specs := builtin.Specs()
		for i := range extra {
			specs = append(specs, &tools.ToolSpec{Name: fmt.Sprintf("mcp_%d", i), Description: "d",
				Run: func(context.Context, tools.ToolUse) (string, error) { return "ok", nil }})
		}
		reg, err := tools.NewRegistry(specs...)
		if err != nil {
			b.Fatal(err)
		}
		ws := &memWorkspace{files: map[string]string{}}
		b.Run(fmt.Sprintf("bind/tools=%d", len(specs)), func(b *testing.B) {
			for b.Loop() {
				BindTools(reg, tools.Env{Workspace: ws}, noHost, testToolOptions(ws))
			}
		})
		r := Runner{Registry: BindTools(reg, tools.Env{Workspace: ws}, noHost, testToolOptions(ws))}
		use := tools.ToolUse{Tool: "mcp_0"}
		b.Run(fmt.Sprintf("run/tools=%d", len(specs)), func(b *testing.B) {
			for b.Loop() {
				r.RunTool(context.Background(), use)
			}
		})
	}
}
