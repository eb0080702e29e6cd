package shell

import (
	"bytes"
	"context"
	"errors"
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

	"github.com/agentls/agentls/procs/proc"
)

// noHang bounds every wait in these tests: far above what any step needs
// on a loaded machine, only there to turn a hang into a failure.
const noHang = 30 * time.Second

func startSession(t testing.TB, opts Options) *Session {
	t.Helper()
	if opts.Dir == "" {
		opts.Dir = t.TempDir()
	}
	s, err := Start(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func mustRun(t testing.TB, s *Session, script string) *Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), noHang)
	defer cancel()
	res, err := s.Run(ctx, script)
	if err != nil {
		t.Fatalf("Run(%q): %v", script, err)
	}
	return res
}

// only returns the single command a script ran.
func only(t testing.TB, res *Result) Command {
	t.Helper()
	if len(res.Commands) != 1 || len(res.Skipped) != 0 {
		t.Fatalf("ran %d commands, skipped %q; want exactly one", len(res.Commands), res.Skipped)
	}
	return res.Commands[0]
}

func TestDirAndEnvPersist(t *testing.T) {
	root := t.TempDir()
	s := startSession(t, Options{Dir: root})
	if got := s.Dir(); got != root {
		t.Errorf("Dir() at start = %q, want %q", got, root)
	}
	mustRun(t, s, "mkdir sub && cd sub")
	want := filepath.Join(root, "sub")
	if got := s.Dir(); got != want {
		t.Errorf("Dir() after cd = %q, want %q", got, want)
	}
	if c := only(t, mustRun(t, s, "pwd")); c.Stdout != want+"\n" {
		t.Errorf("pwd printed %q, want %q", c.Stdout, want+"\n")
	}
	mustRun(t, s, "export AGENTLS_X=1")
	if c := only(t, mustRun(t, s, "echo $AGENTLS_X")); c.Stdout != "1\n" {
		t.Errorf("exported variable: got %q, want %q", c.Stdout, "1\n")
	}
	// Both in one script, on separate lines: two commands, same shell.
	res := mustRun(t, s, "cd ..\npwd")
	if len(res.Commands) != 2 || res.Commands[1].Stdout != root+"\n" {
		t.Errorf("cd then pwd: %+v", res.Commands)
	}
}

func TestEnvironment(t *testing.T) {
	s := startSession(t, Options{Env: []string{"AGENTLS_EXTRA=yes", "EDITOR=vi"}})
	c := only(t, mustRun(t, s, `echo "$GIT_PAGER,$PAGER,$TERM,$PYTHONUNBUFFERED,$AGENTLS_EXTRA,$EDITOR"`))
	if want := "cat,,dumb,1,yes,vi\n"; c.Stdout != want {
		t.Errorf("environment: got %q, want %q", c.Stdout, want)
	}
}

func TestCommandOutcomes(t *testing.T) {
	s := startSession(t, Options{})
	fake := newSentinel() // another command's sentinel: must be plain output here
	tests := []struct {
		script         string
		stdout, stderr string
		code           int
	}{
		{"true", "", "", 0},
		{"false", "", "", 1},
		{"(exit 7)", "", "", 7},
		{"printf abc", "abc", "", 0},
		{"printf 'abc\\n'", "abc\n", "", 0},
		{"printf 'abc\\n\\n'", "abc\n\n", "", 0},
		{"echo out; echo err >&2", "out\n", "err\n", 0},
		{"printf err >&2; exit_code=3; (exit $exit_code)", "", "err", 3},
		// stdin is /dev/null: these return at once instead of waiting.
		{"cat", "", "", 0},
		{"read line; echo $?", "1\n", "", 0},
		{"echo 'it''s'; echo \"$((1+2))\"", "its\n3\n", "", 0},
		{"cat <<'EOF'\n'quoted' $HOME\nEOF", "'quoted' $HOME\n", "", 0},
		{"f() { echo in f; }; f", "in f\n", "", 0},
		{"printf '\\nagentls0123<0 /tmp<agentls0123\\nafter\\n'", "\nagentls0123<0 /tmp<agentls0123\nafter\n", "", 0},
		{"printf '\\n%s<0 /<%s\\n' " + fake.token + " " + fake.token + "; echo after", string(fake.end) + "0 /<" + fake.token + "\nafter\n", "", 0},
		{"printf '" + fake.token + ">\\n'; echo x >&2", fake.token + ">\n", "x\n", 0},
	}
	for _, tt := range tests {
		c := only(t, mustRun(t, s, tt.script))
		if c.Stdout != tt.stdout || c.Stderr != tt.stderr || c.ExitCode != tt.code {
			t.Errorf("%q: got stdout %q stderr %q code %d, want %q %q %d",
				tt.script, c.Stdout, c.Stderr, c.ExitCode, tt.stdout, tt.stderr, tt.code)
		}
		if c.TimedOut || c.Interrupted || c.Restarted {
			t.Errorf("%q: timed out %v, interrupted %v, restarted %v", tt.script, c.TimedOut, c.Interrupted, c.Restarted)
		}
	}
}

