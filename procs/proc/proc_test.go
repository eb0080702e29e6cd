//go:build linux

package proc

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// helperEnv makes TestHelperServer act as a server that starts children
// through a Guard and then dies; its value is the folder it works in.
const helperEnv = "AGENTLS_PROC_TEST_SERVER"

// The scripts the helper server starts, each as a session of its own,
// and the pid files they write: the leader, and what it leaves running.
var helperChildren = []struct{ script, pids string }{
	// A background job in the leader's group, like `cmd &` in the shell.
	{"echo $$ > bg-leader.pid; sleep 300 & echo $! > bg-sleep.pid; wait", "bg-leader.pid bg-sleep.pid"},
	// Job control puts the job in a group of its own, in the same
	// session, like an interactive shell in a pty.
	{"set -m; sleep 300 & echo $! > jc-sleep.pid; echo $$ > jc-leader.pid; wait", "jc-leader.pid jc-sleep.pid"},
	// A leader that has exited, not yet reaped, and left a grandchild.
	{"sleep 300 & echo $! > exited-sleep.pid; echo $$ > exited-leader.pid", "exited-leader.pid exited-sleep.pid"},
	// A grandchild that ignores SIGHUP and SIGTERM.
	{"echo $$ > nohup-leader.pid; trap '' HUP TERM; (trap '' HUP TERM; exec sleep 300) & echo $! > nohup-sleep.pid; wait", "nohup-leader.pid nohup-sleep.pid"},
}

// TestHelperServer is the dying server of TestNothingOutlivesTheServer.
func TestHelperServer(t *testing.T) {
	dir := os.Getenv(helperEnv)
	if dir == "" {
		t.Skip("only run by TestNothingOutlivesTheServer")
	}
	g := NewGuard()
	for _, c := range helperChildren {
		cmd := exec.Command("bash", "-c", c.script)
		cmd.Dir = dir
		if _, err := g.Start(cmd, nil); err != nil {
			t.Fatal(err)
		}
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "panic-now")); err == nil {
			// On another goroutine: no deferred function runs.
			go func() { panic("the server's last words") }()
			select {}
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestNothingOutlivesTheServer is the attack: the server dies without
// closing anything — SIGKILLed, or panicking — while its children run
// and have children of their own; every one of them must die too.
func TestNothingOutlivesTheServer(t *testing.T) {
	var names []string
	for _, c := range helperChildren {
		names = append(names, strings.Fields(c.pids)...)
	}
	for _, death := range []string{"sigkill", "panic"} {
		t.Run(death, func(t *testing.T) {
			dir := t.TempDir()
			server := exec.Command(os.Args[0], "-test.run=^TestHelperServer$")
			server.Env = append(os.Environ(), helperEnv+"="+dir)
			var out lockedBuffer
			server.Stdout, server.Stderr = &out, &out
			if err := server.Start(); err != nil {
				t.Fatal(err)
			}
			exited := make(chan struct{})
			go func() { server.Wait(); close(exited) }()
			t.Cleanup(func() { server.Process.Kill(); <-exited })

			pids := awaitPids(t, dir, names, exited, &out)
			t.Cleanup(func() { killAll(pids) })
			if death == "sigkill" {
				server.Process.Signal(syscall.SIGKILL)
			} else {
				os.WriteFile(filepath.Join(dir, "panic-now"), nil, 0o600)
			}
			<-exited
			if death == "panic" && !strings.Contains(out.String(), "the server's last words") {
				t.Fatalf("the server did not panic:\n%s", out.String())
			}
			awaitGone(t, pids)
		})
	}
}

// TestPdeathsigThreadChurn is the attack on Pdeathsig itself: it fires
// when the thread that forked the child ends, and any goroutine that
// exits while locked to its thread ends that thread (a library that locks
// a thread for a syscall and forgets to unlock it). Children started
// during such churn must live on. Without Start's locked thread, most
// runs lose one of the 20 children; the test cannot be certain to.
func TestPdeathsigThreadChurn(t *testing.T) {
	g := NewGuard()
	t.Cleanup(func() { g.Close() })
	stop := make(chan struct{})
	var churn sync.WaitGroup
	for range 2 {
		churn.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				done := make(chan struct{})
				go func() {
					runtime.LockOSThread() // and exit locked: the runtime ends the thread
					close(done)
				}()
				<-done
			}
		})
	}
	var procs []*Process
	for range 20 {
		p, err := g.Start(exec.Command("sleep", "300"), nil)
		if err != nil {
			t.Fatal(err)
		}
		procs = append(procs, p)
		runtime.Gosched()
	}
	time.Sleep(100 * time.Millisecond) // more churn after the last start
	close(stop)
	churn.Wait()
	// A child killed by Pdeathsig has exited, or is about to.
	for _, p := range procs {
		select {
		case <-p.Exited():
			t.Errorf("pid %d died with a thread of ours: %+v", p.Pid(), p.ExitStatus())
		case <-time.After(20 * time.Millisecond):
		}
	}
	for _, p := range procs {
		p.Kill()
		p.Reap()
	}
}

