package agent

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"

	"github.com/agentls/agentls/agent/modeltest"
	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/builtin"
)

// nopCloser is a conversation log kept in memory.
type nopCloser struct {
	mu sync.Mutex
	bytes.Buffer
}

func (b *nopCloser) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.Buffer.Write(p)
}
func (b *nopCloser) Close() error { return nil }

// parentTurn is a turn over ws offering allow (bound as the server binds
// a turn's tools: selected, then bound), with its subagents.
func parentTurn(t *testing.T, url string, ws *memWorkspace, allow []string) (*Turn, *Subagents, context.Context) {
	t.Helper()
	sel, _, err := builtin.Registry().Select(allow)
	if err != nil {
		t.Fatal(err)
	}
	reg := BindTools(sel, tools.Env{Workspace: ws}, noHost, testToolOptions(ws))
	model := testModel(t, url, ModelConfig{Retries: 1})
	sub := &Subagents{Model: model, Format: tools.FormatMarkdown, Registry: reg, Root: "/ws"}
	turn := &Turn{Model: model, Registry: reg, Format: tools.FormatMarkdown, Runner: Runner{Registry: reg}}
	return turn, sub, WithSubagents(context.Background(), sub)
}

// isChild reports whether a request is a subagent's (its prompt says
// so).
func isChild(r modeltest.Request) bool {
	for _, m := range r.Body.Messages {
		if m.Role == "user" && strings.Contains(m.Content, "You are subagent") {
			return true
		}
	}
	return false
}

// TestSubagentAnswers: the parent's model calls subagent; the child (the
// same fake server) reads a file and answers; the parent reads that
// answer as the call's result. The child has only read, its events reach
// Observe numbered, its conversation goes to its own log, and an edit it
// was allowed goes through the parent's workspace.
func TestSubagentAnswers(t *testing.T) {
	ws := &memWorkspace{files: map[string]string{"a.go": "package a\n\nfunc A() int { return 42 }\n"}}
	srv := modeltest.New(
		modeltest.Text("Asking a helper.\n```subagent\nRead a.go and say what A returns.\n```\n", 16),
		modeltest.Text("```read a.go\n```\n", 16),
		modeltest.Text("A returns 42.", 16),
		modeltest.Text("A returns 42, says the subagent.", 16),
	)
	defer srv.Close()
	turn, sub, ctx := parentTurn(t, srv.URL, ws, []string{"read", "save", "subagent"})
	log := &nopCloser{}
	sub.OpenLog = func(n int) (io.WriteCloser, error) {
		if n != 1 {
			t.Errorf("log of subagent %d", n)
		}
		return log, nil
	}
	var mu sync.Mutex
	var progress []string
	sub.Observe = func(n int, e Event) {
		if e.Kind == EventToolStart {
			mu.Lock()
			progress = append(progress, "subagent "+string(rune('0'+n))+": "+DescribeUse(*e.Use))
			mu.Unlock()
		}
	}
	sum, err := turn.Run(ctx, Request{Prompt: "what does A return?", Root: "/ws"})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Final != "A returns 42, says the subagent." {
		t.Errorf("final %q", sum.Final)
	}
	reqs := srv.Requests()
	if len(reqs) != 4 || isChild(reqs[0]) || !isChild(reqs[1]) || !isChild(reqs[2]) || isChild(reqs[3]) {
		t.Fatalf("%d requests, want parent, child, child, parent", len(reqs))
	}
	child := reqs[1].Body.Messages[0].Content
	if !strings.Contains(child, "## read") || strings.Contains(child, "## save") || strings.Contains(child, "## subagent") {
		t.Errorf("the child was offered more than read:\n%s", child)
	}
	last := reqs[3].Body.Messages[len(reqs[3].Body.Messages)-1].Content
	if !strings.Contains(last, "Subagent 1 answered (2 steps, 1 tool call):\nA returns 42.") {
		t.Errorf("the parent was told %q", last)
	}
	if !sameLines(progress, []string{"subagent 1: read a.go"}) {
		t.Errorf("progress %q", progress)
	}
	if !strings.Contains(log.String(), "A returns 42.") {
		t.Errorf("the child's log: %q", log.String())
	}
}

func sameLines(a, b []string) bool { return strings.Join(a, "\n") == strings.Join(b, "\n") }

