package lsp_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/agent/modeltest"
	"github.com/agentls/agentls/lsp/lsptest"
	"github.com/agentls/agentls/settings"
)

// shellTurn scripts a model that runs one shell block and then says done.
func shellTurn(script string) *modeltest.Server {
	return modeltest.New(
		modeltest.Text("Running it.\n```shell\n"+script+"\n```\n\n", 16),
		modeltest.Text("Done.", 16),
	)
}

// askAbout starts a turn about a.go's first lines, so its approvals show
// there.
func askAbout(t *testing.T, e *lsptest.Editor, prompt string) {
	t.Helper()
	r := protocol.Range{End: protocol.Position{Line: 2}}
	if err := e.ExecuteCommand("agentls.ask", map[string]any{"prompt": prompt, "uri": "file://" + filepath.Join(e.Root, "a.go"), "range": r}); err != nil {
		t.Fatal(err)
	}
}

// TestShellApproval: a command that is not on the allowlist waits for the
// user: buttons where the editor has them (Neovim, VS Code), a
// pending-approval diagnostic with code actions where it has not (Helix).
// Approved, it runs; skipped, it does not, and the model is told.
func TestShellApproval(t *testing.T) {
	t.Parallel()
	for _, p := range lsptest.Profiles() {
		for _, approve := range []bool{true, false} {
			name := p.Name + map[bool]string{true: "/approve", false: "/deny"}[approve]
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				srv := shellTurn("touch made")
				defer srv.Close()
				root := writeFiles(t, files)
				button := map[bool]string{true: "Run", false: "Skip"}[approve]
				e := lsptest.Start(t, root, p, lsptest.InitOptions(map[string]any{"model": "m", "baseUrl": srv.URL}), lsptest.Press(button))
				e.OpenFile("a.go", "go")
				askAbout(t, e, "make a file")
				if p.Name == "helix" {
					e.Await(lsptest.Diagnostics(lsptest.ForFile("a.go"), lsptest.WithCode("pending-approval"), lsptest.WithMessage("touch made")))
					title := "Deny: do not run"
					if approve {
						title = "Approve: run `touch made`"
					}
					a := findAction(e.CodeActions("a.go", protocol.Range{Start: protocol.Position{Line: 0}, End: protocol.Position{Line: 0}}), title)
					if a == nil {
						t.Fatalf("no %q code action", title)
					}
					if err := e.RunCodeAction(*a); err != nil {
						t.Fatal(err)
					}
				}
				ran := lsptest.FileContent("made", "")
				if !approve {
					ran = lsptest.NoFile("made")
				}
				e.Await(lsptest.ShownMessage("agent turn 1 done"), ran, lsptest.NoDiagnostics(lsptest.ForFile("a.go"), lsptest.WithCode("pending-approval")))
				if p.Name != "helix" {
					// The question names the command.
					e.Await(lsptest.ShownMessageRequest("touch made"))
				}
				result := srv.Requests()[1].Body.Messages[3].Content
				if approve != !strings.Contains(result, "the user declined to run `touch made`") {
					t.Errorf("the model was told %q", result)
				}
			})
		}
	}
}

// TestShellApprovalTimeout: an approval nobody answers counts as a
// denial; agentls.approve for it then fails clearly.
func TestShellApprovalTimeout(t *testing.T) {
	t.Parallel()
	srv := shellTurn("touch made")
	defer srv.Close()
	root := writeFiles(t, files)
	e := lsptest.Start(t, root, lsptest.Helix(), lsptest.InitOptions(map[string]any{"model": "m", "baseUrl": srv.URL, "approvalTimeout": 1}))
	e.OpenFile("a.go", "go")
	askAbout(t, e, "make a file")
	e.Await(
		lsptest.ShownMessage("agent turn 1 done"),
		lsptest.ShownMessage("nobody answered", "touch made", "not done"),
		lsptest.NoFile("made"),
	)
	if err := e.ExecuteCommand("agentls.approve", map[string]any{"request": 1}); err == nil || !strings.Contains(err.Error(), "answered or timed out") {
		t.Errorf("late approve: %v", err)
	}
}