// TestCloseKillsUnreaped: what the owner never reaped dies when the Guard
// closes, also a session the watchdog learned of only after it had been
// killed and replaced.
func TestCloseKillsUnreaped(t *testing.T) {
	g := NewGuard()
	first, err := g.Start(exec.Command("sleep", "300"), nil)
	if err != nil {
		t.Fatal(err)
	}
	// The watchdog dies; the next watch starts another and tells it both.
	g.mu.Lock()
	g.dog.cmd.Process.Kill()
	<-g.dog.done
	g.mu.Unlock()
	second, err := g.Start(exec.Command("sleep", "300"), nil)
	if err != nil {
		t.Fatal(err)
	}
	g.Close()
	for _, p := range []*Process{first, second} {
		select {
		case <-p.Exited():
		case <-time.After(10 * time.Second):
			t.Fatalf("pid %d outlived the guard's Close", p.Pid())
		}
		if st := p.ExitStatus(); st.Signal != syscall.SIGKILL {
			t.Errorf("pid %d ended %+v, want SIGKILL", p.Pid(), st)
		}
		p.Reap()
	}
	if _, err := g.Start(exec.Command("true"), nil); err == nil {
		t.Error("Start after Close succeeded")
	}
}

// TestWatchdogForgetsReaped: a session reaped normally is no longer the
// watchdog's, so its id, free again, is never signalled on our death.
func TestWatchdogForgetsReaped(t *testing.T) {
	start := func() *exec.Cmd {
		cmd := exec.Command("sleep", "300")
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
		return cmd
	}
	kept, forgotten := start(), start()
	in := fmt.Sprintf("+%d\n+%d\n-%d\n+1\n-x\n", kept.Process.Pid, forgotten.Process.Pid, forgotten.Process.Pid)
	runWatchdog(strings.NewReader(in))
	if err := kept.Wait(); err == nil || !strings.Contains(err.Error(), "killed") {
		t.Errorf("the watched session ended with %v, want killed", err)
	}
	if err := forgotten.Process.Signal(syscall.Signal(0)); err != nil {
		t.Errorf("the forgotten session was killed too: %v", err)
	}
}

