package lsp_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/agent/modeltest"
	"github.com/agentls/agentls/lsp/lsptest"
)

// buildEchoServer builds tools/mcp's test MCP server (one tool, echo).
func buildEchoServer(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "echoserver")
	if out, err := exec.Command("go", "build", "-o", bin, "../tools/mcp/testdata/echoserver").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// TestMCPToolInTurn: the model calls a tool of the user's MCP server in
// an agent turn; the server is started by the turn, the call is put to
// the user like a command unless toolAllowlist allows it, the server's
// answer (or the user's refusal) comes back to the model, and the server
// is gone once the editor ends the session.
func TestMCPToolInTurn(t *testing.T) {
	bin := buildEchoServer(t)
	cases := []struct {
		name      string
		settings  map[string]any
		press     string
		wantAsked bool
		want      string // in what the model is told
	}{
		{name: "asked, run", press: "Run", wantAsked: true, want: "Result of e.echo:\necho: hello"},
		{name: "asked, skipped", press: "Skip", wantAsked: true, want: "the user declined to run e.echo"},
		{name: "allowlisted", settings: map[string]any{"toolAllowlist": []string{"e.*"}}, want: "Result of e.echo:\necho: hello"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := modeltest.New(
				modeltest.Text("Echoing.\n```e.echo\n{\"text\": \"hello\"}\n```\n\n", 9),
				modeltest.Text("Done echoing.", 9),
			)
			defer srv.Close()
			opts := map[string]any{"model": "m", "baseUrl": srv.URL, "mcpServers": map[string]any{"e": map[string]any{"command": bin}}}
			for k, v := range c.settings {
				opts[k] = v
			}
			root := writeFiles(t, files)
			e := lsptest.Start(t, root, lsptest.VSCode(), lsptest.InitOptions(opts), lsptest.Press(c.press))
			if err := e.ExecuteCommand("agentls.ask", map[string]any{"prompt": "echo hello"}); err != nil {
				t.Fatal(err)
			}
			e.Await(lsptest.ShownMessage("agent turn 1 done", "Done echoing."))
			reqs := srv.Requests()
			if len(reqs) != 2 {
				t.Fatalf("%d model calls", len(reqs))
			}
			sys := reqs[0].Body.Messages[0].Content
			msgs := reqs[1].Body.Messages
			told := msgs[len(msgs)-1].Content
			if !strings.Contains(sys, "## e.echo") {
				t.Errorf("e.echo is not offered in the system prompt")
			}
			if !strings.Contains(told, c.want) {
				t.Errorf("the model was told %q, want %q", told, c.want)
			}
			var asked []string
			for _, r := range e.MessageRequests() {
				if strings.Contains(r.Message, "e.echo") {
					asked = append(asked, r.Message)
				}
			}
			if (len(asked) > 0) != c.wantAsked {
				t.Errorf("asked %q, want asked %v", asked, c.wantAsked)
			}
			running := serverProcesses(t, bin)
			if len(running) != 1 {
				t.Errorf("%d echoserver processes run during the session", len(running))
			}
			e.Shutdown()
			if left := serverProcesses(t, bin); len(left) > 0 {
				t.Errorf("echoserver %v outlived the language server", left)
			}
		})
	}
}

// TestMCPServerLeftOut: a tools setting that names none of a server's
// tools does not start it, and says so (once: tools/mcp's
// TestSelectTurn); the model's block of it is text.
func TestMCPServerLeftOut(t *testing.T) {
	bin := buildEchoServer(t)
	srv := modeltest.New(modeltest.Text("```e.echo\n{\"text\": \"hello\"}\n```\n\n", 9), modeltest.Text("Again.", 9))
	defer srv.Close()
	opts := map[string]any{"model": "m", "baseUrl": srv.URL, "tools": []string{"read"}, "mcpServers": map[string]any{"e": map[string]any{"command": bin}}}
	e := lsptest.Start(t, writeFiles(t, files), lsptest.VSCode(), lsptest.InitOptions(opts))
	e.ExecuteCommand("agentls.ask", map[string]any{"prompt": "echo"})
	e.Await(lsptest.ShownMessage("agent turn 1 done"), lsptest.LoggedMessage(`MCP server e: the tools setting leaves all its tools out; add "e.*"`))
	e.ExecuteCommand("agentls.ask", map[string]any{"prompt": "echo"})
	e.Await(lsptest.ShownMessage("agent turn 2 done", "Again."))
	if sys := srv.Requests()[0].Body.Messages[0].Content; strings.Contains(sys, "e.echo") {
		t.Errorf("the left-out tool is offered")
	}
	if running := serverProcesses(t, bin); len(running) != 0 {
		t.Errorf("a server no turn offers was started: %v", running)
	}
}

