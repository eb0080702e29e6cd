package term

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/agentls/agentls/procs/proc"
)

// ErrNotStable is returned by WaitStable when the screen was still
// changing when the timeout passed.
var ErrNotStable = errors.New("output still changing")

// sendTimeout bounds a write to a program that does not read its input, so
// that a stuck program cannot hang the caller.
const sendTimeout = 10 * time.Second

// Session is one program running in a pseudo-terminal. Its output is read
// continuously into a Terminal, so the screen stays current whether or not
// anyone looks, and the program never blocks on a full pty.
type Session struct {
	name    string
	command string
	started time.Time
	proc    *proc.Process // the leader: a zombie from its exit until kill
	ptmx    *os.File

	writeMu sync.Mutex // one writer at a time: keys must not interleave

	mu     sync.Mutex
	term   *Terminal
	notify chan struct{} // closed and replaced whenever output arrives
	taps   []func([]byte)

	exited   chan struct{} // closed once the program has exited (kill reaps it)
	drained  chan struct{} // closed once all output has been read
	finished chan struct{} // closed once both have happened and the pty is closed
	exitCode int           // valid after exited is closed
	closePty sync.Once
}

// Info describes a session for listings.
type Info struct {
	Name     string
	Command  string
	PID      int
	Started  time.Time
	Running  bool
	ExitCode int // valid when !Running
}

// startSession runs argv through guard in a new pty with its own session
// and process group (Pdeathsig kills the leader if the server dies without
// kill, and guard's watchdog the rest of the session), and starts reading
// its output.
func startSession(guard *proc.Guard, name, display string, argv []string, opts Options) (*Session, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = opts.Dir
	// TERM first, so that the caller's Env can override it.
	cmd.Env = append(append(os.Environ(), "TERM=xterm-256color"), opts.Env...)
	var ptmx *os.File
	child, err := guard.Start(cmd, func(cmd *exec.Cmd) error {
		var err error
		ptmx, err = ptyStart(cmd, opts.Cols, opts.Rows) // adds Setctty
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("start %q in a pty: %w", display, err)
	}
	s := &Session{
		name:     name,
		command:  display,
		started:  time.Now(),
		proc:     child,
		ptmx:     ptmx,
		term:     NewTerminal(opts.Cols, opts.Rows, opts.ScrollbackLines),
		notify:   make(chan struct{}),
		exited:   make(chan struct{}),
		drained:  make(chan struct{}),
		finished: make(chan struct{}),
	}
	go s.read()
	go s.wait()
	return s, nil
}

// read copies the program's output into the terminal model until the pty
// reports the end. After the last process holding the terminal exits, a
// read on Linux fails with EIO rather than returning EOF: every error ends
// the loop the same way.
func (s *Session) read() {
	defer close(s.drained)
	buf := make([]byte, 32*1024)
	for {
		n, err := s.ptmx.Read(buf)
		if n > 0 {
			s.mu.Lock()
			s.term.Write(buf[:n])
			replies := s.term.TakeReplies()
			for _, tap := range s.taps {
				tap(buf[:n])
			}
			close(s.notify)
			s.notify = make(chan struct{})
			s.mu.Unlock()
			if len(replies) > 0 {
				_ = s.write(replies) // a program that stopped reading loses its answer
			}
		}
		if err != nil {
			return
		}
	}
}

// wait notes how the program ended, and closes the pty once its output is
// drained. The program stays a zombie until kill has ended everything
// left in its session, so that its id, which is the group's and the
// session's, is never someone else's while it is signalled or watched.
func (s *Session) wait() {
	code := s.proc.ExitStatus().Code // -1 when killed by a signal
	s.mu.Lock()
	s.exitCode = code
	s.mu.Unlock()
	close(s.exited)
	<-s.drained
	s.closePtyOnce()
	close(s.finished)
}

func (s *Session) closePtyOnce() {
	s.closePty.Do(func() { _ = s.ptmx.Close() })
}

// Name returns the session's name, such as agentls_1.
func (s *Session) Name() string { return s.name }

// Command returns the command the session runs.
func (s *Session) Command() string { return s.command }

// PID returns the id of the session's leader, which is also its process
// group and session id.
func (s *Session) PID() int { return s.proc.Pid() }

// Running reports whether the program is still running.
func (s *Session) Running() bool {
	select {
	case <-s.exited:
		return false
	default:
		return true
	}
}

// ExitCode returns the program's exit code (-1 if a signal killed it) and
// whether it has exited at all.
func (s *Session) ExitCode() (code int, exited bool) {
	select {
	case <-s.exited:
		s.mu.Lock()
		defer s.mu.Unlock()
		return s.exitCode, true
	default:
		return 0, false
	}
}

// Done is closed once the program has exited and its output has been read
// to the end.
func (s *Session) Done() <-chan struct{} { return s.finished }

// Info describes the session.
func (s *Session) Info() Info {
	code, exited := s.ExitCode()
	return Info{Name: s.name, Command: s.command, PID: s.PID(), Started: s.started, Running: !exited, ExitCode: code}
}

// Send types input into the program as it is.
func (s *Session) Send(input string) error {
	if err := s.write([]byte(input)); err != nil {
		return fmt.Errorf("send to %s: %w", s.name, err)
	}
	return nil
}

// SendKeys types keys the way `tmux send-keys` does: each argument that is
// a key name (Enter, C-c, C-d, Escape, Tab, BSpace, Up, Down, Left, Right,
// Home, End, PageUp, PageDown, Space, F1..F12, M-x, ...) sends that key;
// anything else is typed literally, with nothing between arguments.
func (s *Session) SendKeys(keys ...string) error {
	s.mu.Lock()
	app := s.term.AppCursorKeys()
	s.mu.Unlock()
	var b []byte
	for _, k := range keys {
		b = append(b, keyBytes(k, app)...)
	}
	return s.Send(string(b))
}

func (s *Session) write(p []byte) error {
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	select {
	case <-s.drained:
		return errors.New("the program has exited")
	default:
	}
	if err := s.ptmx.SetWriteDeadline(time.Now().Add(sendTimeout)); err != nil {
		return err
	}
	_, err := s.ptmx.Write(p)
	if errors.Is(err, os.ErrDeadlineExceeded) {
		return fmt.Errorf("the program has not read its input for %v", sendTimeout)
	}
	return err
}

// Screen returns the visible screen as text, trailing blanks trimmed.
func (s *Session) Screen() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.term.Screen()
}

