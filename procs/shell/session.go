package shell

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/agentls/agentls/procs/proc"
)

// DefaultTimeout is how long a command may run when Options.Timeout is 0:
// gptme's 1200 s.
const DefaultTimeout = 20 * time.Minute

// Exit codes of commands the session stopped (gptme uses the first).
const (
	ExitTimedOut    = -124 // the command ran past the timeout
	ExitInterrupted = -130 // the context was cancelled or the session closed
)

// killGrace is how long processes get between SIGTERM and SIGKILL.
const killGrace = 2 * time.Second

// ErrClosed is returned by Run on a closed session.
var ErrClosed = errors.New("shell session closed")

// Options configure a Session.
type Options struct {
	// Dir is the workspace root; the shell starts there ("" means the
	// current directory).
	Dir string
	// Env is extra KEY=VALUE on top of os.Environ() and the variables
	// every session sets so that nothing waits for a pager or an editor:
	// PAGER= GH_PAGER= GIT_PAGER=cat EDITOR=true GIT_EDITOR=true
	// VISUAL=true PYTHONUNBUFFERED=1 TERM=dumb. Env comes after them, so
	// it can override them; git's pins (core.fsmonitor=false,
	// log.showSignature=false as GIT_CONFIG_KEY_<n>, after any entries
	// GIT_CONFIG_COUNT in Env or the environment counts) come last.
	Env []string
	// Timeout is how long one command may run: 0 means DefaultTimeout,
	// a negative value no limit.
	Timeout time.Duration
	// LogDir, if set, receives each command's full output (both streams,
	// in arrival order) in LogDir/cmd-<n>.log, n counting the session's
	// commands from 1. It is created with mode 0700. Give each session
	// its own: files of an earlier session with the same n are replaced.
	LogDir string
	// Output, if set, receives output as it arrives: the command's number
	// (as in the log file name; 0 for output of background processes
	// between commands), "stdout" or "stderr", and the bytes, which are
	// only valid during the call. It is called from the goroutines that
	// read the shell, so it must not block long: the shell waits for it.
	Output func(cmd int, stream string, p []byte)
	// Keep is how much of each stream a Result keeps in memory: its head
	// and tail, in bytes. The zero value keeps what Message shows by
	// default; the log file has everything.
	Keep Limits
	// Guard, if set, starts the session's shells, and its watchdog kills what they start if the
	// server dies without Close; it is the caller's to close, after this
	// session. Nil: the session makes its own and closes it in Close. A host
	// running shells, jobs and terminals gives them one, so that one
	// watchdog process serves them all.
	Guard *proc.Guard
}

// Session is a persistent bash. Its methods may be called from any
// goroutine; Runs are served one at a time.
type Session struct {
	opts    Options
	dir     string // the workspace root
	env     []string
	timeout time.Duration // <0: none
	keep    Limits

	closing   chan struct{} // closed by Close
	closeOnce sync.Once
	// guard starts every shell of the session, and its watchdog kills
	// what they started if the server dies without Close.
	guard    *proc.Guard
	ownGuard bool // made by Start, so closed by Close

	mu      sync.Mutex // held by Run and by Close
	proc    *process   // nil after Close or a failed restart
	lastCmd int

	dirMu sync.Mutex
	cwd   string // the shell's directory after the last command
}

// Start starts a session's shell in opts.Dir.
func Start(ctx context.Context, opts Options) (*Session, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	dir := opts.Dir
	if dir == "" {
		dir = "."
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("start shell in %s: %w", opts.Dir, err)
	}
	s := &Session{
		opts:    opts,
		dir:     dir,
		env:     Environ(opts.Env),
		timeout: opts.Timeout,
		keep:    opts.Keep.withDefaults(),
		closing: make(chan struct{}),
		guard:   opts.Guard,
		cwd:     dir,
	}
	if s.guard == nil {
		s.guard, s.ownGuard = proc.NewGuard(), true
	}
	if s.timeout == 0 {
		s.timeout = DefaultTimeout
	}
	s.proc, err = startProcess(s.guard, dir, s.env, opts.Output)
	if err != nil {
		s.closeGuard()
		return nil, err
	}
	return s, nil
}

// Dir is the shell's current directory as of the last command that
// finished (a command the session had to stop leaves it unchanged).
func (s *Session) Dir() string {
	s.dirMu.Lock()
	defer s.dirMu.Unlock()
	return s.cwd
}

func (s *Session) setDir(dir string) {
	if dir == "" {
		return
	}
	s.dirMu.Lock()
	s.cwd = dir
	s.dirMu.Unlock()
}

