package lsp_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/agentls/agentls/lsp/lsptest"
	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/approval"
	"github.com/agentls/agentls/tools/shelltool"
)

// The attack: the server dies without running its Close — the editor
// SIGKILLs it, or a Go panic takes it down — while the agent's commands,
// jobs and terminal programs run. Every process they started, grandchildren
// in the background included, must die with it: nothing may go on running
// (a dev server holding a port, a `rm -rf` loop, a miner) with nobody left
// who knows about it.

// orphanHelperEnv makes TestOrphanHelper act as the dying server; its
// value is the folder the helper works in.
const orphanHelperEnv = "AGENTLS_TEST_ORPHAN_HELPER"

// orphanHelperMode says how the helper dies: "sigkill" (it waits for
// the test to kill it) or "panic".
const orphanHelperMode = "AGENTLS_TEST_ORPHAN_MODE"

// The pid files the helper's processes write, by what started them.
var helperPidFiles = []string{
	"shell.pid",       // the persistent bash of the shell tool
	"shell-sleep.pid", // `sleep 300 &` inside it
	"bg.pid",          // a `bg` job's bash -c
	"bg-sleep.pid",    // the job's own `sleep 300 &`
	"run.pid",         // an agentls.run job, through the LSP server
	"run-sleep.pid",   // its `sleep 300 &`
	"python.pid",      // the ipython tool's interpreter, in a pty
	"tmux.pid",        // an interactive bash in a tmux-tool pty
	"tmux-sleep.pid",  // its background job, in a process group of its own
}

// TestNothingOutlivesTheServer starts a helper server (this test binary,
// re-executed) that runs, through the real packages, a shell command that
// leaves `sleep 300 &` behind, a `bg` job and an agentls.run job that do
// the same, the ipython tool and an interactive bash in a tmux-tool pty
// with a background job; then kills it without Close (SIGKILL, or a panic)
// and waits for every one of those processes to be gone.
// Not in parallel: it waits under a deadline for processes to end, which
// other tests' servers on the same cores would slow.
func TestNothingOutlivesTheServer(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a helper server and waits for its processes")
	}
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("no python3 for the ipython tool")
	}
	for _, mode := range []string{"sigkill", "panic"} {
		t.Run(mode, func(t *testing.T) {
			dir := t.TempDir()
			cmd := exec.Command(os.Args[0], "-test.run=^TestOrphanHelper$", "-test.v")
			// The helper dies before its own cleanup: its temporary
			// folders go inside this test's, which are removed.
			cmd.Env = append(os.Environ(), orphanHelperEnv+"="+dir, orphanHelperMode+"="+mode, "TMPDIR="+t.TempDir())
			var out lockedBuffer
			cmd.Stdout, cmd.Stderr = &out, &out
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			exited := make(chan struct{})
			go func() { cmd.Wait(); close(exited) }()
			t.Cleanup(func() {
				cmd.Process.Kill()
				<-exited
			})
			pids := awaitPidFiles(t, dir, helperPidFiles, exited, &out)
			t.Cleanup(func() { killAll(pids) })
			for name, pid := range pids {
				if !processAlive(pid) {
					t.Fatalf("%s (pid %d) is not running before the server dies; helper output:\n%s", name, pid, out.String())
				}
			}
			if mode == "sigkill" {
				cmd.Process.Signal(syscall.SIGKILL)
			} else {
				os.WriteFile(filepath.Join(dir, "panic-now"), nil, 0o600)
			}
			select {
			case <-exited:
			case <-time.After(30 * time.Second):
				t.Fatalf("the helper server did not die; its output:\n%s", out.String())
			}
			if mode == "panic" && !strings.Contains(out.String(), "panic: the server's last words") {
				t.Fatalf("the helper did not panic; its output:\n%s", out.String())
			}
			assertAllGone(t, pids)
		})
	}
}

// TestNothingOutlivesTheBinary is the attack on the real server: agentls
// over stdio runs an agentls.run job that leaves `sleep 300 &` behind,
// then is SIGKILLed.
// Not in parallel: it waits under a deadline for processes to end, which
// other tests' servers on the same cores would slow.
func TestNothingOutlivesTheBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildAgentls(t)
	root := t.TempDir()
	cmd := exec.Command(bin, "--stdio")
	cmd.Env = append(os.Environ(), "XDG_STATE_HOME="+t.TempDir())
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr lockedBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() {
		io.Copy(io.Discard, stdout) // the server's answers are not looked at
		cmd.Wait()
		close(exited)
	}()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-exited
	})
	send := func(v any) {
		body, _ := json.Marshal(v)
		fmt.Fprintf(stdin, "Content-Length: %d\r\n\r\n%s", len(body), body)
	}
	send(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": map[string]any{"rootUri": "file://" + root, "capabilities": map[string]any{}}})
	send(map[string]any{"jsonrpc": "2.0", "method": "initialized", "params": map[string]any{}})
	send(map[string]any{"jsonrpc": "2.0", "id": 2, "method": "workspace/executeCommand", "params": map[string]any{
		"command":   "agentls.run",
		"arguments": []any{map[string]any{"command": "echo $$ > run.pid; sleep 300 & echo $! > run-sleep.pid; wait"}},
	}})
	pids := awaitPidFiles(t, root, []string{"run.pid", "run-sleep.pid"}, exited, &stderr)
	t.Cleanup(func() { killAll(pids) })
	cmd.Process.Signal(syscall.SIGKILL)
	<-exited
	assertAllGone(t, pids)
}