func TestStopAtFirstFailure(t *testing.T) {
	s := startSession(t, Options{})
	res := mustRun(t, s, "echo a\nfalse\necho b\n# a comment\necho c && echo d")
	if len(res.Commands) != 2 || res.Commands[0].Stdout != "a\n" || res.Commands[1].ExitCode != 1 {
		t.Fatalf("ran %+v", res.Commands)
	}
	if want := []string{"echo b", "echo c && echo d"}; strings.Join(res.Skipped, "|") != strings.Join(want, "|") {
		t.Errorf("skipped %q, want %q", res.Skipped, want)
	}
	// `a; b` is one command: b runs although a failed, as in bash.
	c := only(t, mustRun(t, s, "false; echo still"))
	if c.Stdout != "still\n" || c.ExitCode != 0 {
		t.Errorf("false; echo still: %+v", c)
	}
}

func TestSyntaxErrorRunsNothing(t *testing.T) {
	s := startSession(t, Options{})
	_, err := s.Run(context.Background(), "echo ok\necho 'unterminated")
	var syntaxErr *SyntaxError
	if !errors.As(err, &syntaxErr) {
		t.Fatalf("Run with a syntax error: err = %v, want *SyntaxError", err)
	}
	if c := only(t, mustRun(t, s, "echo fine")); c.Stdout != "fine\n" {
		t.Errorf("after a syntax error: %q", c.Stdout)
	}
}

func TestShellExitRestarts(t *testing.T) {
	root := t.TempDir()
	s := startSession(t, Options{Dir: root})
	mustRun(t, s, "mkdir sub && cd sub && export AGENTLS_Y=1")
	res := mustRun(t, s, "echo bye; exit 3\necho not run")
	c := res.Commands[0]
	if c.ExitCode != 3 || !c.Restarted || c.Stdout != "bye\n" || len(res.Skipped) != 1 {
		t.Fatalf("exit 3: %+v, skipped %q", c, res.Skipped)
	}
	c = only(t, mustRun(t, s, `pwd; echo "[$AGENTLS_Y]"`))
	if want := filepath.Join(root, "sub") + "\n[]\n"; c.Stdout != want {
		t.Errorf("after restart: got %q, want %q (same directory, exports lost)", c.Stdout, want)
	}
}

func TestTimeoutKillsGrandchildren(t *testing.T) {
	root := t.TempDir()
	s := startSession(t, Options{Dir: root, Timeout: time.Second})
	mustRun(t, s, "mkdir sub && cd sub")
	c := only(t, mustRun(t, s, "bash -c 'sleep 300 & echo $!; sleep 300'"))
	if !c.TimedOut || c.ExitCode != ExitTimedOut || !c.Restarted {
		t.Fatalf("got %+v, want a timed-out command and a restarted shell", c)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(c.Stdout))
	if err != nil {
		t.Fatalf("output before the timeout: %q (want the grandchild's pid)", c.Stdout)
	}
	waitGone(t, pid)
	if got := only(t, mustRun(t, s, "pwd")).Stdout; got != filepath.Join(root, "sub")+"\n" {
		t.Errorf("after the timeout the shell is in %q, want the sub directory", got)
	}
	if msg := (&Result{Commands: []Command{c}}).Message(Limits{}); !strings.Contains(msg, "Command timed out (after 1.0s)") {
		t.Errorf("message: %s", msg)
	}
}