// TestShellStopTurn: "Stop turn" ends the turn without running the
// command or asking the model again.
func TestShellStopTurn(t *testing.T) {
	t.Parallel()
	srv := shellTurn("touch made")
	defer srv.Close()
	e := lsptest.Start(t, writeFiles(t, files), lsptest.VSCode(), lsptest.InitOptions(map[string]any{"model": "m", "baseUrl": srv.URL}), lsptest.Press("Stop turn"))
	e.ExecuteCommand("agentls.ask", map[string]any{"prompt": "make a file"})
	e.Await(lsptest.ShownMessage("agent turn 1 stopped"), lsptest.ShownMessage("the user stopped the turn"), lsptest.NoFile("made"))
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("%d model calls, want none after the stop", n)
	}
}

// brokenModule is a Go module whose a.go does not build.
var brokenModule = map[string]string{
	"go.mod": "module example.com/m\n\ngo 1.21\n",
	"a.go":   "package m\n\nfunc F() int {\n\treturn undefinedName\n}\n",
}

// TestShellDiagnostics: an agent's `go vet` that fails becomes
// diagnostics on the right line, from the command's output; the next run
// of the same command, after the fix, clears them.
func TestShellDiagnostics(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go is not installed")
	}
	srv := modeltest.New(
		modeltest.Text("```shell\ngo vet ./...\n```\n\n", 16),
		modeltest.Text("It fails.", 16),
		modeltest.Text("```shell\ngo vet ./...\n```\n\n", 16),
		modeltest.Text("It passes.", 16),
	)
	defer srv.Close()
	root := writeFiles(t, brokenModule)
	e := lsptest.Start(t, root, lsptest.Helix(), lsptest.InitOptions(map[string]any{"model": "m", "baseUrl": srv.URL, "commandAllowlist": []string{"go vet"}}))
	e.OpenFile("a.go", "go")
	e.ExecuteCommand("agentls.ask", map[string]any{"prompt": "vet it"})
	e.Await(
		lsptest.Diagnostics(lsptest.ForFile("a.go"), lsptest.WithSource("agentls: go vet"), lsptest.AtLine(3), lsptest.WithMessage("undefinedName")),
		lsptest.ShownMessage("agent turn 1 done"),
		lsptest.ShownMessage("agentls: go vet:"), // the summary
	)
	// Helix sends no diagnostics with a code action request when the
	// cursor is outside their range: "Agent: fix" is offered on the line
	// anyway.
	var fix bool
	for _, a := range e.CodeActionsFor("a.go", protocol.Range{Start: protocol.Position{Line: 3}, End: protocol.Position{Line: 3}}, nil) {
		fix = fix || strings.HasPrefix(a.Title, "Agent: fix — ")
	}
	if !fix {
		t.Error("no Agent: fix on the diagnostic's line when the editor sends no diagnostics")
	}
	for _, d := range e.Diagnostics("a.go") {
		if d.Code != nil {
			t.Errorf("a command's diagnostic has the code %#v: Helix shows an empty one as \"()\"", d.Code)
		}
	}
	if err := os.WriteFile(filepath.Join(root, "a.go"), []byte("package m\n\nfunc F() int {\n\treturn 1\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	e.Type("a.go", "package m\n\nfunc F() int {\n\treturn 1\n}\n")
	e.ExecuteCommand("agentls.ask", map[string]any{"prompt": "vet it again"})
	e.Await(lsptest.ShownMessage("agent turn 2 done"), lsptest.NoDiagnostics(lsptest.ForFile("a.go")))
}

// TestSaveBeforeShell: before the agent's command runs, buffers that
// differ from disk are saved by an editor plugin that can
// (agentls/saveDocuments); otherwise the model and the user are told which
// files the command did not see.
func TestSaveBeforeShell(t *testing.T) {
	t.Parallel()
	for _, saves := range []bool{true, false} {
		t.Run(map[bool]string{true: "plugin saves", false: "no plugin"}[saves], func(t *testing.T) {
			t.Parallel()
			srv := modeltest.New(
				modeltest.Text("```patch a.go\n<<<<<<< ORIGINAL\ntype Config struct{}\n=======\ntype Settings struct{}\n>>>>>>> UPDATED\n```\n\n", 16),
				modeltest.Text("```shell\ncat a.go\n```\n\n", 16),
				modeltest.Text("Done.", 16),
			)
			defer srv.Close()
			root := writeFiles(t, files)
			opts := []lsptest.Option{lsptest.InitOptions(map[string]any{"model": "m", "baseUrl": srv.URL, "saveDocuments": saves})}
			// Saved, the disk has the edit; not, the user is told.
			want := []lsptest.Expectation{lsptest.ShownMessage("agent turn 1 done"), lsptest.ShownMessage("a.go has unsaved changes")}
			if saves {
				opts = append(opts, lsptest.SavesDocuments())
				want = []lsptest.Expectation{lsptest.ShownMessage("agent turn 1 done"), lsptest.NoShownMessage("unsaved"),
					lsptest.FileContent("a.go", "package p\n\n// Config holds settings.\ntype Settings struct{}\n")}
			}
			e := lsptest.Start(t, root, lsptest.VSCode(), opts...)
			e.OpenFile("a.go", "go")
			e.ExecuteCommand("agentls.ask", map[string]any{"prompt": "rename and show"})
			e.Await(lsptest.AllOf(want...))
			result := srv.Requests()[2].Body.Messages[5].Content
			if saves {
				if !strings.Contains(result, "type Settings struct{}") || strings.Contains(result, "unsaved") {
					t.Errorf("saved: the command saw %q", result)
				}
				return
			}
			if !strings.Contains(result, "type Config struct{}") || !strings.Contains(result, "Note: a.go has unsaved changes") {
				t.Errorf("not saved: the command saw %q", result)
			}
		})
	}
}

// TestRunJobs: agentls.run starts a job shown as progress whose output
// becomes diagnostics; jobs.list, jobs.output and jobs.kill manage jobs;
// the progress's cancel button kills one; and every process dies with the
// server.
func TestRunJobs(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go is not installed")
	}
	root := writeFiles(t, brokenModule)
	e := lsptest.Start(t, root, lsptest.VSCode())
	e.OpenFile("a.go", "go")
	if err := e.ExecuteCommand("agentls.run", map[string]any{"command": "go build ./..."}); err != nil {
		t.Fatal(err)
	}
	e.Await(
		lsptest.Diagnostics(lsptest.ForFile("a.go"), lsptest.WithSource("agentls: go build"), lsptest.AtLine(3)),
		lsptest.CompletedWork("agentls: job 1: go build ./..."),
		lsptest.ShownMessage("agentls: job 1: go build"), // the summary
	)

	// A job whose progress is cancelled is killed.
	e.ExecuteCommand("agentls.run", map[string]any{"command": "echo $$ > pid2; sleep 300"})
	e.Await(lsptest.StartedWork("agentls: job 2: echo $$ > pid2; sleep 300"))
	pid2 := waitPid(t, filepath.Join(root, "pid2"))
	e.Cancel(e.WorkToken("agentls: job 2: echo $$ > pid2; sleep 300"))
	waitGone(t, pid2)

	// One killed with agentls.jobs.kill, one left running for the exit.
	e.ExecuteCommand("agentls.run", map[string]any{"command": "echo $$ > pid3; echo started; sleep 300"})
	e.ExecuteCommand("agentls.run", map[string]any{"command": "echo $$ > pid4; sleep 300"})
	pid3, pid4 := waitPid(t, filepath.Join(root, "pid3")), waitPid(t, filepath.Join(root, "pid4"))
	if err := e.ExecuteCommand("agentls.jobs.output", map[string]any{"job": 3}); err != nil {
		t.Errorf("jobs.output: %v", err)
	}
	if err := e.ExecuteCommand("agentls.jobs.output", map[string]any{"job": 99}); err == nil {
		t.Error("jobs.output of no job did not fail")
	}
	if err := e.ExecuteCommand("agentls.jobs.list", nil); err != nil {
		t.Errorf("jobs.list: %v", err)
	}
	e.ExecuteCommand("agentls.jobs.kill", map[string]any{"job": 3})
	waitGone(t, pid3)
	e.Await(lsptest.LoggedMessage("[job 3] started")) // the output channel has job 3's output
	e.Shutdown()
	waitGone(t, pid4)
}

