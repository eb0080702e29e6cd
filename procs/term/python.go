package term

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// interruptGrace is how long Run waits for a cell to stop after C-c (and
// for a cell to start before sending it) before it gives up on the
// interpreter and kills it.
const interruptGrace = 5 * time.Second

// pythonHelper is run by `python3 -i -c` before the first prompt. It
// defines the function each cell calls: read the cell from its file, run
// it in __main__ like a REPL (the value of a last expression is shown),
// print a traceback without the helper's own frames, and write markers
// before and after the cell's output. The markers are OSC strings, which
// terminals (and Terminal) do not show, so the session's screen stays
// clean; Run finds them in the raw output.
const pythonHelper = `
import sys as _agentls_sys
def __agentls_run(seq, _dir=_agentls_sys.argv[1], _nonce=_agentls_sys.argv[2]):
    import ast, linecache, os, sys, traceback, __main__
    def mark(kind):
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os.write(1, ('\x1b]7770;agentls-%s-%s-%d\x07' % (kind, _nonce, seq)).encode())
    end = 'done'
    try:
        mark('start')
        path = os.path.join(_dir, 'cell-%d.py' % seq)
        with open(path, encoding='utf-8') as f:
            src = f.read()
        name = '<cell-%d>' % seq
        linecache.cache[name] = (len(src), None, src.splitlines(True), name)
        try:
            tree = ast.parse(src, name, 'exec')
            last = None
            if tree.body and isinstance(tree.body[-1], ast.Expr):
                last = ast.Expression(tree.body.pop().value)
            g = __main__.__dict__
            exec(compile(tree, name, 'exec'), g)
            if last is not None:
                value = eval(compile(last, name, 'eval'), g)
                if value is not None:
                    sys.displayhook(value)
        except SystemExit:
            end = 'exit'
            raise
        except BaseException as e:
            tb = e.__traceback__
            while tb is not None and tb.tb_frame.f_code.co_filename != name:
                tb = tb.tb_next
            traceback.print_exception(type(e), e, tb)
    finally:
        mark(end)
`

// pythonHelperEnd ends the plain helper, after pythonViewImage.
const pythonHelperEnd = `
del _agentls_sys
`

// REPL is a persistent Python interpreter in a pty: the ipython tool.
// Variables, imports and functions persist between Run calls. It runs
// IPython when it is installed (ipython.go: magics, !commands through
// agentls's command policy), in its plain prompt, which neither redraws
// nor queries the terminal as prompt_toolkit does; else python3, which is
// on every machine the tool is offered on (builtin's ipython spec
// requires it), with a helper that gives the one IPython habit that
// matters most to a model, showing the value of the last expression.
// Both have view_image(path), asked of agentls over a socket.
type REPL struct {
	m     *Manager
	nonce string

	runMu sync.Mutex // one cell at a time

	interpOnce sync.Once
	interp     interpreter

	mu       sync.Mutex
	s        *Session
	seq      int
	restarts int
	// hooks and cellCtx answer the running cell's requests; cellCtx is
	// nil between cells.
	hooks   CellHooks
	cellCtx context.Context
}

// Python returns the manager's interpreter, starting it on first use (and
// again if it has died).
func (m *Manager) Python(ctx context.Context) (*REPL, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil, ErrClosed
	}
	if m.repl == nil {
		m.repl = &REPL{m: m, nonce: randomHex()}
	}
	r := m.repl
	m.mu.Unlock()
	if _, err := r.ensure(ctx); err != nil {
		return nil, err
	}
	return r, nil
}

func randomHex() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

func (r *REPL) session() *Session {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.s
}

// ensure returns a running interpreter, starting one if there is none.
// restarted reports that an earlier one had died, taking its state along.
func (r *REPL) ensure(ctx context.Context) (restarted bool, err error) {
	interp := r.interpreter(ctx) // runs a program the first time: not under the locks
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.s != nil && r.s.Running() {
		return false, nil
	}
	restarted = r.s != nil
	if restarted {
		r.s.kill(r.m.opts.KillGrace) // it has exited: this reaps it
	}
	r.m.mu.Lock()
	defer r.m.mu.Unlock()
	if r.m.closed {
		return false, ErrClosed
	}
	if r.m.tmpDir == "" {
		dir, err := os.MkdirTemp("", "agentls-python-")
		if err != nil {
			return false, fmt.Errorf("make a folder for python cells: %w", err)
		}
		r.m.tmpDir = dir
	}
	opts := r.m.opts
	sock, closeAsk, err := r.listenAsk(r.m.tmpDir)
	if err != nil {
		return false, err
	}
	// Python 3.13's new REPL auto-indents and colours what is typed; the
	// basic one echoes plainly.
	opts.Env = append(append([]string(nil), opts.Env...), "PYTHON_BASIC_REPL=1")
	argv := append(append([]string(nil), interp.argv...), "-q", "-i", "-c", pythonHelper+pythonViewImage+pythonHelperEnd, r.m.tmpDir, r.nonce, sock)
	if interp.ipython {
		// The helper pops these: the commands a cell runs do not see them.
		opts.Env = append(opts.Env, "AGENTLS_CELLS="+r.m.tmpDir, "AGENTLS_NONCE="+r.nonce, "AGENTLS_ASK="+sock)
		argv = append(append(append([]string(nil), interp.argv...), ipythonFlags...), "-i", "-c", ipythonHelper)
	}
	s, err := startSession(r.m.guard, "python", interp.argv[0], argv, opts)
	if err != nil {
		closeAsk()
		return false, err
	}
	go func() {
		<-s.Done()
		closeAsk()
	}()
	if restarted {
		r.restarts++
	}
	r.s = s
	return restarted, nil
}

