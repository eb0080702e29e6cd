package term

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// Interpreter modes (Options.Interpreter).
const (
	// InterpreterAuto runs IPython when it is installed, else python3.
	InterpreterAuto = ""
	// InterpreterPython runs the plain python3 REPL.
	InterpreterPython = "python"
)

// An interpreter is what the REPL runs: its command, and whether it is
// IPython (then its version).
type interpreter struct {
	argv    []string
	ipython bool
	version string
}

// name says what runs, for the tool's result.
func (i interpreter) name() string {
	if i.ipython {
		return "IPython " + i.version
	}
	return "python3 (IPython is not installed: no magics, no !commands)"
}

// findInterpreter looks for IPython, first as a module of python (Debian's
// ipython3 package, pip's or pyenv's ipython: the same interpreter the
// plain REPL would run), then as an ipython program on PATH (pipx, a
// virtualenv's); else it is python itself.
func findInterpreter(ctx context.Context, python, mode string) interpreter {
	plain := interpreter{argv: []string{python}}
	if mode == InterpreterPython {
		return plain
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second) // a pyenv shim under load takes seconds
	defer cancel()
	if out, err := exec.CommandContext(ctx, python, "-c", "import IPython; print(IPython.__version__)").Output(); err == nil {
		return interpreter{argv: []string{python, "-m", "IPython"}, ipython: true, version: strings.TrimSpace(string(out))}
	}
	for _, prog := range []string{"ipython3", "ipython"} {
		path, err := exec.LookPath(prog)
		if err != nil {
			continue
		}
		if out, err := exec.CommandContext(ctx, path, "--version").Output(); err == nil {
			return interpreter{argv: []string{path}, ipython: true, version: strings.TrimSpace(string(out))}
		}
	}
	return plain
}

// ipythonFlags make IPython scriptable in a pty: the plain prompt (no
// prompt_toolkit redraws or terminal queries), no colours, no banner, no
// history file, nothing asked at exit, no auto-indent of what is typed,
// no terminal title escapes.
var ipythonFlags = []string{
	"--simple-prompt", "--no-banner", "--colors=NoColor", "--HistoryManager.enabled=False",
	"--no-confirm-exit", "--no-autoindent", "--TerminalInteractiveShell.term_title=False",
}