func TestReap(t *testing.T) {
	tests := []struct {
		name   string
		script string
		want   ExitStatus
	}{
		{"exit code", "exit 3", ExitStatus{Code: 3}},
		{"signal", "kill -TERM $$", ExitStatus{Code: -1, Signal: syscall.SIGTERM}},
		{"leftover dies", "sleep 300 & echo $! > sleep.pid; exit 0", ExitStatus{Code: 0}},
		{"leftover in its own group dies", "set -m; sleep 300 & echo $! > sleep.pid; exit 0", ExitStatus{Code: 0}},
	}
	g := NewGuard()
	t.Cleanup(func() { g.Close() })
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			cmd := exec.Command("bash", "-c", tt.script)
			cmd.Dir = dir
			p, err := g.Start(cmd, nil)
			if err != nil {
				t.Fatal(err)
			}
			<-p.Exited()
			// Exited, not reaped: the id is still taken by the zombie.
			if _, err := os.Stat(fmt.Sprintf("/proc/%d", p.Pid())); runtime.GOOS == "linux" && err != nil {
				t.Errorf("the leader was reaped before Reap: %v", err)
			}
			if got := p.ExitStatus(); got != tt.want {
				t.Errorf("ExitStatus() = %+v, want %+v", got, tt.want)
			}
			var pids map[string]int
			if strings.Contains(tt.script, "sleep.pid") {
				pids = awaitPids(t, dir, []string{"sleep.pid"}, nil, nil)
				t.Cleanup(func() { killAll(pids) })
			}
			p.Reap()
			if err := p.Signal(syscall.SIGTERM); err != os.ErrProcessDone {
				t.Errorf("Signal after Reap = %v, want os.ErrProcessDone", err)
			}
			awaitGone(t, pids)
		})
	}
}

// awaitPids waits until every named file in dir holds a pid and returns
// them; it fails if the server exits first or a minute passes.
func awaitPids(t *testing.T, dir string, names []string, exited <-chan struct{}, out *lockedBuffer) map[string]int {
	t.Helper()
	pids := map[string]int{}
	for deadline := time.Now().Add(time.Minute); len(pids) < len(names); {
		for _, name := range names {
			b, err := os.ReadFile(filepath.Join(dir, name))
			if err != nil || !bytes.HasSuffix(b, []byte("\n")) { // not yet written
				continue
			}
			if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
				pids[name] = pid
			}
		}
		select {
		case <-exited:
			t.Fatalf("the server exited first (have %v):\n%s", pids, out.String())
		case <-time.After(10 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("only %v of %v written", pids, names)
		}
	}
	return pids
}

// awaitGone waits until no process of pids runs, failing with those
// still running after 10 s.
func awaitGone(t *testing.T, pids map[string]int) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; {
		var alive []string
		for name, pid := range pids {
			if running(pid) {
				alive = append(alive, fmt.Sprintf("%s (pid %d)", name, pid))
			}
		}
		if len(alive) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("still running: %s", strings.Join(alive, ", "))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// running reports whether pid has not exited (a zombie has).
func running(pid int) bool {
	state := processState(pid)
	return state != "" && state != "Z" && state != "X"
}

// processState is the state letter in /proc/PID/stat, "" if there is none.
func processState(pid int) string {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return ""
	}
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return ""
	}
	f := bytes.Fields(stat[i+1:])
	if len(f) == 0 {
		return ""
	}
	return string(f[0])
}

func killAll(pids map[string]int) {
	for _, pid := range pids {
		if running(pid) {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

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
	if b == nil {
		return ""
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func TestParseStat(t *testing.T) {
	tests := []struct {
		name, stat string
		state      byte
		pgrp, sid  int
		ok         bool
	}{
		{"plain", "123 (sleep) S 1 120 110 0 -1 4194560", 'S', 120, 110, true},
		{"comm with spaces and parentheses", "7 (a) b (c) d) Z 1 7 7 0", 'Z', 7, 7, true},
		{"cut before the session's end", "7 (sleep) S 1 7 7", 0, 0, 0, false},
		{"no comm", "7 sleep S 1 7 7 0", 0, 0, 0, false},
		{"not a number", "7 (x) S 1 7x 7 0", 0, 0, 0, false},
		{"empty", "", 0, 0, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			state, pgrp, sid, ok := parseStat([]byte(tt.stat))
			if ok != tt.ok || ok && (state != tt.state || pgrp != tt.pgrp || sid != tt.sid) {
				t.Errorf("parseStat(%q) = %c %d %d %v, want %c %d %d %v", tt.stat, state, pgrp, sid, ok, tt.state, tt.pgrp, tt.sid, tt.ok)
			}
		})
	}
}