// waitPid reads the pid a job wrote to file.
func waitPid(t *testing.T, file string) int {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		data, err := os.ReadFile(file)
		if pid, perr := strconv.Atoi(strings.TrimSpace(string(data))); err == nil && perr == nil {
			return pid
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("no pid in %s", file)
	return 0
}

// waitGone waits until process pid no longer exists.
func waitGone(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if err := syscall.Kill(pid, 0); err != nil {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Errorf("process %d is still alive", pid)
}

// TestWorkspaceSettings: a trusted .agentls/settings.json extends the
// allowlist (the command runs unasked); a broken one is reported.
func TestWorkspaceSettings(t *testing.T) {
	t.Parallel()
	// The trust granted here is read by the server from its state folder.
	env := map[string]string{"XDG_STATE_HOME": t.TempDir()}
	srv := shellTurn("touch made")
	defer srv.Close()
	content := `{"commandAllowlist": ["touch"]}`
	withSettings := map[string]string{".agentls/settings.json": content}
	for k, v := range files {
		withSettings[k] = v
	}
	root := writeFiles(t, withSettings)
	if err := (settings.Trust{Getenv: func(key string) string { return env[key] }}).Grant(root, []byte(content)); err != nil {
		t.Fatal(err)
	}
	e := lsptest.Start(t, root, lsptest.VSCode(), lsptest.InitOptions(map[string]any{"model": "m", "baseUrl": srv.URL}), lsptest.Env(env))
	e.ExecuteCommand("agentls.ask", map[string]any{"prompt": "make a file"})
	e.Await(lsptest.ShownMessage("agent turn 1 done"), lsptest.FileContent("made", ""))
	if asked := e.MessageRequests(); len(asked) != 0 {
		t.Errorf("asked about an allowlisted command: %v", asked)
	}

	broken := writeFiles(t, map[string]string{".agentls/settings.json": `{"shellTimeout": -1, "nope": 1}`})
	e2 := lsptest.Start(t, broken, lsptest.Helix())
	// Each problem names the file and the key.
	e2.Await(
		lsptest.ShownMessage(".agentls/settings.json", "agentls.shellTimeout"),
		lsptest.ShownMessage(".agentls/settings.json", "agentls.nope", "unknown setting"),
	)
}

// TestCancelDuringTools: cancelling a turn stops a running command (its
// processes die) and a pending approval, promptly, and the turn ends
// cancelled.
func TestCancelDuringTools(t *testing.T) {
	t.Parallel()
	t.Run("running command", func(t *testing.T) {
		t.Parallel()
		srv := shellTurn("echo $$ > pid; sleep 300")
		defer srv.Close()
		root := writeFiles(t, files)
		e := lsptest.Start(t, root, lsptest.VSCode(), lsptest.InitOptions(map[string]any{"model": "m", "baseUrl": srv.URL, "approvalPolicy": "allow"}))
		e.ExecuteCommand("agentls.ask", map[string]any{"prompt": "wait"})
		pid := waitPid(t, filepath.Join(root, "pid"))
		start := time.Now()
		e.ExecuteCommand("agentls.cancel", map[string]any{"turn": 1})
		e.Await(lsptest.ShownMessage("agent turn 1 cancelled"))
		waitGone(t, pid)
		t.Logf("cancelled in %s", time.Since(start))
		if len(srv.Requests()) != 1 {
			t.Errorf("the model was called again after the cancel")
		}
	})
	t.Run("pending approval", func(t *testing.T) {
		t.Parallel()
		srv := shellTurn("touch made")
		defer srv.Close()
		root := writeFiles(t, files)
		e := lsptest.Start(t, root, lsptest.Helix(), lsptest.InitOptions(map[string]any{"model": "m", "baseUrl": srv.URL}))
		e.OpenFile("a.go", "go")
		askAbout(t, e, "make a file")
		e.Await(lsptest.Diagnostics(lsptest.ForFile("a.go"), lsptest.WithCode("pending-approval")))
		e.ExecuteCommand("agentls.cancel", nil)
		e.Await(
			lsptest.ShownMessage("agent turn 1 cancelled"),
			lsptest.NoDiagnostics(lsptest.ForFile("a.go"), lsptest.WithCode("pending-approval")),
			lsptest.NoFile("made"),
		)
	})
}

// TestClientDeath: when the editor dies without shutdown, the server ends
// and takes its jobs with it.
func TestClientDeath(t *testing.T) {
	t.Parallel()
	root := writeFiles(t, files)
	e := lsptest.Start(t, root, lsptest.Helix())
	e.ExecuteCommand("agentls.run", map[string]any{"command": "echo $$ > pid; sleep 300"})
	pid := waitPid(t, filepath.Join(root, "pid"))
	e.Die()
	waitGone(t, pid)
}

// TestOutputLimits: the model reads the head and tail of a command's
// output that the outputLimits setting allows, and where the rest is.
func TestOutputLimits(t *testing.T) {
	t.Parallel()
	srv := shellTurn("seq 1 10000")
	defer srv.Close()
	e := lsptest.Start(t, writeFiles(t, files), lsptest.Helix(), lsptest.InitOptions(map[string]any{"model": "m", "baseUrl": srv.URL,
		"approvalPolicy": "allow", "outputLimits": map[string]int{"stdoutHead": 20, "stdoutTail": 20}}))
	e.ExecuteCommand("agentls.ask", map[string]any{"prompt": "count"})
	e.Await(lsptest.ShownMessage("agent turn 1 done"))
	result := srv.Requests()[1].Body.Messages[3].Content
	if !strings.Contains(result, "bytes cut, full output in ") || !strings.Contains(result, "\n10000") || strings.Contains(result, "\n5000\n") || len(result) > 600 {
		t.Errorf("the model read %d bytes: %q", len(result), result)
	}
}

// TestAlwaysKept: "Always" allows the command's pattern for the rest of
// the session and in the next one on the same workspace.
func TestAlwaysKept(t *testing.T) {
	t.Parallel()
	// The next session reads the answers this one keeps.
	state := lsptest.Env(map[string]string{"XDG_STATE_HOME": t.TempDir()})
	root := writeFiles(t, files)
	srv := modeltest.New(
		modeltest.Text("```shell\nmkdir -p one\n```\n\n", 16), modeltest.Text("Done.", 16),
		modeltest.Text("```shell\nmkdir -p two\n```\n\n", 16), modeltest.Text("Done.", 16),
	)
	defer srv.Close()
	e := lsptest.Start(t, root, lsptest.VSCode(), lsptest.InitOptions(map[string]any{"model": "m", "baseUrl": srv.URL}), lsptest.Press("Always run `mkdir`"), state)
	e.ExecuteCommand("agentls.ask", map[string]any{"prompt": "make one"})
	e.Await(lsptest.ShownMessage("agent turn 1 done"))
	if _, err := os.Stat(filepath.Join(root, "one")); err != nil {
		t.Fatalf("the command did not run (the question was %v): %v", e.MessageRequests(), err)
	}
	e.Shutdown()

	e2 := lsptest.Start(t, root, lsptest.VSCode(), lsptest.InitOptions(map[string]any{"model": "m", "baseUrl": srv.URL}), state)
	e2.ExecuteCommand("agentls.ask", map[string]any{"prompt": "make two"})
	// Turn numbers go on across restarts (the undo journal keeps them).
	e2.Await(lsptest.ShownMessage("agent turn 2 done"))
	if _, err := os.Stat(filepath.Join(root, "two")); err != nil {
		t.Errorf("two: %v", err)
	}
	if asked := e2.MessageRequests(); len(asked) != 0 {
		t.Errorf("asked again: %v", asked)
	}
}