// Capture returns the scrollback and the screen as text, like
// `tmux capture-pane -p -S -`.
func (s *Session) Capture() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.term.Capture()
}

// fingerprint is what WaitStable compares: the screen, and how much has
// scrolled off it (a program printing the same line over and over changes
// nothing on screen but is not quiet).
type fingerprint struct {
	screen   string
	scrolled uint64
}

func (s *Session) snapshot() (fingerprint, <-chan struct{}) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return fingerprint{s.term.Screen(), s.term.Scrolled()}, s.notify
}

// WaitStable waits until the screen has not changed for stable, the
// program has exited with all its output read, timeout has passed
// (ErrNotStable), or ctx is done. changed reports whether the screen
// changed at all while waiting. Output that does not change the text
// (colour changes, an identical redraw) does not count as a change.
func (s *Session) WaitStable(ctx context.Context, stable, timeout time.Duration) (changed bool, err error) {
	start := time.Now()
	deadline := start.Add(timeout)
	last, notify := s.snapshot()
	lastChange := start
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	for {
		select {
		case <-s.finished:
			cur, _ := s.snapshot()
			return changed || cur != last, nil
		default:
		}
		now := time.Now()
		quietAt := lastChange.Add(stable)
		if !now.Before(quietAt) {
			return changed, nil
		}
		if !now.Before(deadline) {
			return changed, ErrNotStable
		}
		timer.Reset(min(quietAt.Sub(now), deadline.Sub(now)))
		select {
		case <-ctx.Done():
			return changed, ctx.Err()
		case <-s.finished:
		case <-timer.C:
		case <-notify:
			var cur fingerprint
			cur, notify = s.snapshot()
			if cur != last {
				last, lastChange, changed = cur, time.Now(), true
			}
		}
	}
}

// addTap makes f see every chunk of raw output from now on, under the
// session's lock; the returned func removes it.
func (s *Session) addTap(f func([]byte)) (remove func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.taps = append(s.taps, f)
	idx := len(s.taps) - 1
	return func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.taps[idx] = func([]byte) {}
	}
}

// kill ends the program and everything left in its terminal session:
// SIGHUP and SIGTERM to the process group (what closing a terminal
// window does), then, after grace or as soon as the group is gone, SIGKILL
// to the group and to every process still in the session; then the
// program is reaped, the pty closed and the reader waited for. Killing a
// session that has ended already only reaps it.
func (s *Session) kill(grace time.Duration) {
	for _, sig := range []syscall.Signal{syscall.SIGHUP, syscall.SIGTERM, syscall.SIGCONT} {
		_ = s.proc.Signal(sig)
	}
	// Wait for the whole group, not only the leader: a dev server's
	// workers may still be shutting down after the shell is gone.
	for deadline := time.Now().Add(grace); time.Now().Before(deadline); {
		if !s.Running() && !s.proc.GroupAlive() {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	s.proc.Kill()
	select {
	case <-s.exited:
		s.proc.Reap()
	case <-time.After(5 * time.Second):
		// Not even SIGKILL ended it (a process stuck in the kernel): reap
		// it whenever it goes.
		go s.proc.Reap()
	}
	s.closePtyOnce()
	<-s.drained
	select {
	case <-s.finished:
	case <-time.After(5 * time.Second):
	}
}