func TestCancel(t *testing.T) {
	started := make(chan struct{})
	var once sync.Once
	s := startSession(t, Options{Output: func(cmd int, stream string, p []byte) {
		if bytes.Contains(p, []byte("started")) {
			once.Do(func() { close(started) })
		}
	}})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		<-started
		cancel()
	}()
	res, err := s.Run(ctx, "echo started; sleep 300\necho never")
	if err != nil {
		t.Fatal(err)
	}
	c := res.Commands[0]
	if !c.Interrupted || c.ExitCode != ExitInterrupted || !c.Restarted || c.Stdout != "started\n" {
		t.Errorf("cancelled command: %+v", c)
	}
	if len(res.Skipped) != 1 {
		t.Errorf("skipped %q", res.Skipped)
	}
	if _, err := s.Run(ctx, "true"); !errors.Is(err, context.Canceled) {
		t.Errorf("Run with a done context: err = %v", err)
	}
	if c := only(t, mustRun(t, s, "echo again")); c.Stdout != "again\n" {
		t.Errorf("after cancel: %q", c.Stdout)
	}
}

func TestCloseLeavesNothing(t *testing.T) {
	goroutines := runtime.NumGoroutine()
	fds := countFDs(t)
	s, err := Start(context.Background(), Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	pids := []int{s.proc.proc.Pid()}
	for _, script := range []string{
		"sleep 1000 & echo $!",
		"(sleep 1000 & echo $!)",
		"bash -c 'trap \"\" TERM; sleep 1000 & echo $!' ", // ignores SIGTERM: needs the SIGKILL
		"bash -c 'set -m; sleep 1000 & echo $!'",          // job control: a group of its own
	} {
		c := only(t, mustRun(t, s, script))
		pid, err := strconv.Atoi(strings.TrimSpace(c.Stdout))
		if err != nil {
			t.Fatalf("%s printed %q", script, c.Stdout)
		}
		pids = append(pids, pid)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	for _, pid := range pids {
		waitGone(t, pid)
	}
	if err := s.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if _, err := s.Run(context.Background(), "true"); !errors.Is(err, ErrClosed) {
		t.Errorf("Run after Close: err = %v, want ErrClosed", err)
	}
	waitFor(t, "goroutines to end", func() bool { return runtime.NumGoroutine() <= goroutines })
	waitFor(t, "file descriptors to close", func() bool { return countFDs(t) <= fds })
}

// TestGivenGuardIsTheCallers: a session given a Guard (a host sharing one
// watchdog among its shell, jobs and terminals) leaves it open at Close.
func TestGivenGuardIsTheCallers(t *testing.T) {
	g := proc.NewGuard()
	t.Cleanup(func() { g.Close() })
	s, err := Start(context.Background(), Options{Dir: t.TempDir(), Guard: g})
	if err != nil {
		t.Fatal(err)
	}
	if c := only(t, mustRun(t, s, "echo hi")); c.Stdout != "hi\n" {
		t.Fatalf("got %q", c.Stdout)
	}
	s.Close()
	p, err := g.Start(exec.Command("true"), nil)
	if err != nil {
		t.Fatalf("the guard was closed with the session: %v", err)
	}
	p.Reap()
}

func TestCloseDuringRun(t *testing.T) {
	started := make(chan struct{})
	var once sync.Once
	s := startSession(t, Options{Output: func(cmd int, stream string, p []byte) {
		once.Do(func() { close(started) })
	}})
	type outcome struct {
		res *Result
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		res, err := s.Run(context.Background(), "echo started; sleep 300")
		done <- outcome{res, err}
	}()
	<-started
	s.Close()
	select {
	case o := <-done:
		if !errors.Is(o.err, ErrClosed) || o.res == nil || !o.res.Commands[0].Interrupted {
			t.Errorf("Run during Close: %+v, %v", o.res, o.err)
		}
	case <-time.After(noHang):
		t.Fatal("Run did not return after Close")
	}
}

func TestOutputCallbackAndLog(t *testing.T) {
	logDir := filepath.Join(t.TempDir(), "logs")
	var mu sync.Mutex
	got := map[string]*bytes.Buffer{"stdout": {}, "stderr": {}}
	s := startSession(t, Options{LogDir: logDir, Output: func(cmd int, stream string, p []byte) {
		mu.Lock()
		defer mu.Unlock()
		if cmd == 2 {
			got[stream].Write(p)
		}
	}})
	mustRun(t, s, "true")
	c := only(t, mustRun(t, s, "seq 1 3000; echo oops >&2"))
	mu.Lock()
	if got["stdout"].String() != c.Stdout || got["stderr"].String() != "oops\n" {
		t.Errorf("callback saw %d stdout bytes, stderr %q; the command printed %d, %q",
			got["stdout"].Len(), got["stderr"].String(), len(c.Stdout), c.Stderr)
	}
	mu.Unlock()
	if want := filepath.Join(logDir, "cmd-2.log"); c.LogPath != want {
		t.Errorf("LogPath = %q, want %q", c.LogPath, want)
	}
	log, err := os.ReadFile(c.LogPath)
	if err != nil {
		t.Fatal(err)
	}
	// The streams interleave in the log as they arrived.
	if stdout := strings.Replace(string(log), c.Stderr, "", 1); len(log) != len(c.Stdout)+len(c.Stderr) || stdout != c.Stdout {
		t.Errorf("log has %d bytes, want stdout and stderr, %d bytes", len(log), len(c.Stdout)+len(c.Stderr))
	}
	if info, err := os.Stat(logDir); err != nil || info.Mode().Perm() != 0o700 {
		t.Errorf("log dir: %v, %v", info.Mode(), err)
	}
	msg := (&Result{Commands: []Command{c}}).Message(Limits{StdoutHead: 100, StdoutTail: 100})
	if !strings.Contains(msg, "bytes cut, full output in "+c.LogPath+") ...") {
		t.Errorf("message does not point to the log:\n%s", msg)
	}
}

// TestFloodKeepsMemoryFlat pushes 200 MB through a command and checks that
// the heap does not grow with it: the Result keeps a bounded head and tail.
func TestFloodKeepsMemoryFlat(t *testing.T) {
	const size = 200_000_000
	s := startSession(t, Options{})
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	var peak uint64
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		ticker := time.NewTicker(20 * time.Millisecond)
		defer ticker.Stop()
		for {
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			peak = max(peak, m.HeapInuse)
			select {
			case <-stop:
				return
			case <-ticker.C:
			}
		}
	}()
	c := only(t, mustRun(t, s, fmt.Sprintf("head -c %d /dev/zero | tr '\\0' x", size)))
	close(stop)
	<-sampled
	if total := int64(len(c.Stdout)) + c.StdoutGap.Bytes; total != size {
		t.Errorf("saw %d bytes, want %d", total, size)
	}
	if keep := DefaultLimits.StdoutHead + DefaultLimits.StdoutTail; len(c.Stdout) != keep {
		t.Errorf("kept %d bytes, want %d", len(c.Stdout), keep)
	}
	const bound = 64 << 20
	if peak > before.HeapInuse && peak-before.HeapInuse > bound {
		t.Errorf("heap in use grew by %d MB during the flood (bound %d MB)", (peak-before.HeapInuse)>>20, bound>>20)
	}
	t.Logf("heap in use: %d KB before, %d KB peak", before.HeapInuse>>10, peak>>10)
}

// waitGone waits until pid has exited (a zombie counts as gone: whether
// it is reaped is up to its new parent).
func waitGone(t *testing.T, pid int) {
	t.Helper()
	waitFor(t, fmt.Sprintf("process %d to exit", pid), func() bool {
		if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
			return true
		}
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			return os.IsNotExist(err)
		}
		// pid (comm) state ...: the state follows the last ')'.
		fields := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
		return len(fields) > 0 && (fields[0] == "Z" || fields[0] == "X")
	})
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(noHang)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func countFDs(t *testing.T) int {
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skipf("no /proc/self/fd: %v", err)
	}
	return len(entries)
}

