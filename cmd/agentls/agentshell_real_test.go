//go:build unix

package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentls/agentls/agent/modeltest"
)

// Real Emacs agent-shell (github.com/xenodium/agent-shell, with its
// shell-maker and acp.el) driving `agentls acp`, like a person: Emacs runs
// in a tmux pane of its own (send-keys, capture-pane) with -Q and an init
// file that only adds the agent-shell folders to load-path and then holds
// the README's agent-shell block verbatim; this test binary is agentls on
// PATH, the fake model behind OPENAI_BASE_URL. agent-shell needs Emacs 29.1
// or newer, so it runs where AGENTLS_EMACS30 names such an emacs and
// AGENTLS_AGENT_SHELL the folders of agent-shell, shell-maker and acp.el
// (separated by the path list separator); it is skipped otherwise, unless
// AGENTLS_REQUIRE_AGENT_SHELL is set. CI has no such Emacs.

// agentShellDeadline bounds each wait on the screen: generous, the machine
// may be loaded; a pass never waits for it.
const agentShellDeadline = 60 * time.Second

// requireAgentShell returns the emacs to run and the folders to add to its
// load-path, and skips the test where they are not given.
func requireAgentShell(t *testing.T) (string, []string) {
	t.Helper()
	skip := func(why string) {
		t.Helper()
		if os.Getenv("AGENTLS_REQUIRE_AGENT_SHELL") != "" {
			t.Fatal(why + " but AGENTLS_REQUIRE_AGENT_SHELL is set")
		}
		t.Skip(why)
	}
	emacs, dirs := os.Getenv("AGENTLS_EMACS30"), os.Getenv("AGENTLS_AGENT_SHELL")
	if emacs == "" || dirs == "" {
		skip("AGENTLS_EMACS30=/path/to/emacs (29.1 or newer) and AGENTLS_AGENT_SHELL=agent-shell:shell-maker:acp.el folders run this test")
	}
	if _, err := os.Stat(emacs); err != nil {
		skip(fmt.Sprintf("AGENTLS_EMACS30: %v", err))
	}
	loadPath := filepath.SplitList(dirs)
	for _, dir := range loadPath {
		if _, err := os.Stat(dir); err != nil {
			skip(fmt.Sprintf("AGENTLS_AGENT_SHELL: %v", err))
		}
	}
	if _, err := exec.LookPath("tmux"); err != nil {
		skip("tmux is not installed (the test runs Emacs in a tmux pane)")
	}
	return emacs, loadPath
}

// agentShellModel writes hello.txt when asked to write, runs `touch made
// && cat hello.txt` when asked to run, and says "Done." or "Ran." when
// given the block's result.
func agentShellModel(req modeltest.Request) modeltest.Reply {
	last := req.Body.Messages[len(req.Body.Messages)-1].Content
	switch {
	case strings.HasPrefix(last, "Result of save"):
		return modeltest.Text("Done.", 3)
	case strings.HasPrefix(last, "Result of shell"):
		return modeltest.Text("Ran.", 3)
	case strings.Contains(last, "run"):
		return modeltest.Text("I will run it.\n\n```shell\ntouch made && cat hello.txt\n```\n", 6)
	}
	return modeltest.Text("I will write it.\n\n```save hello.txt\nhello from agentls\n```\n", 6)
}