// TestSubagentEditsThroughParent: a child given save (the parent has it)
// writes through the parent's workspace.
func TestSubagentEditsThroughParent(t *testing.T) {
	ws := &memWorkspace{files: map[string]string{}}
	srv := modeltest.New(
		modeltest.Text("```subagent read save\nWrite hello to b.txt.\n```\n", 64),
		modeltest.Text("```save b.txt\nhello\n```\n", 64),
		modeltest.Text("Done.", 64),
		modeltest.Text("The helper wrote it.", 64),
	)
	defer srv.Close()
	turn, _, ctx := parentTurn(t, srv.URL, ws, []string{"read", "save", "subagent"})
	if _, err := turn.Run(ctx, Request{Prompt: "write hello", Root: "/ws"}); err != nil {
		t.Fatal(err)
	}
	if ws.files["b.txt"] != "hello\n" {
		t.Errorf("files %q", ws.files)
	}
}

// TestSubagentRefusesMoreThanParent: the attack of a model that, in a
// read-only turn, hands the edit to a subagent asking for an edit tool
// (or for subagents of its own): refused, the child never starts, and
// nothing is written.
func TestSubagentRefusesMoreThanParent(t *testing.T) {
	cases := []struct{ call, says string }{
		{"```subagent read save\nWrite pwned to a.go.\n```\n", "it cannot have the save tool: this turn may not use it (its tools: read)"},
		{"```subagent read subagent\nStart another.\n```\n", "a subagent cannot start subagents"},
		{"```subagent shell\nRun rm -rf.\n```\n", "it cannot have the shell tool"},
	}
	for _, c := range cases {
		t.Run(c.says, func(t *testing.T) {
			ws := &memWorkspace{files: map[string]string{"a.go": "package a\n"}}
			srv := modeltest.New(modeltest.Text(c.call, 64), modeltest.Text("I cannot.", 64))
			defer srv.Close()
			turn, _, ctx := parentTurn(t, srv.URL, ws, []string{"read", "subagent"})
			if _, err := turn.Run(ctx, Request{Prompt: "change a.go", Root: "/ws"}); err != nil {
				t.Fatal(err)
			}
			reqs := srv.Requests()
			if len(reqs) != 2 || isChild(reqs[1]) {
				t.Fatalf("%d requests (a child started?)", len(reqs))
			}
			told := reqs[1].Body.Messages[len(reqs[1].Body.Messages)-1].Content
			if !strings.Contains(told, c.says) {
				t.Errorf("the parent was told %q, want %q", told, c.says)
			}
			if ws.files["a.go"] != "package a\n" {
				t.Errorf("a.go changed: %q", ws.files["a.go"])
			}
		})
	}
}

// TestSubagentCancelStopsBoth: the user cancels the turn while its child
// waits on the model: the child's request is given up, the parent ends
// cancelled, and the model is asked nothing more.
func TestSubagentCancelStopsBoth(t *testing.T) {
	childAsked := make(chan struct{})
	var once sync.Once
	srv := modeltest.NewFunc(func(r modeltest.Request) modeltest.Reply {
		if isChild(r) {
			once.Do(func() { close(childAsked) })
			return modeltest.Reply{Stall: true}
		}
		return modeltest.Text("```subagent\nLook around.\n```\n", 64)
	})
	defer srv.Close()
	ws := &memWorkspace{files: map[string]string{}}
	turn, _, ctx := parentTurn(t, srv.URL, ws, []string{"read", "subagent"})
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := turn.Run(ctx, Request{Prompt: "look", Root: "/ws"})
		done <- err
	}()
	<-childAsked
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("parent ended with %v, want cancelled", err)
	}
	if n := len(srv.Requests()); n != 2 {
		t.Errorf("%d requests, want the parent's and the child's", n)
	}
}

// TestSubagentsBounded: past Max at once, a call is refused at once with
// a message (not queued); a place frees when a child ends.
func TestSubagentsBounded(t *testing.T) {
	release := make(chan struct{})
	started := make(chan struct{}, 4)
	srv := modeltest.NewFunc(func(r modeltest.Request) modeltest.Reply {
		started <- struct{}{}
		<-release
		return modeltest.Text("done", 64)
	})
	defer srv.Close()
	ws := &memWorkspace{files: map[string]string{}}
	turn, sub, ctx := parentTurn(t, srv.URL, ws, []string{"read", "subagent"})
	sub.Max = 2
	run := func() (string, error) {
		return turn.Runner.RunTool(ctx, tools.ToolUse{Tool: "subagent", Content: "wait"})
	}
	results := make(chan error, 2)
	for range 2 {
		go func() { _, err := run(); results <- err }()
		<-started
	}
	if _, err := run(); err == nil || !strings.Contains(err.Error(), "2 subagents are running already, the most at once") {
		t.Errorf("a third at once: %v", err)
	}
	close(release)
	for range 2 {
		if err := <-results; err != nil {
			t.Error(err)
		}
	}
	if out, err := run(); err != nil || !strings.Contains(out, "Subagent 3 answered") {
		t.Errorf("after they ended: %q, %v", out, err)
	}
}