// ipythonHelper is run by IPython (-c, then -i) before its first prompt.
// It defines the function each cell calls, as pythonHelper does for
// python3, running the cell with run_cell (magics, !commands and the
// display of the last value are IPython's own; the Out[n] prompt is left
// out), and routes every way a cell starts a shell command — !cmd, !!cmd
// and x = !cmd, %system and %sx, aliases such as %ls, %pip — through
// agentls: system and getoutput ask over the socket before they run the
// command, expanded ($var, {expr}) as it will run, and then run it
// without expanding it again (a value holding "{...}" is not evaluated
// twice). %%bash and %%sh ask with their script; %%script, %%perl and
// %%ruby, which run any program, are removed. view_image(path) asks
// agentls to show an image to the model.
//
// This is a check of the model's commands, not a sandbox: the cell's
// Python runs with the user's permissions (the user approved Python), and
// os.system in it is Python's.
const ipythonHelper = `
def __agentls_setup():
    import json, os, shlex, socket, sys
    ip = get_ipython()
    cells = os.environ.pop('AGENTLS_CELLS', '')
    nonce = os.environ.pop('AGENTLS_NONCE', '')
    sock = os.environ.pop('AGENTLS_ASK', '')

    def mark(kind, seq):
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os.write(1, ('\x1b]7770;agentls-%s-%s-%d\x07' % (kind, nonce, seq)).encode())

    def request(req):
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
                s.connect(sock)
                s.sendall((json.dumps(req) + '\n').encode())
                line = s.makefile(encoding='utf-8').readline()
            return json.loads(line) if line else {'message': 'agentls gave no answer'}
        except Exception as e:
            return {'message': 'agentls could not be asked (%s)' % e}

    def approved(cmd):
        answer = request({'kind': 'system', 'command': cmd, 'dir': os.getcwd()})
        if answer.get('ok'):
            return True
        print('agentls: not run: ' + answer.get('message', 'refused'), file=sys.stderr)
        return False

    real_system, real_getoutput = ip.system, ip.getoutput

    def unexpanded(run, *args, **kwargs):
        ip.var_expand = lambda cmd, depth=0, formatter=None: cmd
        try:
            return run(*args, **kwargs)
        finally:
            del ip.var_expand

    def system(cmd):
        cmd = ip.var_expand(cmd, depth=1)
        if not approved(cmd):
            ip.user_ns['_exit_code'] = 126
            return None
        return unexpanded(real_system, cmd)

    def getoutput(cmd, split=True, depth=0):
        cmd = ip.var_expand(cmd, depth=depth + 1)
        if not approved(cmd):
            from IPython.utils.text import SList
            return SList() if split else ''
        return unexpanded(real_getoutput, cmd, split=split)

    ip.system = ip.system_piped = ip.system_raw = system
    ip.getoutput = getoutput

    def shell_magic(prog):
        def magic(line, cell):
            if not approved(cell):
                ip.user_ns['_exit_code'] = 126
                return None
            return unexpanded(real_system, prog + ' -c ' + shlex.quote(cell))
        return magic
    cell_magics = ip.magics_manager.magics['cell']
    for name in ('script', 'perl', 'ruby'):
        cell_magics.pop(name, None)
    for prog in ('bash', 'sh'):
        ip.register_magic_function(shell_magic(prog), 'cell', prog)

    def view_image(path):
        """Show the image at path (relative to the current folder) to the agentls model."""
        answer = request({'kind': 'view_image', 'path': os.fspath(path), 'dir': os.getcwd()})
        if not answer.get('ok'):
            raise RuntimeError(answer.get('message', 'refused'))
        print(answer.get('message', ''))

    ip.displayhook.write_output_prompt = lambda: None

    def run(seq):
        end = 'done'
        try:
            mark('start', seq)
            with open(os.path.join(cells, 'cell-%d.py' % seq), encoding='utf-8') as f:
                src = f.read()
            ip.run_cell(src, store_history=True)
            if not getattr(ip, 'keep_running', True) or getattr(ip, 'exit_now', False):
                end = 'exit'
        finally:
            mark(end, seq)

    for name, value in (('__agentls_run', run), ('view_image', view_image)):
        ip.user_ns[name] = value
        ip.user_ns_hidden[name] = value

__agentls_setup()
del __agentls_setup
`

// pythonViewImage defines view_image in the plain python3 REPL, over the
// same socket as IPython's (argv[3] names it).
const pythonViewImage = `
def view_image(path, _sock=_agentls_sys.argv[3]):
    """Show the image at path (relative to the current folder) to the agentls model."""
    import json, os, socket
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
            s.connect(_sock)
            s.sendall((json.dumps({'kind': 'view_image', 'path': os.fspath(path), 'dir': os.getcwd()}) + '\n').encode())
            line = s.makefile(encoding='utf-8').readline()
        answer = json.loads(line) if line else {'message': 'agentls gave no answer'}
    except Exception as e:
        answer = {'message': 'agentls could not be asked (%s)' % e}
    if not answer.get('ok'):
        raise RuntimeError(answer.get('message', 'refused'))
    print(answer.get('message', ''))
`

// CellHooks answer what a running cell asks agentls, with the context of
// the call that runs the cell (so an image reaches that call's turn, and
// a question goes to its user).
type CellHooks struct {
	// System decides whether a shell command a cell starts (IPython's
	// !cmd, %system, %%bash…) may run, in dir: nil runs it; an error
	// says why not, and the cell prints it. Nil: no command runs.
	System func(ctx context.Context, dir, command string) error
	// ViewImage shows the image at path (as the cell gave it, relative to
	// dir) to the model and returns what the cell prints. Nil: refused.
	ViewImage func(ctx context.Context, dir, path string) (string, error)
}

// An askRequest is one line a cell sends over the socket.
type askRequest struct {
	Kind    string `json:"kind"` // "system" or "view_image"
	Command string `json:"command,omitempty"`
	Path    string `json:"path,omitempty"`
	Dir     string `json:"dir"`
}

