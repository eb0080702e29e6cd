package lsp_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/agentls/agentls/agent/modeltest"
	"github.com/agentls/agentls/lsp/lsptest"
)

// TestSubagentEditUndoneWithTurn: a turn hands a rename to a subagent
// (allowed patch: the turn has it), whose patch goes through the turn's
// own send path: it reaches the editor's buffer, its call shows on the
// turn's progress nested under it, and undoing the parent turn undoes it.
func TestSubagentEditUndoneWithTurn(t *testing.T) {
	t.Parallel()
	srv := modeltest.New(
		modeltest.Text("A helper will do it.\n```subagent read patch\nIn a.go, rename the type Config to Settings.\n```\n", 16),
		modeltest.Text("```patch a.go\n<<<<<<< ORIGINAL\ntype Config struct{}\n=======\ntype Settings struct{}\n>>>>>>> UPDATED\n```\n", 16),
		modeltest.Text("Renamed it.", 16),
		modeltest.Text("The subagent renamed it.", 16),
	)
	defer srv.Close()
	root := writeFiles(t, files)
	e := lsptest.Start(t, root, lsptest.Neovim07(), lsptest.InitOptions(map[string]any{"model": "m", "baseUrl": srv.URL, "tools": []string{"read", "patch", "subagent"}}))
	e.OpenFile("a.go", "go")
	var started struct{ Turn int }
	if err := e.Call("workspace/executeCommand", map[string]any{"command": "agentls.ask", "arguments": []any{map[string]any{"prompt": "rename Config"}}}, &started); err != nil {
		t.Fatal(err)
	}
	turn := fmt.Sprintf("agent turn %d", started.Turn)
	e.Await(
		lsptest.ShownMessage(turn+" done", "The subagent renamed it."),
		lsptest.BufferContaining("a.go", "type Settings struct{}"),
	)
	var reports []string
	for _, p := range e.Progress() {
		if p.Kind == "report" {
			reports = append(reports, p.Message)
		}
	}
	if want := "subagent 1: step 1: patch a.go"; !strings.Contains(strings.Join(reports, "\n"), want) {
		t.Errorf("progress reports %q, want %q among them", reports, want)
	}
	if err := e.ExecuteCommand("agentls.turn.undo", map[string]any{"turn": started.Turn}); err != nil {
		t.Fatal(err)
	}
	e.Await(
		lsptest.ShownMessage("undone", turn),
		lsptest.BufferContent("a.go", files["a.go"]),
	)
}

// TestMorphThroughTurn: with applyModel set, a turn offers morph; the
// agent's lazy edit is merged by the apply model (a second fake server),
// checked, and lands in the editor's buffer as the turn's edit, undone
// with the turn. A hallucinated merge from the same apply model is
// refused and changes nothing.
func TestMorphThroughTurn(t *testing.T) {
	t.Parallel()
	const lazy = "```morph a.go\n// ... existing code ...\npackage p\n\n// Settings holds settings.\ntype Settings struct{}\n```\n"
	merged := strings.Replace(files["a.go"], "// Config holds settings.\ntype Config struct{}", "// Settings holds settings.\ntype Settings struct{}", 1)
	apply := modeltest.New(
		modeltest.Text(merged, 16),
		modeltest.Text("package p\n\n// Settings holds settings.\ntype Settings struct{}\n\nfunc Extra() {}\n", 16), // adds what the edit does not show
	)
	defer apply.Close()
	srv := modeltest.New(
		modeltest.Text(lazy, 16),
		modeltest.Text("Renamed.", 16),
		modeltest.Text(lazy, 16),
		modeltest.Text("Refused, so I stop.", 16),
	)
	defer srv.Close()
	root := writeFiles(t, files)
	e := lsptest.Start(t, root, lsptest.Neovim07(), lsptest.InitOptions(map[string]any{"model": "m", "baseUrl": srv.URL,
		"applyModel": map[string]any{"model": "morph-v3-fast", "baseUrl": apply.URL}}))
	e.OpenFile("a.go", "go")
	var started struct{ Turn int }
	if err := e.Call("workspace/executeCommand", map[string]any{"command": "agentls.ask", "arguments": []any{map[string]any{"prompt": "rename Config"}}}, &started); err != nil {
		t.Fatal(err)
	}
	turn := fmt.Sprintf("agent turn %d", started.Turn)
	e.Await(lsptest.ShownMessage(turn+" done", "Renamed."), lsptest.BufferContent("a.go", merged))
	if !strings.Contains(srv.Requests()[0].Body.Messages[0].Content, "## morph") {
		t.Error("the turn did not offer morph")
	}
	if err := e.ExecuteCommand("agentls.turn.undo", map[string]any{"turn": started.Turn}); err != nil {
		t.Fatal(err)
	}
	e.Await(lsptest.ShownMessage("undone", turn), lsptest.BufferContent("a.go", files["a.go"]))

	if err := e.Call("workspace/executeCommand", map[string]any{"command": "agentls.ask", "arguments": []any{map[string]any{"prompt": "rename Config"}}}, &started); err != nil {
		t.Fatal(err)
	}
	e.Await(lsptest.ShownMessage(fmt.Sprintf("agent turn %d done", started.Turn), "Refused, so I stop."))
	reqs := srv.Requests()
	told := reqs[3].Body.Messages[len(reqs[3].Body.Messages)-1].Content
	if !strings.Contains(told, "the apply model's merge was refused") || !strings.Contains(told, "+func Extra() {}") {
		t.Errorf("the model was told %q", told)
	}
	if got := e.Buffer("a.go"); got != files["a.go"] {
		t.Errorf("a refused merge changed a.go:\n%s", got)
	}
}

// TestSubagentCancel: the user cancels the turn while its subagent waits
// on the model: both stop (the model is asked nothing more), and the
// user is told the turn was cancelled.
func TestSubagentCancel(t *testing.T) {
	t.Parallel()
	childAsked := make(chan struct{})
	var once sync.Once
	srv := modeltest.NewFunc(func(r modeltest.Request) modeltest.Reply {
		for _, m := range r.Body.Messages {
			if strings.Contains(m.Content, "You are subagent 1") {
				once.Do(func() { close(childAsked) })
				return modeltest.Reply{Chunks: []modeltest.Chunk{{Text: "Looking"}}, Stall: true}
			}
		}
		return modeltest.Text("```subagent\nLook at every file.\n```\n", 16)
	})
	defer srv.Close()
	root := writeFiles(t, files)
	e := lsptest.Start(t, root, lsptest.VSCode(), lsptest.InitOptions(map[string]any{"model": "m", "baseUrl": srv.URL, "tools": []string{"read", "subagent"}}))
	e.ExecuteCommand("agentls.ask", map[string]any{"prompt": "look"})
	e.Await(lsptest.StartedWork("agentls: agent turn 1"))
	<-childAsked
	e.Cancel(e.WorkToken("agentls: agent turn 1"))
	e.Await(lsptest.ShownMessage("agent turn 1 cancelled: nothing was changed"), lsptest.CompletedWork("agentls: agent turn 1"))
	if n := len(srv.Requests()); n != 2 {
		t.Errorf("%d model requests, want the turn's and its subagent's", n)
	}
}
