package term

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/creack/pty"

	"github.com/agentls/agentls/procs/proc"
)

// NamePrefix starts every session name: agentls_1, agentls_2, ...
const NamePrefix = "agentls_"

// ErrClosed is returned by a Manager that has been closed.
var ErrClosed = errors.New("terminal sessions are closed")

// Options configure a Manager. Zero values take the defaults.
type Options struct {
	Dir  string   // working directory of every program; "" is the server's
	Env  []string // KEY=VALUE added to the server's environment (TERM is xterm-256color unless set here)
	Cols int      // screen width, default 120 (gptme's tmux window)
	Rows int      // screen height, default 40
	// ScrollbackLines is how many lines that scrolled off the screen each
	// session keeps, default 10000, at most 100000.
	ScrollbackLines int
	// KillGrace is how long Kill waits after SIGHUP/SIGTERM before
	// SIGKILL, default 2s.
	KillGrace time.Duration
	// Python is the interpreter Manager.Python runs, default "python3"
	// from PATH.
	Python string
	// Interpreter is InterpreterAuto (IPython when python has it, or an
	// ipython program is on PATH) or InterpreterPython (python alone).
	Interpreter string
	// Settle is how long the tmux verbs wait for a screen to stop changing
	// after starting a program or typing into it, before they show it
	// (at most ten times as long in all). Default 1s, gptme's fixed pause.
	Settle time.Duration
	// Guard, if set, starts the programs, and its watchdog kills their sessions if the
	// server dies without Close; it is the caller's to close, after this
	// Manager's Close. Nil: the Manager makes its own and closes it in Close. A host
	// running shells, jobs and terminals gives them one, so that one
	// watchdog process serves them all.
	Guard *proc.Guard
}

func (o Options) withDefaults() Options {
	if o.Cols <= 0 {
		o.Cols = 120
	}
	if o.Rows <= 0 {
		o.Rows = 40
	}
	o.Cols = min(o.Cols, maxCols)
	o.Rows = min(o.Rows, maxRows)
	if o.ScrollbackLines <= 0 {
		o.ScrollbackLines = 10_000
	}
	o.ScrollbackLines = min(o.ScrollbackLines, maxScrollbackLines)
	if o.KillGrace <= 0 {
		o.KillGrace = 2 * time.Second
	}
	if o.Python == "" {
		o.Python = "python3"
	}
	if o.Settle <= 0 {
		o.Settle = time.Second
	}
	return o
}

// Manager owns a server's interactive sessions and its Python interpreter.
// Everything it starts dies at Kill or Close.
type Manager struct {
	opts Options
	// guard starts every program, and its watchdog kills their sessions
	// if the server dies without Close.
	guard    *proc.Guard
	ownGuard bool // made by NewManager, so closed by Close

	mu       sync.Mutex
	sessions map[string]*Session
	next     int
	repl     *REPL
	tmpDir   string // cells for the Python interpreter, made on first use
	closed   bool
}

// NewManager returns a Manager with no sessions; nothing starts until asked.
func NewManager(opts Options) *Manager {
	m := &Manager{opts: opts.withDefaults(), guard: opts.Guard, sessions: map[string]*Session{}, next: 1}
	if m.guard == nil {
		m.guard, m.ownGuard = proc.NewGuard(), true
	}
	return m
}

// Start runs `bash -c command` in a new pty, in its own session and
// process group, and names it agentls_N (N counts up from 1 and is never
// reused). ctx bounds the start only: the program lives until Kill or
// Close, or until it exits by itself, after which its last screen stays
// readable until Kill or Close.
func (m *Manager) Start(ctx context.Context, command string) (*Session, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil, ErrClosed
	}
	name := NamePrefix + strconv.Itoa(m.next)
	s, err := startSession(m.guard, name, command, []string{shellPath(), "-c", command}, m.opts)
	if err != nil {
		return nil, err
	}
	m.next++
	m.sessions[name] = s
	return s, nil
}

// shellPath is bash, or sh where there is no bash.
func shellPath() string {
	if p, err := exec.LookPath("bash"); err == nil {
		return p
	}
	return "/bin/sh"
}

func ptyStart(cmd *exec.Cmd, cols, rows int) (*os.File, error) {
	return pty.StartWithSize(cmd, &pty.Winsize{Cols: uint16(cols), Rows: uint16(rows)})
}

// Get finds a session by name: "agentls_3", "3" (gptme's auto-prefix), or a
// tmux target such as "agentls_3:0.0".
func (m *Manager) Get(name string) (*Session, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s, ok := m.sessions[normalizeName(name)]
	return s, ok
}

func normalizeName(name string) string {
	name = strings.TrimSpace(name)
	name, _, _ = strings.Cut(name, ":")
	if _, err := strconv.Atoi(name); err == nil {
		return NamePrefix + name
	}
	return name
}

// List describes the sessions in the order they were started, exited ones
// included until they are killed.
func (m *Manager) List() []Info {
	m.mu.Lock()
	ss := make([]*Session, 0, len(m.sessions))
	for _, s := range m.sessions {
		ss = append(ss, s)
	}
	m.mu.Unlock()
	infos := make([]Info, len(ss))
	for i, s := range ss {
		infos[i] = s.Info()
	}
	slices.SortFunc(infos, func(a, b Info) int { return sessionNumber(a.Name) - sessionNumber(b.Name) })
	return infos
}

func sessionNumber(name string) int {
	n, _ := strconv.Atoi(strings.TrimPrefix(name, NamePrefix))
	return n
}

// Kill ends a session's program and everything else in its terminal
// (SIGHUP and SIGTERM, then SIGKILL after Options.KillGrace), closes its
// pty and forgets it.
func (m *Manager) Kill(name string) error {
	m.mu.Lock()
	key := normalizeName(name)
	s, ok := m.sessions[key]
	delete(m.sessions, key)
	m.mu.Unlock()
	if !ok {
		return fmt.Errorf("no session %q", name)
	}
	s.kill(m.opts.KillGrace)
	return nil
}

// Close kills every session and the Python interpreter, all at once, and
// removes the interpreter's files. It is safe to call more than once;
// afterwards Start and Python fail with ErrClosed.
func (m *Manager) Close() error {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil
	}
	m.closed = true
	var all []*Session
	for _, s := range m.sessions {
		all = append(all, s)
	}
	m.sessions = map[string]*Session{}
	repl, tmp := m.repl, m.tmpDir
	m.mu.Unlock()
	if repl != nil {
		if s := repl.session(); s != nil {
			all = append(all, s)
		}
	}
	var wg sync.WaitGroup
	for _, s := range all {
		wg.Go(func() { s.kill(m.opts.KillGrace) })
	}
	wg.Wait()
	if m.ownGuard {
		m.guard.Close()
	}
	if tmp != "" {
		if err := os.RemoveAll(tmp); err != nil {
			return fmt.Errorf("remove python cells: %w", err)
		}
	}
	return nil
}