// Run runs code (any number of statements, blocks included) in the
// interpreter and returns what it printed, tracebacks included, as screen
// text: echoed input and prompts are not part of it. An exception in the
// code is output, not an error; the interpreter keeps its state. If ctx is
// done first, Run sends C-c (KeyboardInterrupt) and returns what was
// printed with ctx's error; an interpreter that does not stop is killed,
// and the next Run starts a fresh one.
func (r *REPL) Run(ctx context.Context, code string) (string, error) {
	return r.RunWith(ctx, code, CellHooks{})
}

// run is Run, under runMu.
func (r *REPL) run(ctx context.Context, code string) (string, error) {
	restarted, err := r.ensure(ctx)
	if err != nil {
		return "", err
	}
	var note string
	if restarted {
		note = "(The Python interpreter had exited and was restarted: earlier variables and imports are gone.)\n"
	}
	r.mu.Lock()
	r.seq++
	seq, s := r.seq, r.s
	r.mu.Unlock()

	path := filepath.Join(r.m.tmpDir, "cell-"+strconv.Itoa(seq)+".py")
	if err := os.WriteFile(path, []byte(code), 0o600); err != nil {
		return "", fmt.Errorf("write python cell: %w", err)
	}
	defer os.Remove(path)

	rec := newCellRecorder(r.nonce, seq, r.m.opts.Cols, r.m.opts.ScrollbackLines)
	remove := s.addTap(rec.feed)
	defer remove()
	if err := s.Send("__agentls_run(" + strconv.Itoa(seq) + ")\r"); err != nil {
		return "", err
	}

	select {
	case <-rec.ended:
		if rec.exiting {
			// exit() in the cell: let the interpreter go before the next
			// Run looks at it.
			select {
			case <-s.Done():
			case <-time.After(interruptGrace):
				s.kill(r.m.opts.KillGrace)
			}
			return note + rec.text() + exitNote(s), nil
		}
		return note + rec.text(), nil
	case <-s.Done():
		return note + rec.text() + exitNote(s), nil
	case <-ctx.Done():
	}
	// Interrupt only a cell that has started: a C-c that arrives while the
	// call is still in the terminal's input queue would discard it.
	select {
	case <-rec.started:
		_ = s.SendKeys("C-c")
	case <-s.Done():
		return note + rec.text() + exitNote(s), ctx.Err()
	case <-time.After(interruptGrace):
	}
	select {
	case <-rec.ended:
		return note + rec.text(), fmt.Errorf("python cell interrupted: %w", ctx.Err())
	case <-s.Done():
		return note + rec.text() + exitNote(s), ctx.Err()
	case <-time.After(interruptGrace):
	}
	s.kill(r.m.opts.KillGrace)
	return note + rec.text() + "\n(The interpreter did not stop after C-c and was killed; the next run starts a fresh one.)",
		fmt.Errorf("python cell interrupted: %w", ctx.Err())
}

func exitNote(s *Session) string {
	code, _ := s.ExitCode()
	return fmt.Sprintf("\n(The Python interpreter exited with code %d; the next run starts a fresh one.)", code)
}

// Close kills the interpreter; the next Run starts a fresh one.
func (r *REPL) Close() error {
	if s := r.session(); s != nil {
		s.kill(r.m.opts.KillGrace)
	}
	return nil
}

// cellRecorder picks one cell's output out of the raw pty stream: the bytes
// between its start and end markers go into a terminal of their own, so
// that progress bars and escape sequences read as they would on screen.
// Markers may be split across reads.
type cellRecorder struct {
	startMark, endMark, exitMark []byte
	exiting                      bool // the cell raised SystemExit: the interpreter is going
	body                         *Terminal
	pending                      []byte
	inBody                       bool
	started, ended               chan struct{}
	done                         bool
	mu                           sync.Mutex // feed runs under the session's lock, text from Run
}

func newCellRecorder(nonce string, seq, cols, scrollback int) *cellRecorder {
	mark := func(kind string) []byte {
		return []byte("\x1b]7770;agentls-" + kind + "-" + nonce + "-" + strconv.Itoa(seq) + "\x07")
	}
	return &cellRecorder{
		startMark: mark("start"),
		endMark:   mark("done"),
		exitMark:  mark("exit"),
		body:      NewTerminal(cols, 50, scrollback),
		started:   make(chan struct{}),
		ended:     make(chan struct{}),
	}
}

func (c *cellRecorder) feed(p []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.done {
		return
	}
	c.pending = append(c.pending, p...)
	if !c.inBody {
		i := bytes.Index(c.pending, c.startMark)
		if i < 0 {
			c.pending = keepTail(c.pending, len(c.startMark)-1)
			return
		}
		c.pending = c.pending[i+len(c.startMark):]
		c.inBody = true
		close(c.started)
	}
	i := bytes.Index(c.pending, c.endMark)
	if j := bytes.Index(c.pending, c.exitMark); j >= 0 && (i < 0 || j < i) {
		i, c.exiting = j, true
	}
	if i >= 0 {
		c.body.Write(c.pending[:i])
		c.pending = nil
		c.done = true
		close(c.ended)
		return
	}
	// Everything but a possible beginning of an end marker (both are as
	// long) is output.
	safe := max(len(c.pending)-(len(c.endMark)-1), 0)
	c.body.Write(c.pending[:safe])
	c.pending = append(c.pending[:0], c.pending[safe:]...)
}

func keepTail(b []byte, n int) []byte {
	if len(b) <= n {
		return b
	}
	return append(b[:0], b[len(b)-n:]...)
}

// text returns the cell's output so far, without leading or trailing
// blank lines.
func (c *cellRecorder) text() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return strings.Trim(c.body.Capture(), "\n")
}
