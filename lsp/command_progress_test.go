package lsp_test

import (
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/modeltest"
	"github.com/agentls/agentls/lsp/lsptest"
)

// TestCommandProgress: while an agent's command runs, its turn's progress
// says which ("step 1: running echo …") and then shows the output's last
// line: Helix shows progress text and a spinner, nothing else, for a
// whole `go test`.
func TestCommandProgress(t *testing.T) {
	t.Parallel()
	srv := modeltest.New(
		modeltest.Text("```shell\necho compiling-one\necho ok-two\n```\n\n", 16),
		modeltest.Text("Done.", 16),
	)
	defer srv.Close()
	root := writeFiles(t, files)
	e := lsptest.Start(t, root, lsptest.Helix(), lsptest.InitOptions(map[string]any{"model": "m", "baseUrl": srv.URL}))
	e.ExecuteCommand("agentls.ask", map[string]any{"prompt": "run it"})
	e.Await(lsptest.ShownMessage("agent turn 1 done"))
	var reports []string
	for _, p := range e.Progress() {
		if p.Kind == "report" {
			reports = append(reports, p.Message)
		}
	}
	running := func(m string) bool { return m == "step 1: running echo compiling-one …" }
	output := func(m string) bool {
		line, ok := strings.CutPrefix(m, "step 1: running echo compiling-one …: ")
		return ok && (line == "compiling-one" || line == "ok-two") // a line of its output
	}
	var sawRunning, sawOutput bool
	for _, m := range reports {
		sawRunning = sawRunning || running(m)
		sawOutput = sawOutput || (sawRunning && output(m))
	}
	if !sawRunning || !sawOutput {
		t.Errorf("progress reports %q: want the running command, then a line of its output", reports)
	}
}

// TestUnsavedNoteInFinalMessage: the warning that a command saw the disk
// without the buffers' unsaved changes is repeated in the turn's last
// message; Helix shows the warning for a moment and the turn's end over
// it.
func TestUnsavedNoteInFinalMessage(t *testing.T) {
	t.Parallel()
	srv := modeltest.New(
		modeltest.Text("```shell\ncat a.go\n```\n\n", 16),
		modeltest.Text("Done.", 16),
		modeltest.Text("Nothing to do.", 16),
	)
	defer srv.Close()
	root := writeFiles(t, files)
	e := lsptest.Start(t, root, lsptest.Helix(), lsptest.InitOptions(map[string]any{"model": "m", "baseUrl": srv.URL}))
	e.OpenFile("a.go", "go")
	e.Type("a.go", strings.Replace(e.Buffer("a.go"), "type Config", "type Settings", 1))
	e.ExecuteCommand("agentls.ask", map[string]any{"prompt": "show it"})
	e.Await(lsptest.ShownMessage("agent turn 1 done", "a.go has unsaved changes the agent's commands did not see"))

	// A turn whose commands saw the disk as the buffers are says nothing
	// of it.
	e.ExecuteCommand("agentls.ask", map[string]any{"prompt": "nothing to run"})
	e.Await(lsptest.ShownMessage("agent turn 2 done"), lsptest.NoShownMessage("agent turn 2 done", "unsaved"))
}