func TestRestartWhereTheDirectoryIsGone(t *testing.T) {
	root := filepath.Join(t.TempDir(), "ws")
	if err := os.Mkdir(root, 0o755); err != nil {
		t.Fatal(err)
	}
	s := startSession(t, Options{Dir: root})
	// The shell dies in a directory that no longer exists: it restarts
	// in the workspace root.
	mustRun(t, s, "mkdir sub && cd sub")
	c := only(t, mustRun(t, s, "rmdir ../sub && exit 0"))
	if !c.Restarted || s.Dir() != root {
		t.Errorf("restarted %v in %q, want the root %q", c.Restarted, s.Dir(), root)
	}
	// Now the root goes too: the shell cannot restart, and Run says so.
	res, err := s.Run(context.Background(), "rmdir \"$PWD\" && exit 0\necho never")
	if err == nil || len(res.Commands) != 1 || !res.Commands[0].Restarted || len(res.Skipped) != 1 {
		t.Fatalf("got %+v, %v; want the command, the rest skipped and a restart error", res, err)
	}
	res, err = s.Run(context.Background(), "echo a\necho b")
	if err == nil || len(res.Commands) != 0 || len(res.Skipped) != 2 {
		t.Errorf("Run without a shell: %+v, %v", res, err)
	}
}
