package term

import (
	"context"
	"errors"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// patience bounds every wait in these tests: long enough for a loaded
// 2-core CI machine, short enough to fail instead of hanging.
const patience = 20 * time.Second

func newManager(t *testing.T, opts Options) *Manager {
	t.Helper()
	if opts.Settle == 0 {
		opts.Settle = 200 * time.Millisecond
	}
	m := NewManager(opts)
	t.Cleanup(func() {
		if err := m.Close(); err != nil {
			t.Error(err)
		}
	})
	return m
}

func start(t *testing.T, m *Manager, command string) *Session {
	t.Helper()
	s, err := m.Start(context.Background(), command)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// waitFor polls the session's capture until it matches.
func waitFor(t *testing.T, s *Session, want *regexp.Regexp) string {
	t.Helper()
	deadline := time.Now().Add(patience)
	for {
		got := s.Capture()
		if want.MatchString(got) {
			return got
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s never showed %v; capture:\n%s", s.Name(), want, got)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func waitDone(t *testing.T, s *Session) {
	t.Helper()
	select {
	case <-s.Done():
	case <-time.After(patience):
		t.Fatalf("%s did not finish; capture:\n%s", s.Name(), s.Capture())
	}
}

func TestSessionScreenReadsAsFinalText(t *testing.T) {
	m := newManager(t, Options{})
	tests := []struct {
		name, command, want string
	}{
		{"progress redraw", `printf 'downloading 10%%\r'; printf 'downloading 50%%\r'; printf 'downloading 100%%\n'; echo done`,
			"downloading 100%\ndone"},
		{"colours stripped", `printf '\033[1;31mred\033[0m and \033[32mgreen\033[m\n'`, "red and green"},
		{"clear", `echo old; printf '\033[H\033[2J'; echo new`, "new"},
		{"cursor up rewrites a line", `printf 'a\nb\n\033[2Ax\n'`, "x\nb"},
		{"stderr too", `echo out; echo err >&2`, "out\nerr"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := start(t, m, tt.command)
			waitDone(t, s)
			if got := s.Screen(); got != tt.want {
				t.Errorf("Screen() = %q, want %q", got, tt.want)
			}
			if code, exited := s.ExitCode(); !exited || code != 0 {
				t.Errorf("ExitCode() = %d, %v; want 0, true", code, exited)
			}
		})
	}
}

func TestSessionExitCodeAndEnv(t *testing.T) {
	dir := t.TempDir()
	m := newManager(t, Options{Dir: dir, Env: []string{"AGENTLS_TEST=yes"}})
	s := start(t, m, `echo "$PWD $AGENTLS_TEST $TERM $(tput cols 2>/dev/null || stty size)"; exit 3`)
	waitDone(t, s)
	if code, _ := s.ExitCode(); code != 3 {
		t.Errorf("exit code %d, want 3", code)
	}
	got := s.Screen()
	for _, want := range []string{dir, "yes", "xterm-256color", "120"} {
		if !strings.Contains(got, want) {
			t.Errorf("screen %q lacks %q", got, want)
		}
	}
}

func TestSessionSendKeys(t *testing.T) {
	m := newManager(t, Options{})
	s := start(t, m, `read -r line; echo "got:$line"`)
	if err := s.SendKeys("hello world", "Enter"); err != nil {
		t.Fatal(err)
	}
	waitDone(t, s)
	if got := s.Screen(); !strings.Contains(got, "got:hello world") {
		t.Errorf("screen %q lacks the typed line", got)
	}
	if err := s.Send("late"); err == nil {
		t.Error("Send to an exited program succeeded")
	}
}

func TestSessionCtrlCInterrupts(t *testing.T) {
	m := newManager(t, Options{})
	s := start(t, m, `echo ready; sleep 100`)
	waitFor(t, s, regexp.MustCompile(`ready`))
	if err := s.SendKeys("C-c"); err != nil {
		t.Fatal(err)
	}
	waitDone(t, s)
	if code, _ := s.ExitCode(); code == 0 {
		t.Errorf("exit code 0 after C-c, want a failure")
	}
}

func TestSessionArrowKeysFollowTheProgram(t *testing.T) {
	// bash's readline switches the terminal to application cursor keys;
	// Up must recall the previous line either way.
	m := newManager(t, Options{Env: []string{"HISTFILE=/dev/null"}})
	// A non-interactive bash drops PS1, so it is set for the inner one.
	s := start(t, m, `PS1='$ ' exec bash --norc --noprofile -i`)
	waitFor(t, s, regexp.MustCompile(`(?m)^\$$`))
	if err := s.SendKeys("echo first-$((40+2))", "Enter"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, s, regexp.MustCompile(`(?m)^first-42$`))
	if err := s.SendKeys("Up", "Enter"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, s, regexp.MustCompile(`(?ms)^first-42$.*^first-42$`))
	if err := s.SendKeys("C-d"); err != nil {
		t.Fatal(err)
	}
	waitDone(t, s)
}

func TestSessionWaitStable(t *testing.T) {
	m := newManager(t, Options{})
	ctx := context.Background()

	t.Run("an exited program is stable at once", func(t *testing.T) {
		s := start(t, m, `echo one`)
		waitDone(t, s)
		if _, err := s.WaitStable(ctx, time.Hour, time.Hour); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("repeated identical lines are not quiet", func(t *testing.T) {
		s := start(t, m, `while :; do echo same; sleep 0.02; done`)
		changed, err := s.WaitStable(ctx, 2*time.Second, 3*time.Second)
		if !errors.Is(err, ErrNotStable) || !changed {
			t.Fatalf("WaitStable = %v, %v; want true, ErrNotStable", changed, err)
		}
	})
	t.Run("quiet program", func(t *testing.T) {
		s := start(t, m, `echo quiet; sleep 100`)
		waitFor(t, s, regexp.MustCompile(`quiet`))
		if _, err := s.WaitStable(ctx, 100*time.Millisecond, patience); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("cancelled", func(t *testing.T) {
		s := start(t, m, `sleep 100`)
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		if _, err := s.WaitStable(cctx, time.Hour, time.Hour); !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want context.Canceled", err)
		}
	})
}

func TestManagerNamesAndList(t *testing.T) {
	m := newManager(t, Options{})
	a := start(t, m, `sleep 100`)
	b := start(t, m, `echo bye`)
	if a.Name() != "agentls_1" || b.Name() != "agentls_2" {
		t.Fatalf("names %s, %s; want agentls_1, agentls_2", a.Name(), b.Name())
	}
	for _, name := range []string{"1", "agentls_1", " agentls_1 ", "agentls_1:0.0"} {
		if s, ok := m.Get(name); !ok || s != a {
			t.Errorf("Get(%q) did not find agentls_1", name)
		}
	}
	if _, ok := m.Get("3"); ok {
		t.Error("Get(3) found a session")
	}
	waitDone(t, b)
	infos := m.List()
	if len(infos) != 2 || infos[0].Name != "agentls_1" || !infos[0].Running || infos[1].Running || infos[1].Command != "echo bye" {
		t.Fatalf("List() = %+v", infos)
	}
	if err := m.Kill("1"); err != nil {
		t.Fatal(err)
	}
	if err := m.Kill("1"); err == nil {
		t.Error("killing a killed session succeeded")
	}
	if c := start(t, m, `true`); c.Name() != "agentls_3" {
		t.Errorf("a new session after a kill is %s, want agentls_3 (names are never reused)", c.Name())
	}
}

// TestCloseLeavesNoProcesses starts programs that ignore SIGHUP and SIGTERM,
// in process groups of their own, and checks that Close ends every one of
// them, reaps its child, and leaks no file descriptor.
func TestCloseLeavesNoProcesses(t *testing.T) {
	warm := NewManager(Options{})
	s, err := warm.Start(context.Background(), "true")
	if err != nil {
		t.Fatal(err)
	}
	<-s.Done()
	warm.Close() // the runtime's poller and the like are open from here on
	fdsBefore := countFDs(t)

	m := NewManager(Options{KillGrace: 300 * time.Millisecond, Python: testPython(t)})
	// set -m puts the background job in a process group of its own.
	stubborn := `set -m; (trap '' HUP TERM; exec sleep 300) & echo bg=$!; trap '' HUP TERM; echo leader=$$; sleep 300`
	s1, err := m.Start(context.Background(), stubborn)
	if err != nil {
		t.Fatal(err)
	}
	s2, err := m.Start(context.Background(), `sleep 300`)
	if err != nil {
		t.Fatal(err)
	}
	repl, err := m.Python(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if out, err := repl.Run(context.Background(), "1+1"); err != nil || out != "2" {
		t.Fatalf("python: %q, %v", out, err)
	}
	waitFor(t, s1, regexp.MustCompile(`leader=\d+`))
	pids := sessionMembers(s1.PID())
	pids = append(pids, sessionMembers(s2.PID())...)
	pids = append(pids, sessionMembers(repl.session().PID())...)
	if len(pids) < 4 {
		t.Fatalf("found only %d processes before Close: %v", len(pids), pids)
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	if err := m.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	for _, pid := range pids {
		if alive, ours := processState(pid); alive || ours {
			t.Errorf("pid %d survived Close (alive %v, our zombie %v)", pid, alive, ours)
		}
	}
	if n := countFDs(t); n > fdsBefore {
		t.Errorf("%d file descriptors open after Close, %d before", n, fdsBefore)
	}
	if _, err := m.Start(context.Background(), "true"); !errors.Is(err, ErrClosed) {
		t.Errorf("Start after Close: %v, want ErrClosed", err)
	}
	if _, err := m.Python(context.Background()); !errors.Is(err, ErrClosed) {
		t.Errorf("Python after Close: %v, want ErrClosed", err)
	}
}

// sessionMembers returns the live processes of session sid.
func sessionMembers(sid int) []int {
	dir, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range dir {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
		if len(f) > 3 && f[0] != "Z" && f[3] == strconv.Itoa(sid) {
			pids = append(pids, pid)
		}
	}
	return pids
}

func countFDs(t *testing.T) int {
	t.Helper()
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip("no /proc/self/fd here")
	}
	return len(entries)
}

// processState reports whether pid is a live process, and whether it is a
// zombie child of this test process (which we failed to reap). A zombie
// whose parent is someone else (init in a container that does not reap)
// is dead as far as we are concerned.
func processState(pid int) (alive, ourZombie bool) {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false, false
	}
	f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
	if f[0] == "Z" {
		return false, f[1] == strconv.Itoa(os.Getpid())
	}
	return true, false
}