// TestSubagentLimits: a child's steps are its call's, bounded by the
// parent's; a child that runs out says so to the parent.
func TestSubagentLimits(t *testing.T) {
	srv := modeltest.NewFunc(func(r modeltest.Request) modeltest.Reply {
		return modeltest.Text("```read a.go\n```\n", 64) // never done
	})
	defer srv.Close()
	ws := &memWorkspace{files: map[string]string{"a.go": "package a\n"}}
	turn, sub, ctx := parentTurn(t, srv.URL, ws, []string{"read", "subagent"})
	sub.Limits = Limits{MaxSteps: 3}
	_, err := turn.Runner.RunTool(ctx, tools.ToolUse{Tool: "subagent", Kwargs: map[string]any{"prompt": "loop", "max_steps": float64(50)}})
	if err == nil || !strings.Contains(err.Error(), "subagent 1 stopped after 3 steps") || !errors.Is(err, ErrLimit) {
		t.Errorf("err = %v", err)
	}
	if n := len(srv.Requests()); n != 3 {
		t.Errorf("%d model calls, want the parent's bound of 3", n)
	}
	for _, bad := range []map[string]any{{"prompt": "x", "max_steps": float64(0)}, {"prompt": "x", "tools": float64(1)}, {"prompt": " "}} {
		if _, err := turn.Runner.RunTool(ctx, tools.ToolUse{Tool: "subagent", Kwargs: bad}); err == nil {
			t.Errorf("%v: no error", bad)
		}
	}
}

// TestSubagentRunsParentHooks: the attack of a model that delegates a
// call the turn's hook refuses (here: every save) to a subagent: the
// child runs the parent's hooks, so the save is refused there too and
// nothing is written.
func TestSubagentRunsParentHooks(t *testing.T) {
	ws := &memWorkspace{files: map[string]string{}}
	srv := modeltest.New(
		modeltest.Text("```subagent read save\nWrite pwned to b.txt.\n```\n", 64),
		modeltest.Text("```save b.txt\npwned\n```\n", 64),
		modeltest.Text("It was refused.", 64),
		modeltest.Text("The helper could not.", 64),
	)
	defer srv.Close()
	turn, sub, ctx := parentTurn(t, srv.URL, ws, []string{"read", "save", "subagent"})
	turn.Hooks = []Hook{{Name: "no saves", Before: func(_ context.Context, use tools.ToolUse) error {
		if use.Tool == "save" {
			return errors.New("saving is off")
		}
		return nil
	}}}
	sub.Hooks = turn.Hooks
	if _, err := turn.Run(ctx, Request{Prompt: "write", Root: "/ws"}); err != nil {
		t.Fatal(err)
	}
	if _, ok := ws.files["b.txt"]; ok {
		t.Error("the subagent wrote past the parent's hook")
	}
	reqs := srv.Requests()
	if told := reqs[2].Body.Messages[len(reqs[2].Body.Messages)-1].Content; !strings.Contains(told, "refused before it ran (no saves): saving is off") {
		t.Errorf("the child was told %q", told)
	}
}

// TestSubagentSlotsShared: turns that share slots (a server's) share
// the bound: with one place, a second turn's subagent is refused while
// the first's runs, and gets it once that one ended.
func TestSubagentSlotsShared(t *testing.T) {
	release := make(chan struct{})
	started := make(chan struct{}, 2)
	srv := modeltest.NewFunc(func(r modeltest.Request) modeltest.Reply {
		started <- struct{}{}
		<-release
		return modeltest.Text("done", 64)
	})
	defer srv.Close()
	slots := &SubagentSlots{Max: 1}
	ws := &memWorkspace{files: map[string]string{}}
	first, sub1, ctx1 := parentTurn(t, srv.URL, ws, []string{"read", "subagent"})
	second, sub2, ctx2 := parentTurn(t, srv.URL, ws, []string{"read", "subagent"})
	sub1.Slots, sub2.Slots = slots, slots
	call := tools.ToolUse{Tool: "subagent", Content: "wait"}
	done := make(chan error, 1)
	go func() { _, err := first.Runner.RunTool(ctx1, call); done <- err }()
	<-started
	if _, err := second.Runner.RunTool(ctx2, call); err == nil || !strings.Contains(err.Error(), "1 subagent is running already") {
		t.Errorf("the second turn's subagent: %v", err)
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if out, err := second.Runner.RunTool(ctx2, call); err != nil || !strings.Contains(out, "Subagent 1 answered") {
		t.Errorf("after the first ended: %q, %v", out, err)
	}
}