// TestMCPServerThatCannotStart: a configured server whose program is
// missing does not stop the turn; the user is told why its tools are
// left out.
func TestMCPServerThatCannotStart(t *testing.T) {
	srv := modeltest.New(modeltest.Text("Nothing to do.", 9))
	defer srv.Close()
	opts := map[string]any{"model": "m", "baseUrl": srv.URL, "mcpServers": map[string]any{"gone": map[string]any{"command": "/nonexistent/mcp-server"}}}
	e := lsptest.Start(t, writeFiles(t, files), lsptest.VSCode(), lsptest.InitOptions(opts))
	e.ExecuteCommand("agentls.ask", map[string]any{"prompt": "hi"})
	e.Await(
		lsptest.ShownMessage("agent turn 1 done"),
		lsptest.LoggedMessage("MCP server gone did not start", "/nonexistent/mcp-server", "left out of this turn"),
	)
}

// serverProcesses are the pids of running processes of program bin
// (zombies, which hold nothing, left out).
func serverProcesses(t *testing.T, bin string) []int {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Skip("no /proc here")
	}
	var pids []int
	for _, d := range entries {
		pid, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		exe, err := os.Readlink(filepath.Join("/proc", d.Name(), "exe"))
		if err != nil || exe != bin {
			continue
		}
		pids = append(pids, pid)
	}
	return pids
}

// TestMCPNotInQuestions: an AI? question's turn only reads: it starts no
// MCP server, offers no MCP tool and warns of none (the one-time warning
// of a server the tools setting leaves out is still the next turn's).
func TestMCPNotInQuestions(t *testing.T) {
	bin := buildEchoServer(t)
	srv := modeltest.New(modeltest.Text("At start-up.", 50), modeltest.Text("Nothing.", 50))
	defer srv.Close()
	opts := map[string]any{"model": "m", "baseUrl": srv.URL, "tools": []string{"read"}, "mcpServers": map[string]any{"e": map[string]any{"command": bin}}, "toolAllowlist": []string{"e.*"}}
	e := lsptest.Start(t, writeFiles(t, files), lsptest.Neovim07(), lsptest.InitOptions(opts))
	e.OpenFile("a.go", "go")
	e.Type("a.go", "package p\n\n// when are settings read? AI?\ntype Config struct{}\n")
	action := findAction(e.CodeActions("a.go", protocol.Range{Start: protocol.Position{Line: 2}, End: protocol.Position{Line: 2}}), "Agent: answer")
	if action == nil {
		t.Fatal("no answer action")
	}
	e.RunCodeAction(*action)
	e.Await(lsptest.Diagnostics(lsptest.ForFile("a.go"), lsptest.WithMessage("At start-up.")))
	if sys := srv.Requests()[0].Body.Messages[0].Content; strings.Contains(sys, "e.echo") {
		t.Error("a question's turn was offered an MCP tool")
	}
	if running := serverProcesses(t, bin); len(running) != 0 {
		t.Errorf("a question started an MCP server: %v", running)
	}
	e.ExecuteCommand("agentls.ask", map[string]any{"prompt": "hi"})
	e.Await(lsptest.ShownMessage("agent turn 2 done"), lsptest.LoggedMessage("agent turn 2: MCP server e: the tools setting leaves all its tools out"))
}
