package jobs

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// noHang is how long anything may take before a test calls it a hang:
// generous, for a loaded CI machine running -race.
const noHang = 30 * time.Second

func newTestManager(t *testing.T, opts Options) *Manager {
	t.Helper()
	m := NewManager(opts)
	t.Cleanup(func() { m.Close() })
	return m
}

func start(t *testing.T, m *Manager, command string) Info {
	t.Helper()
	info, err := m.Start(context.Background(), command, "")
	if err != nil {
		t.Fatalf("Start(%q): %v", command, err)
	}
	return info
}

// waitEnded waits for job id to end, failing the test on a hang.
func waitEnded(t *testing.T, m *Manager, id int) Info {
	t.Helper()
	info, err := m.Wait(context.Background(), id, noHang)
	if err != nil {
		t.Fatalf("Wait(%d): %v", id, err)
	}
	if info.Running {
		t.Fatalf("job #%d (%q) still running after %v", id, info.Command, noHang)
	}
	return info
}

// eventually polls cond until it holds, failing the test after noHang.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(noHang)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting: %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// waitForLine returns the first whole line of job id's stdout once there
// is one (a pid a job printed, say).
func waitForLine(t *testing.T, m *Manager, id int) string {
	t.Helper()
	var line string
	eventually(t, fmt.Sprintf("job #%d to print a line", id), func() bool {
		out, err := m.Output(id, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		first, _, ok := strings.Cut(out.Stdout, "\n")
		line = first
		return ok
	})
	return line
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil {
		t.Fatalf("not a number: %q", s)
	}
	return n
}

// processGone reports whether pid has ended. A zombie counts as gone only
// when orphan is set: an orphaned grandchild is reaped by init (or
// whatever the container runs as pid 1), which is not ours to wait for;
// our own children must be reaped.
func processGone(pid int, orphan bool) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return true
	}
	if !orphan {
		return false
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	// pid (comm) state ...: comm may hold spaces and parentheses.
	rest := stat[bytes.LastIndexByte(stat, ')')+1:]
	return bytes.HasPrefix(bytes.TrimSpace(rest), []byte("Z"))
}