// Run runs script's commands (see Split) one after another and stops at
// the first that fails, times out or is interrupted; the ones after it are
// listed in Result.Skipped. Command failures are in the Result. The error
// is a *SyntaxError when the script does not parse (nothing ran), the
// context's error when it was done before anything ran, ErrClosed when
// the session is or gets closed, or a failure to restart the shell after
// it died or was killed; a Result describes whatever did run.
func (s *Session) Run(ctx context.Context, script string) (*Result, error) {
	commands, err := Split(script)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.isClosing() {
		return nil, ErrClosed
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	res := &Result{}
	for i, text := range commands {
		if i > 0 && ctx.Err() != nil {
			res.Skipped = commands[i:]
			break
		}
		cmd, err := s.runCommand(ctx, text)
		if cmd == nil { // the shell could not be restarted to run it
			res.Skipped = commands[i:]
			return res, err
		}
		res.Commands = append(res.Commands, *cmd)
		if err != nil || cmd.ExitCode != 0 {
			res.Skipped = commands[i+1:]
			return res, err
		}
	}
	return res, nil
}

// runCommand runs one command in the shell, restarting the shell first if
// it died since the last command, and afterwards if the command killed it
// or had to be stopped.
func (s *Session) runCommand(ctx context.Context, text string) (*Command, error) {
	if s.proc == nil || !s.proc.alive() {
		if err := s.restart(); err != nil {
			return nil, err
		}
	}
	p := s.proc
	s.lastCmd++
	n := s.lastCmd
	c := &Command{Text: text}
	log, logErr := s.openLog(n)
	if log != nil {
		c.LogPath = log.file.Name()
	}
	sent := newSentinel()
	out := newStreamJob(n, sent, s.keep.StdoutHead, s.keep.StdoutTail, log)
	errs := newStreamJob(n, sent, s.keep.StderrHead, s.keep.StderrTail, log)
	p.stdout.start(out)
	p.stderr.start(errs)

	start := time.Now()
	written := make(chan struct{})
	go func() {
		// A write error means the shell died; the readers see that too.
		p.stdin.Write(sent.script(text))
		close(written)
	}()
	var timeout <-chan time.Time
	if s.timeout > 0 {
		timer := time.NewTimer(s.timeout)
		defer timer.Stop()
		timeout = timer.C
	}
	outDone, errDone := out.done, errs.done
wait:
	for outDone != nil || errDone != nil {
		select {
		case <-outDone:
			outDone = nil
		case <-errDone:
			errDone = nil
		case <-timeout:
			c.TimedOut = true
			break wait
		case <-ctx.Done():
			c.Interrupted = true
			break wait
		case <-s.closing:
			c.Interrupted = true
			break wait
		}
	}
	c.Duration = time.Since(start)
	stopped := c.TimedOut || c.Interrupted
	if stopped {
		p.kill(killGrace)
	}
	<-out.done
	<-errs.done
	<-written

	c.Stdout, c.StdoutGap = out.keep.text()
	c.Stderr, c.StderrGap = errs.keep.text()
	if logErr != nil {
		c.LogError = logErr
	} else if err := log.close(); err != nil {
		c.LogError = fmt.Errorf("command log: %w", err)
	}
	switch {
	case c.TimedOut:
		c.ExitCode = ExitTimedOut
	case c.Interrupted:
		c.ExitCode = ExitInterrupted
	case out.trailer:
		c.ExitCode = out.status
		s.setDir(out.dir)
	case errs.trailer: // the command closed the shell's stdout
		c.ExitCode = errs.status
		s.setDir(errs.dir)
	default:
		// The command ended the shell (`exit 3`, `exec`, a signal), or
		// closed both of its outputs, which leaves it as good as dead.
		if p.alive() {
			p.kill(killGrace)
		}
		c.ExitCode = p.exitCode()
	}
	if !stopped && p.alive() {
		return c, nil
	}
	if !stopped {
		p.kill(killGrace) // reap it, close its pipes, end what it left running
	}
	s.proc = nil
	if s.isClosing() {
		return c, ErrClosed
	}
	c.Restarted = true
	if err := s.restart(); err != nil {
		return c, err
	}
	return c, nil
}

// restart starts a new shell in the last known directory, or in the
// workspace root if that is gone.
func (s *Session) restart() error {
	if s.proc != nil {
		s.proc.kill(killGrace)
		s.proc = nil
	}
	p, err := startProcess(s.guard, s.Dir(), s.env, s.opts.Output)
	if err != nil && s.Dir() != s.dir {
		s.setDir(s.dir)
		p, err = startProcess(s.guard, s.dir, s.env, s.opts.Output)
	}
	if err != nil {
		return fmt.Errorf("restart shell: %w", err)
	}
	s.proc = p
	return nil
}

func (s *Session) openLog(n int) (*commandLog, error) {
	if s.opts.LogDir == "" {
		return nil, nil
	}
	if err := os.MkdirAll(s.opts.LogDir, 0o700); err != nil {
		return nil, fmt.Errorf("command log: %w", err)
	}
	name := filepath.Join(s.opts.LogDir, fmt.Sprintf("cmd-%d.log", n))
	f, err := os.OpenFile(name, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return nil, fmt.Errorf("command log: %w", err)
	}
	return &commandLog{file: f}, nil
}

func (s *Session) isClosing() bool {
	select {
	case <-s.closing:
		return true
	default:
		return false
	}
}

// Close kills the shell and everything it started (a running command is
// interrupted and its Run returns ErrClosed) and waits until they are
// gone. It is safe to call more than once.
func (s *Session) Close() error {
	s.closeOnce.Do(func() {
		close(s.closing)
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.proc != nil {
			s.proc.kill(killGrace)
			s.proc = nil
		}
		s.closeGuard()
	})
	return nil
}

func (s *Session) closeGuard() {
	if s.ownGuard {
		s.guard.Close()
	}
}