// TestOrphanHelper is the dying server of TestNothingOutlivesTheServer;
// it does nothing unless that test started it.
func TestOrphanHelper(t *testing.T) {
	dir := os.Getenv(orphanHelperEnv)
	if dir == "" {
		t.Skip("only run by TestNothingOutlivesTheServer")
	}
	ctx := context.Background()
	h, err := shelltool.New(shelltool.Options{Root: dir})
	if err != nil {
		t.Fatal(err)
	}
	run := func(tool, content string) {
		out, err := h.RunTool(ctx, tools.ToolUse{Tool: tool, Content: content}, approveAll{})
		if err != nil {
			t.Fatalf("%s %q: %v\n%s", tool, content, err, out)
		}
	}
	run("shell", "echo $$ > shell.pid; sleep 300 & echo $! > shell-sleep.pid")
	run("shell", "bg bash -c 'echo $$ > bg.pid; sleep 300 & echo $! > bg-sleep.pid; wait'")
	run("ipython", "import os; open('python.pid', 'w').write(str(os.getpid()) + '\\n')")
	// An interactive bash has job control: its background job goes to a
	// process group of its own, which signalling the session's group misses.
	run("tmux", "new-session bash --norc --noprofile")
	run("tmux", "send-keys 1 'echo $$ > tmux.pid && sleep 300 & echo $! > tmux-sleep.pid' Enter")

	// agentls.run, through a real server and its own host.
	e := lsptest.Start(t, dir, lsptest.VSCode())
	if err := e.ExecuteCommand("agentls.run", map[string]any{"command": "echo $$ > run.pid; sleep 300 & echo $! > run-sleep.pid; wait"}); err != nil {
		t.Fatal(err)
	}
	if os.Getenv(orphanHelperMode) == "panic" {
		for {
			if _, err := os.Stat(filepath.Join(dir, "panic-now")); err == nil {
				// A panic on another goroutine: no deferred Close runs.
				go func() { panic("the server's last words") }()
				select {}
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	select {} // until SIGKILL
}

type approveAll struct{}

func (approveAll) Confirm(context.Context, approval.Question) (approval.Answer, error) {
	return approval.Run, nil
}

// awaitPidFiles waits until every named file in dir holds a pid, and
// returns them; it fails if the server exits first or a minute passes.
func awaitPidFiles(t *testing.T, dir string, names []string, exited <-chan struct{}, out *lockedBuffer) map[string]int {
	t.Helper()
	pids := map[string]int{}
	deadline := time.Now().Add(time.Minute)
	for len(pids) < len(names) {
		for _, name := range names {
			if _, ok := pids[name]; ok {
				continue
			}
			b, err := os.ReadFile(filepath.Join(dir, name))
			if err != nil || !bytes.HasSuffix(b, []byte("\n")) { // not yet fully written
				continue
			}
			if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && pid > 0 {
				pids[name] = pid
			}
		}
		select {
		case <-exited:
			t.Fatalf("the server exited before its processes were up (have %v); its output:\n%s", pids, out.String())
		case <-time.After(10 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("only %v of %v written; output:\n%s", pids, names, out.String())
		}
	}
	return pids
}

// assertAllGone waits until none of pids is a live process, and fails
// naming those still running after 10 seconds.
func assertAllGone(t *testing.T, pids map[string]int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		var alive []string
		for name, pid := range pids {
			if processAlive(pid) {
				alive = append(alive, fmt.Sprintf("%s (pid %d: %s)", name, pid, cmdline(pid)))
			}
		}
		if len(alive) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("still running after the server died:\n  %s", strings.Join(alive, "\n  "))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// processAlive reports whether pid is a process that has not exited: a
// zombie is dead (nobody may reap it here, where pid 1 is no init).
func processAlive(pid int) bool {
	f, err := os.Open(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	defer f.Close()
	line, _ := bufio.NewReader(f).ReadString('\n')
	i := strings.LastIndexByte(line, ')')
	if i < 0 {
		return false
	}
	fields := strings.Fields(line[i+1:])
	return len(fields) > 0 && fields[0] != "Z" && fields[0] != "X"
}

func cmdline(pid int) string {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	return strings.TrimSpace(string(bytes.ReplaceAll(b, []byte{0}, []byte{' '})))
}

// lockedBuffer is a child's output, written by exec's copying goroutine
// while the test may read it.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// killAll ends what a failed test left running.
func killAll(pids map[string]int) {
	for _, pid := range pids {
		if processAlive(pid) {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}