func TestStartOutputWait(t *testing.T) {
	t.Parallel()
	logDir := filepath.Join(t.TempDir(), "logs")
	m := newTestManager(t, Options{LogDir: logDir, Env: []string{"AGENTLS_TEST=custom", "TERM=xterm"}})
	dir := t.TempDir()
	info, err := m.Start(context.Background(), `printf 'dir=%s\n' "$PWD"; echo "pager=[$PAGER] git=$GIT_PAGER term=$TERM custom=$AGENTLS_TEST"; echo oops >&2; read -r x || echo "stdin closed"; exit 3`, dir)
	if err != nil {
		t.Fatal(err)
	}
	if info.ID != 1 || !info.Running || info.Dir != dir || info.Pid <= 0 {
		t.Errorf("Start = %+v", info)
	}
	if want := filepath.Join(logDir, "job-1.log"); info.LogPath != want {
		t.Errorf("LogPath = %q, want %q", info.LogPath, want)
	}
	info = waitEnded(t, m, 1)
	if info.ExitCode != 3 || info.Signal != "" || info.Killed {
		t.Errorf("ended = %+v, want exit code 3", info)
	}
	wantOut := "dir=" + dir + "\npager=[] git=cat term=xterm custom=custom\nstdin closed\n"
	out, err := m.Output(1, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if out.Stdout != wantOut || out.Stderr != "oops\n" || out.StdoutDropped != 0 || out.StderrDropped != 0 {
		t.Errorf("Output = %+v, want stdout %q, stderr %q", out, wantOut, "oops\n")
	}
	if info.StdoutBytes != int64(len(wantOut)) || info.StderrBytes != 5 {
		t.Errorf("byte counts %d, %d", info.StdoutBytes, info.StderrBytes)
	}
	log, err := os.ReadFile(info.LogPath)
	if err != nil {
		t.Fatal(err)
	}
	if len(log) != len(wantOut)+5 || !bytes.Contains(log, []byte("oops\n")) || !bytes.Contains(log, []byte("custom=custom")) {
		t.Errorf("log = %q", log)
	}
}

func TestExitStatus(t *testing.T) {
	t.Parallel()
	m := newTestManager(t, Options{})
	tests := []struct {
		command string
		code    int
		signal  string
	}{
		{"true", 0, ""},
		{"false", 1, ""},
		{"exit 7", 7, ""},
		{"exit 255", 255, ""},
		{"no-such-command-agentls", 127, ""},
		{"kill -TERM $$", 143, "SIGTERM"},
		{"kill -SEGV $$", 139, "SIGSEGV"},
		{"kill -KILL $$", 137, "SIGKILL"},
	}
	ids := make([]int, len(tests))
	for k, tt := range tests {
		ids[k] = start(t, m, tt.command).ID
	}
	for k, tt := range tests {
		info := waitEnded(t, m, ids[k])
		if info.ExitCode != tt.code || info.Signal != tt.signal || info.Killed {
			t.Errorf("%q: exit code %d, signal %q, killed %v; want %d, %q, false", tt.command, info.ExitCode, info.Signal, info.Killed, tt.code, tt.signal)
		}
	}
}

func TestListAndIDs(t *testing.T) {
	t.Parallel()
	m := newTestManager(t, Options{})
	if got := m.List(); len(got) != 0 {
		t.Fatalf("List() = %v", got)
	}
	a := start(t, m, "sleep 300")
	b := start(t, m, "echo done")
	c := start(t, m, "sleep 300")
	if a.ID != 1 || b.ID != 2 || c.ID != 3 {
		t.Fatalf("ids %d %d %d", a.ID, b.ID, c.ID)
	}
	waitEnded(t, m, 2)
	list := m.List()
	if len(list) != 3 {
		t.Fatalf("List() has %d jobs", len(list))
	}
	for k, want := range []bool{true, false, true} {
		if list[k].ID != k+1 || list[k].Running != want {
			t.Errorf("List()[%d] = #%d running %v, want #%d running %v", k, list[k].ID, list[k].Running, k+1, want)
		}
	}
	if _, ok := m.Info(4); ok {
		t.Error("Info(4) found a job")
	}
	for _, err := range []error{
		func() error { _, err := m.Output(9, 0, 0); return err }(),
		func() error { _, err := m.Wait(context.Background(), 9, 0); return err }(),
		func() error { _, err := m.Kill(context.Background(), 9); return err }(),
		m.Forget(9),
	} {
		if !errors.Is(err, ErrNoJob) {
			t.Errorf("unknown job: err = %v, want ErrNoJob", err)
		}
	}
}

func TestWaitTimeoutAndKill(t *testing.T) {
	t.Parallel()
	m := newTestManager(t, Options{})
	id := start(t, m, "echo started; sleep 300").ID
	info, err := m.Wait(context.Background(), id, 50*time.Millisecond)
	if err != nil || !info.Running {
		t.Fatalf("Wait with timeout = %+v, %v; want running", info, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if info, err := m.Wait(ctx, id, 0); !errors.Is(err, context.Canceled) || !info.Running {
		t.Fatalf("Wait with cancelled ctx = %+v, %v", info, err)
	}
	waitForLine(t, m, id)
	info, err = m.Kill(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	if info.Running || !info.Killed || info.Signal != "SIGTERM" || info.ExitCode != 143 {
		t.Errorf("Kill = %+v, want killed by SIGTERM", info)
	}
	if !processGone(info.Pid, false) {
		t.Errorf("pid %d still exists (not reaped?)", info.Pid)
	}
	// Killing again, or waiting, is harmless and tells the same.
	again, err := m.Kill(context.Background(), id)
	if err != nil || again.ExitCode != 143 || !again.Killed {
		t.Errorf("second Kill = %+v, %v", again, err)
	}
	// A job that ended on its own is not "killed".
	done := start(t, m, "true").ID
	waitEnded(t, m, done)
	if info, err := m.Kill(context.Background(), done); err != nil || info.Killed || info.ExitCode != 0 {
		t.Errorf("Kill of a finished job = %+v, %v", info, err)
	}
}

// TestKillTakesGrandchildren: the whole process group dies, also when the
// job ignores SIGTERM (SIGKILL follows after the grace).
func TestKillTakesGrandchildren(t *testing.T) {
	t.Parallel()
	m := newTestManager(t, Options{KillGrace: 300 * time.Millisecond})
	tests := []struct {
		name, command, signal string
	}{
		{"plain", "sleep 300 & echo $!; wait", "SIGTERM"},
		{"ignores SIGTERM", "trap '' TERM; sleep 300 & echo $!; while :; do sleep 0.05; done", "SIGKILL"},
		{"pipeline", "sleep 301 | cat & echo $!; wait", "SIGTERM"},
		// Job control moves the sleep to a group of its own in the job's
		// session, out of reach of the group's signals.
		{"job control", "set -m; sleep 300 & echo $!; wait", "SIGTERM"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			id := start(t, m, tt.command).ID
			grandchild := atoi(t, waitForLine(t, m, id))
			info, err := m.Kill(context.Background(), id)
			if err != nil {
				t.Fatal(err)
			}
			if info.Running || info.Signal != tt.signal || !info.Killed {
				t.Errorf("Kill = %+v, want killed by %s", info, tt.signal)
			}
			if !processGone(info.Pid, false) {
				t.Errorf("job pid %d still exists", info.Pid)
			}
			eventually(t, fmt.Sprintf("grandchild %d to die", grandchild), func() bool { return processGone(grandchild, true) })
		})
	}
}

// TestLeftoversDoNotHang: the main process exits but leaves something
// that holds its output pipes; the job still ends, and nothing is left.
func TestLeftoversDoNotHang(t *testing.T) {
	t.Parallel()
	m := newTestManager(t, Options{})
	t.Run("in the group", func(t *testing.T) {
		t.Parallel()
		id := start(t, m, "sleep 300 & echo $!").ID
		info := waitEnded(t, m, id)
		if info.ExitCode != 0 || info.Killed {
			t.Errorf("ended = %+v", info)
		}
		out, _ := m.Output(id, 0, 0)
		grandchild := atoi(t, out.Stdout)
		eventually(t, "the leftover sleep to die", func() bool { return processGone(grandchild, true) })
	})
	t.Run("in another group of the session", func(t *testing.T) {
		t.Parallel()
		id := start(t, m, "set -m; sleep 300 & echo $!").ID
		waitEnded(t, m, id)
		out, _ := m.Output(id, 0, 0)
		grandchild := atoi(t, out.Stdout)
		eventually(t, "the leftover sleep to die", func() bool { return processGone(grandchild, true) })
	})
	t.Run("outside the session", func(t *testing.T) {
		t.Parallel()
		// setsid puts the sleep beyond the group's reach: the pipes are
		// given up instead.
		id := start(t, m, "setsid sleep 300 & echo $!").ID
		info := waitEnded(t, m, id)
		out, _ := m.Output(id, 0, 0)
		escaped := atoi(t, out.Stdout)
		t.Cleanup(func() { syscall.Kill(escaped, syscall.SIGKILL) })
		if info.ExitCode != 0 {
			t.Errorf("ended = %+v", info)
		}
	})
	t.Run("output left behind but not the pipe", func(t *testing.T) {
		t.Parallel()
		id := start(t, m, "(sleep 300 >/dev/null 2>&1 &); sleep 300 </dev/null >/dev/null 2>&1 & echo $!").ID
		waitEnded(t, m, id)
		out, _ := m.Output(id, 0, 0)
		grandchild := atoi(t, out.Stdout)
		eventually(t, "the leftover sleep to die", func() bool { return processGone(grandchild, true) })
	})
}

func TestFinishedJobsStayReadable(t *testing.T) {
	t.Parallel()
	m := newTestManager(t, Options{})
	id := start(t, m, "echo kept").ID
	running := start(t, m, "sleep 300").ID
	waitEnded(t, m, id)
	for range 3 { // gptme purged finished jobs when listing; we do not
		m.List()
	}
	out, err := m.Output(id, 0, 0)
	if err != nil || out.Stdout != "kept\n" {
		t.Fatalf("Output of a finished job = %+v, %v", out, err)
	}
	if err := m.Forget(running); err == nil {
		t.Error("Forget of a running job succeeded")
	}
	if err := m.Forget(id); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Output(id, 0, 0); !errors.Is(err, ErrNoJob) {
		t.Errorf("Output after Forget: %v", err)
	}
	if next := start(t, m, "true").ID; next != 3 {
		t.Errorf("id after Forget = %d, want 3 (ids are never reused)", next)
	}
}

func TestOutputKeepsTheTail(t *testing.T) {
	t.Parallel()
	m := newTestManager(t, Options{KeepBytes: 1000, LogDir: t.TempDir()})
	// 2000 lines of "line NNNN\n" (10 bytes each) to stdout, "é" to stderr.
	info := start(t, m, `for i in $(seq 1000 2999); do echo "line $i"; done; printf 'é%.0s' $(seq 1 600) >&2`)
	info = waitEnded(t, m, info.ID)
	if info.StdoutBytes != 20000 || info.StderrBytes != 1200 {
		t.Fatalf("byte counts %d, %d", info.StdoutBytes, info.StderrBytes)
	}
	var want strings.Builder
	for i := 1000; i < 3000; i++ {
		fmt.Fprintf(&want, "line %d\n", i)
	}
	all := want.String()

	out, err := m.Output(info.ID, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if out.Stdout != all[len(all)-1000:] || out.StdoutDropped != 19000 {
		t.Errorf("Stdout tail %q, dropped %d", out.Stdout[:20], out.StdoutDropped)
	}
	// The ring kept 1000 of 1200 bytes of two-byte characters: an even
	// cut, so all 500 characters are whole.
	if out.Stderr != strings.Repeat("é", 500) || out.StderrDropped != 200 {
		t.Errorf("Stderr %d bytes, dropped %d", len(out.Stderr), out.StderrDropped)
	}

	out, err = m.Output(info.ID, 25, 5)
	if err != nil {
		t.Fatal(err)
	}
	if out.Stdout != all[len(all)-25:] {
		t.Errorf("Stdout last 25 = %q", out.Stdout)
	}
	if out.StdoutDropped != 20000-25 {
		t.Errorf("StdoutDropped = %d", out.StdoutDropped)
	}
	// Five bytes cut a character in two: the half goes.
	if out.Stderr != "éé" || out.StderrDropped != 1200-4 {
		t.Errorf("Stderr last 5 = %q, dropped %d", out.Stderr, out.StderrDropped)
	}
	log, err := os.ReadFile(info.LogPath)
	if err != nil {
		t.Fatal(err)
	}
	// The log interleaves the streams as they were read (the last stdout
	// chunk may follow the first stderr one): stdout is ASCII and stderr
	// not, so each can be taken back out of it whole.
	var logOut, logErr []byte
	for _, c := range log {
		if c < 0x80 {
			logOut = append(logOut, c)
		} else {
			logErr = append(logErr, c)
		}
	}
	if string(logOut) != all || string(logErr) != strings.Repeat("é", 600) {
		t.Errorf("log has %d bytes of stdout and %d of stderr, want all 20000 and 1200", len(logOut), len(logErr))
	}
}

// TestLiveOutput: the callback gets every byte, in order per stream, one
// call at a time, and Exited comes once, after the last of them.
func TestLiveOutput(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	got := map[int]*[2]bytes.Buffer{}
	exited := map[int]int{}
	m := newTestManager(t, Options{
		Output: func(id int, stream string, p []byte) {
			mu.Lock()
			if exited[id] > 0 {
				t.Errorf("output for job #%d after Exited", id)
			}
			if got[id] == nil {
				got[id] = new([2]bytes.Buffer)
			}
			bufs := got[id]
			mu.Unlock()
			// Unlocked: if two calls for one job overlapped, -race
			// would see it.
			switch stream {
			case Stdout:
				bufs[0].Write(p)
			case Stderr:
				bufs[1].Write(p)
			default:
				t.Errorf("stream %q", stream)
			}
		},
		Exited: func(info Info) {
			mu.Lock()
			defer mu.Unlock()
			if info.Running {
				t.Errorf("Exited with a running job: %+v", info)
			}
			exited[info.ID]++
		},
	})
	const jobs = 6
	var wg sync.WaitGroup
	for range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			info, err := m.Start(context.Background(), "seq 1 30000; seq 1 5000 >&2; echo end", "")
			if err != nil {
				t.Error(err)
				return
			}
			// Read while it runs, from several goroutines: -race checks.
			for {
				m.List()
				if _, err := m.Output(info.ID, 100, 100); err != nil {
					t.Error(err)
				}
				i, _ := m.Info(info.ID)
				if !i.Running {
					break
				}
				time.Sleep(time.Millisecond)
			}
			waitEnded(t, m, info.ID)
		}()
	}
	wg.Wait()
	var seqOut, seqErr strings.Builder
	for i := 1; i <= 30000; i++ {
		fmt.Fprintf(&seqOut, "%d\n", i)
	}
	seqOut.WriteString("end\n")
	for i := 1; i <= 5000; i++ {
		fmt.Fprintf(&seqErr, "%d\n", i)
	}
	mu.Lock()
	defer mu.Unlock()
	for id := 1; id <= jobs; id++ {
		if exited[id] != 1 {
			t.Errorf("job #%d: Exited called %d times", id, exited[id])
		}
		if got[id] == nil || got[id][0].String() != seqOut.String() || got[id][1].String() != seqErr.String() {
			t.Errorf("job #%d: live output differs from what it printed", id)
		}
	}
}

// TestSlowCallbackNeverBlocksTheJob: a callback that does not return
// holds back neither the job nor Output; it learns later what it missed.
func TestSlowCallbackNeverBlocksTheJob(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	var mu sync.Mutex
	var delivered, skipped int64
	m := newTestManager(t, Options{
		Output: func(id int, stream string, p []byte) {
			<-release
			mu.Lock()
			defer mu.Unlock()
			if stream == Note {
				var n int64
				fmt.Sscanf(string(p), "[%d bytes", &n)
				skipped += n
				return
			}
			delivered += int64(len(p))
		},
	})
	const size = 20 << 20
	id := start(t, m, fmt.Sprintf("head -c %d /dev/zero", size)).ID
	eventually(t, "the job to end while the callback is stuck", func() bool {
		info, _ := m.Info(id)
		return !info.Running
	})
	if info, _ := m.Info(id); info.StdoutBytes != size {
		t.Errorf("StdoutBytes = %d, want %d", info.StdoutBytes, size)
	}
	close(release)
	waitEnded(t, m, id)
	mu.Lock()
	defer mu.Unlock()
	if skipped == 0 || delivered+skipped != size || delivered > outputBacklog+readSize {
		t.Errorf("delivered %d + skipped %d, want %d with at most %d delivered", delivered, skipped, size, outputBacklog+readSize)
	}
}

func TestStartErrors(t *testing.T) {
	t.Parallel()
	m := newTestManager(t, Options{})
	missing := filepath.Join(t.TempDir(), "missing")
	if _, err := m.Start(context.Background(), "true", missing); err == nil || !strings.Contains(err.Error(), missing) {
		t.Errorf("Start in a missing dir: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := m.Start(ctx, "true", ""); !errors.Is(err, context.Canceled) {
		t.Errorf("Start with a cancelled ctx: %v", err)
	}
	blocked := filepath.Join(t.TempDir(), "file")
	os.WriteFile(blocked, nil, 0o644)
	logged := NewManager(Options{LogDir: blocked})
	defer logged.Close()
	if _, err := logged.Start(context.Background(), "true", ""); err == nil {
		t.Error("Start with a LogDir that is a file succeeded")
	}
	// A failed start uses no id.
	if info := start(t, m, "true"); info.ID != 1 {
		t.Errorf("first successful job has id %d", info.ID)
	}
}

// TestCloseLeavesNothing runs alone (not parallel) so that it can count
// the process's file descriptors and goroutines.
func TestCloseLeavesNothing(t *testing.T) {
	fdsBefore := openFDs(t)
	goroutinesBefore := runtime.NumGoroutine()

	m := NewManager(Options{LogDir: t.TempDir(), KillGrace: 300 * time.Millisecond, Output: func(int, string, []byte) {}})
	commands := []string{
		"sleep 300 & echo $!; wait",
		"trap '' TERM; sleep 300 & echo $!; while :; do sleep 0.05; done",
		"echo $$; exec sleep 300",
		"echo $$",
	}
	var pids []int
	for _, c := range commands {
		info := start(t, m, c)
		pids = append(pids, info.Pid, atoi(t, waitForLine(t, m, info.ID)))
	}
	waitEnded(t, m, 4)

	closed := make(chan error)
	go func() { closed <- m.Close() }()
	select {
	case err := <-closed:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(noHang):
		t.Fatal("Close hangs")
	}
	for _, info := range m.List() {
		if info.Running {
			t.Errorf("job #%d still running after Close", info.ID)
		}
		if !processGone(info.Pid, false) {
			t.Errorf("job #%d: pid %d still exists (a zombie?)", info.ID, info.Pid)
		}
		if out, err := m.Output(info.ID, 0, 0); err != nil || out.Stdout == "" {
			t.Errorf("job #%d unreadable after Close: %+v, %v", info.ID, out, err)
		}
	}
	for _, pid := range pids {
		eventually(t, fmt.Sprintf("pid %d to die", pid), func() bool { return processGone(pid, true) })
	}
	if _, err := m.Start(context.Background(), "true", ""); !errors.Is(err, ErrClosed) {
		t.Errorf("Start after Close: %v", err)
	}
	if err := m.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if fds := openFDs(t); fds > fdsBefore {
		t.Errorf("%d file descriptors open after Close, %d before", fds, fdsBefore)
	}
	eventually(t, "goroutines to end", func() bool { return runtime.NumGoroutine() <= goroutinesBefore })
}

func openFDs(t *testing.T) int {
	t.Helper()
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip("no /proc/self/fd")
	}
	return len(entries)
}

var gigabyte = flag.Bool("gigabyte", false, "TestHugeOutputStaysFlat prints 1 GB instead of 300 MB")

// TestHugeOutputStaysFlat: a job printing 300 MB (1 GB with -gigabyte)
// leaves the heap where it was, and its log gets every byte. 300 MB is
// 300 times the ring: anything kept per byte would show. (1 GB takes 5 s
// with -race on an idle 2-core machine, 20 s and more on a loaded one.)
func TestHugeOutputStaysFlat(t *testing.T) {
	if testing.Short() {
		t.Skip("prints 300 MB")
	}
	size := int64(300_000_000)
	if *gigabyte {
		size = 1_000_000_000
	}
	m := newTestManager(t, Options{LogDir: t.TempDir()})
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	before := ms.HeapInuse

	// 80-byte lines; yes is faster than `head -c N /dev/zero | tr '\0' x`.
	info := start(t, m, fmt.Sprintf("yes %s | head -c %d", strings.Repeat("x", 79), size))
	var peak uint64
	for {
		i, err := m.Wait(context.Background(), info.ID, 100*time.Millisecond)
		if err != nil {
			t.Fatal(err)
		}
		runtime.ReadMemStats(&ms)
		peak = max(peak, ms.HeapInuse)
		if !i.Running {
			info = i
			break
		}
		if time.Since(info.Started) > 5*noHang {
			t.Fatal("the output takes too long")
		}
	}
	t.Logf("%d MB in %v; heap in use %d MB before, %d MB at peak", size/1e6, info.Duration, before>>20, peak>>20)
	if info.StdoutBytes != size || info.ExitCode != 0 {
		t.Fatalf("ended %+v", info)
	}
	if growth := int64(peak) - int64(before); growth > 32<<20 {
		t.Errorf("heap grew by %d MB", growth>>20)
	}
	st, err := os.Stat(info.LogPath)
	if err != nil || st.Size() != size {
		t.Errorf("log: %v, %v bytes", err, st)
	}
	out, err := m.Output(info.ID, 0, 0)
	if err != nil || len(out.Stdout) != defaultKeepBytes || out.StdoutDropped != size-defaultKeepBytes || strings.Trim(out.Stdout, "x\n") != "" {
		t.Errorf("Output: %d bytes kept, %d dropped, %v", len(out.Stdout), out.StdoutDropped, err)
	}
}