// An askAnswer is the line agentls sends back.
type askAnswer struct {
	OK      bool   `json:"ok"`
	Message string `json:"message,omitempty"`
}

// maxAskLine bounds a request line (a command, a path).
const maxAskLine = 1 << 20

// listenAsk makes the socket the interpreter asks over, in the cells'
// folder (0700, the user's alone), and serves it until done is closed
// (the interpreter has exited): each connection is one request and its
// answer. A Unix socket rather than a line protocol on the pty: the
// answer is not echoed into the cell's output, the cell's output cannot
// be mistaken for a request, and a cell reading stdin cannot swallow it.
func (r *REPL) listenAsk(dir string) (path string, closeFn func(), err error) {
	// A fresh name for each interpreter: the last one's socket may not be
	// closed yet when a restart makes this one.
	path = filepath.Join(dir, "ask-"+randomHex()+".sock")
	ln, err := net.Listen("unix", path)
	if err != nil {
		return "", nil, fmt.Errorf("make the socket python asks agentls over: %w", err)
	}
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go r.serveAsk(conn)
		}
	}()
	return path, func() { ln.Close() }, nil
}

func (r *REPL) serveAsk(conn net.Conn) {
	defer conn.Close()
	sc := bufio.NewScanner(conn)
	sc.Buffer(make([]byte, 0, 4096), maxAskLine)
	var ans askAnswer
	if !sc.Scan() {
		return
	}
	var req askRequest
	if err := json.Unmarshal(sc.Bytes(), &req); err != nil {
		ans = askAnswer{Message: "agentls could not read the request: " + err.Error()}
	} else {
		ans = r.answer(req)
	}
	line, _ := json.Marshal(ans)
	_, _ = conn.Write(append(line, '\n'))
}

// answer decides one request with the hooks of the call running the cell.
// A request from no running call (a thread a cell started, asking after
// its call returned) is refused: there is nobody to answer for.
func (r *REPL) answer(req askRequest) askAnswer {
	r.mu.Lock()
	hooks, ctx := r.hooks, r.cellCtx
	r.mu.Unlock()
	if ctx == nil {
		return askAnswer{Message: "no agentls call is running this code (it was started by a cell whose call has ended)"}
	}
	switch req.Kind {
	case "system":
		if hooks.System == nil {
			return askAnswer{Message: "shell commands from Python cells are not allowed here; use the shell tool"}
		}
		if err := hooks.System(ctx, req.Dir, req.Command); err != nil {
			return askAnswer{Message: err.Error()}
		}
		return askAnswer{OK: true}
	case "view_image":
		if hooks.ViewImage == nil {
			return askAnswer{Message: "view_image cannot show images from here"}
		}
		msg, err := hooks.ViewImage(ctx, req.Dir, req.Path)
		if err != nil {
			return askAnswer{Message: err.Error()}
		}
		return askAnswer{OK: true, Message: msg}
	}
	return askAnswer{Message: fmt.Sprintf("agentls does not know the request %q", req.Kind)}
}

// Interpreter says what the REPL runs ("IPython 8.12.3", or python3 and
// why), finding it on first use.
func (r *REPL) Interpreter(ctx context.Context) string {
	return r.interpreter(ctx).name()
}

func (r *REPL) interpreter(ctx context.Context) interpreter {
	r.interpOnce.Do(func() {
		r.interp = findInterpreter(ctx, r.m.opts.Python, r.m.opts.Interpreter)
	})
	return r.interp
}

// RunWith runs code as Run does, answering what the cell asks (a shell
// command, an image to show) with hooks and ctx.
func (r *REPL) RunWith(ctx context.Context, code string, hooks CellHooks) (string, error) {
	r.runMu.Lock()
	defer r.runMu.Unlock()
	r.mu.Lock()
	r.hooks, r.cellCtx = hooks, ctx
	r.mu.Unlock()
	defer func() {
		r.mu.Lock()
		r.hooks, r.cellCtx = CellHooks{}, nil
		r.mu.Unlock()
	}()
	return r.run(ctx, code)
}