// agentShellInit is the init file: load-path, agent-shell, no session
// picker (every start is a new session), acp.el's log of every message
// (M-x agentls-test-dump-logs writes it to logs, whole or not at all),
// then the README's block.
func agentShellInit(t *testing.T, loadPath []string, logs string) string {
	t.Helper()
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, _ := strings.Cut(string(readme), "**Emacs**, [agent-shell]")
	_, block, ok := strings.Cut(section, "```elisp\n")
	block, _, _ = strings.Cut(block, "```")
	if !ok || !strings.Contains(block, "agentls-shell") {
		t.Fatal("no elisp block with agentls-shell in the README's agent-shell set-up")
	}
	var b strings.Builder
	b.WriteString(";;; -*- lexical-binding: t -*-\n")
	for _, dir := range loadPath {
		fmt.Fprintf(&b, "(add-to-list 'load-path %q)\n", dir)
	}
	fmt.Fprintf(&b, `(require 'agent-shell)
(setq agent-shell-session-strategy 'new acp-logging-enabled t)
(defun agentls-test-dump-logs ()
  (interactive)
  (let ((file %q))
    (dolist (buffer (buffer-list))
      (when (string-match-p "acp" (buffer-name buffer))
        (with-current-buffer buffer
          (write-region nil nil (concat file ".part") t 'silent))))
    (rename-file (concat file ".part") file t)))
`, logs)
	b.WriteString(block)
	path := filepath.Join(t.TempDir(), "init.el")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// An emacsPane is one Emacs running in a tmux server of its own.
type emacsPane struct {
	t      *testing.T
	socket string
	logs   string // where agentls-test-dump-logs writes acp.el's log
	last   string
}

func (p *emacsPane) tmux(args ...string) string {
	p.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-S", p.socket}, args...)...).CombinedOutput()
	if err != nil {
		p.t.Fatalf("tmux %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

func (p *emacsPane) keys(keys ...string) {
	p.tmux(append([]string{"send-keys", "-t", "emacs"}, keys...)...)
}
func (p *emacsPane) typed(text string) { p.tmux("send-keys", "-t", "emacs", "-l", text) }

func (p *emacsPane) screen() string {
	out, err := exec.Command("tmux", "-S", p.socket, "capture-pane", "-p", "-t", "emacs").CombinedOutput()
	if err == nil {
		p.last = string(out)
	}
	return p.last
}

// await polls the screen until cond holds, and fails the test at the
// deadline, saying what it waited for, with the last screen.
func (p *emacsPane) await(what string, cond func(screen string) bool) string {
	p.t.Helper()
	deadline := time.Now().Add(agentShellDeadline)
	for {
		s := p.screen()
		if cond(s) {
			return s
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("timed out waiting for %s; the screen:\n%s", what, s)
		}
		time.Sleep(50 * time.Millisecond) // the polling interval, not a wait for something
	}
}

// acpLog is acp.el's log of every JSON-RPC message both ways and of
// agentls's stderr, as M-x agentls-test-dump-logs writes it, or false if
// it was not written in time.
func (p *emacsPane) acpLog() (string, bool) {
	os.Remove(p.logs)
	if err := exec.Command("tmux", "-S", p.socket, "send-keys", "-t", "emacs", "M-x", "agentls-test-dump-logs", "Enter").Run(); err != nil {
		return "", false
	}
	for deadline := time.Now().Add(agentShellDeadline); time.Now().Before(deadline); {
		if data, err := os.ReadFile(p.logs); err == nil {
			return string(data), true
		}
		time.Sleep(50 * time.Millisecond)
	}
	return "", false
}

func (p *emacsPane) awaitText(text string) string {
	p.t.Helper()
	return p.await(fmt.Sprintf("%q on the screen", text), func(s string) bool { return strings.Contains(s, text) })
}

// TestAgentShellReal: in agent-shell, M-x agentls-shell (the README's
// command) starts `agentls acp` (initialize, session/new) and shows its
// prompt; "write hello.txt" streams the model's reply, shows the save as an
// edit tool call and writes hello.txt through agent-shell's
// fs/write_text_file (Emacs saves it); "run it" asks for a command that is
// not on the allowlist in agent-shell's permission dialog: C-c C-c
// (Reject, and cancel the turn) runs nothing and the turn ends cancelled;
// asked again, "y" (Allow once) runs it, and its output and the model's
// last words are shown.
func TestAgentShellReal(t *testing.T) {
	emacs, loadPath := requireAgentShell(t)
	bin, err := exec.LookPath("agentls") // this test binary (TestMain)
	if err != nil {
		t.Fatal(err)
	}
	srv := modeltest.NewFunc(agentShellModel)
	defer srv.Close()
	root, _ := filepath.EvalSymlinks(t.TempDir())
	home := t.TempDir()
	dir := t.TempDir()
	logs := filepath.Join(dir, "acp.log")
	init := agentShellInit(t, loadPath, logs)

	p := &emacsPane{t: t, socket: filepath.Join(dir, "tmux.sock"), logs: logs}
	conf := filepath.Join(dir, "tmux.conf")
	if err := os.WriteFile(conf, []byte("set -g remain-on-exit on\nset -g status off\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("tmux", "-S", p.socket, "-f", conf, "new-session", "-d", "-s", "emacs", "-x", "160", "-y", "50", "-c", root,
		emacs, "-nw", "-Q", "-l", init)
	cmd.Env = append(processEnv(func(k string) string {
		return map[string]string{"XDG_STATE_HOME": filepath.Join(home, "state"), "XDG_CONFIG_HOME": filepath.Join(home, "config")}[k]
	}), "HOME="+home, "PATH="+filepath.Dir(bin)+string(os.PathListSeparator)+os.Getenv("PATH"),
		"OPENAI_BASE_URL="+srv.URL, "OPENAI_API_KEY=test-key", "AGENTLS_MODEL=agent-shell-test-model", "TERM=xterm-256color")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("tmux new-session: %v\n%s", err, out)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("the last screen:\n%s", p.screen())
			// C-g first, on its own: a quit drops the keys typed ahead of it.
			exec.Command("tmux", "-S", p.socket, "send-keys", "-t", "emacs", "C-g").Run()
			for deadline := time.Now().Add(10 * time.Second); !strings.Contains(p.screen(), "Quit") && time.Now().Before(deadline); {
				time.Sleep(50 * time.Millisecond)
			}
			if data, ok := p.acpLog(); ok {
				t.Logf("acp.el's log:\n%s", data[max(0, len(data)-30000):])
			}
		}
		// Emacs still writes in HOME as it exits (transient's history):
		// the temporary folders go once it is gone.
		out, _ := exec.Command("tmux", "-S", p.socket, "display-message", "-p", "-t", "emacs", "#{pane_pid}").Output()
		pid, _ := strconv.Atoi(strings.TrimSpace(string(out)))
		exec.Command("tmux", "-S", p.socket, "kill-server").Run()
		for deadline := time.Now().Add(10 * time.Second); pid > 0 && syscall.Kill(pid, 0) == nil && time.Now().Before(deadline); {
			time.Sleep(50 * time.Millisecond)
		}
	})
	p.awaitText("*scratch*")

	p.keys("M-x")
	p.typed("agentls-shell")
	p.keys("Enter")
	// initialize and session/new answered: the start block is ticked, the
	// config options agentls offers are listed, and the prompt is shown.
	p.await("the agentls shell ready", func(s string) bool {
		return strings.Contains(s, "✓ Starting agent") && strings.Contains(s, "Available config options") && strings.Contains(s, "❯")
	})

	p.typed("write hello.txt")
	p.keys("Enter")
	s := p.awaitText("Done.")
	for _, want := range []string{"I will write it.", "Edited a file"} {
		if !strings.Contains(s, want) {
			t.Errorf("the screen has no %q:\n%s", want, s)
		}
	}
	// agent-shell wrote it (fs/write_text_file) and saved the buffer.
	if data, err := os.ReadFile(filepath.Join(root, "hello.txt")); err != nil || string(data) != "hello from agentls\n" {
		t.Fatalf("hello.txt: %q, %v", data, err)
	}

	// Rejected: agent-shell's C-c C-c answers the question "Reject" and
	// cancels the turn (session/cancel); the prompt ends cancelled and
	// nothing ran.
	p.typed("run it")
	p.keys("Enter")
	p.awaitText("Press RET or y to Allow once")
	p.keys("C-c", "C-c")
	p.awaitText("Cancelled")
	if _, err := os.Stat(filepath.Join(root, "made")); err == nil {
		t.Fatal("the rejected command ran")
	}

	// Allowed: it runs.
	p.typed("run it")
	p.keys("Enter")
	p.await("the permission dialog with its buttons", func(s string) bool {
		for _, want := range []string{"Tool Permission", "touch made && cat hello.txt", "Allow once (y)", "Reject", "Always allow touch made (!)"} {
			if !strings.Contains(s, want) {
				return false
			}
		}
		return true
	})
	if _, err := os.Stat(filepath.Join(root, "made")); err == nil {
		t.Fatal("the command ran before it was allowed")
	}
	// agent-shell puts the cursor on the first button and says so.
	p.awaitText("Press RET or y to Allow once")
	p.keys("y")
	p.awaitText("Ran.")
	if _, err := os.Stat(filepath.Join(root, "made")); err != nil {
		t.Fatalf("the allowed command did not run: %v", err)
	}
	// The call's output, in its folded group: search back for it, open it.
	p.keys("C-r")
	p.typed("Ran a command")
	p.keys("Enter")
	p.keys("Enter")
	t.Logf("the last screen:\n%s", p.awaitText("stdout: `hello from agentls`"))

	// What went over the wire, as acp.el logged it: the write, the
	// questions, the cancel and its answer, and three tool calls with
	// three ids (an id is the session's: agent-shell keeps a session's
	// calls by id, and merged a reused one into the earlier call).
	log, ok := p.acpLog()
	if !ok {
		t.Fatal("acp.el's log was not written")
	}
	for _, want := range []string{`"method":"fs/write_text_file"`, `"method":"session/request_permission"`, `"method":"session/cancel"`, `"stopReason":"cancelled"`} {
		if !strings.Contains(log, want) {
			t.Errorf("acp.el's log has no %s", want)
		}
	}
	ids := map[string]bool{}
	for _, line := range strings.Split(log, "\n") {
		var msg struct {
			Params struct {
				Update struct {
					SessionUpdate string `json:"sessionUpdate"`
					ToolCallID    string `json:"toolCallId"`
				}
			}
		}
		if json.Unmarshal([]byte(line), &msg) == nil && msg.Params.Update.SessionUpdate == "tool_call" {
			ids[msg.Params.Update.ToolCallID] = true
		}
	}
	if len(ids) != 3 {
		t.Errorf("tool call ids %v, want 3 different ones", ids)
	}
}
