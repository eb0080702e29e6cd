package shelltool

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/agentls/agentls/internal/text"
	"github.com/agentls/agentls/procs/jobs"
	"github.com/agentls/agentls/procs/policy"
	"github.com/agentls/agentls/procs/proc"
	"github.com/agentls/agentls/procs/shell"
	"github.com/agentls/agentls/procs/term"
	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/approval"
)

// Options configure a Host.
type Options struct {
	// Root is the workspace folder: where the shell starts and jobs run.
	Root string
	// LogDir, if set, holds the full output of every command and job
	// (commands/ and jobs/ below it).
	LogDir string
	// Timeout bounds one shell command (0: shell.DefaultTimeout).
	Timeout time.Duration
	// Policy extends the built-in command rules.
	Policy policy.Config
	// Limits are how much output the model reads per command (the zero
	// value: shell's defaults); SetLimits changes them.
	Limits shell.Limits
	// Output, if set, gets output live: source is "cmd N" or "job N".
	// It must not block long.
	Output func(source string, p []byte)
	// Finished, if set, is told when a command or job ends, to turn its
	// output into diagnostics. It runs on its own goroutine for jobs.
	Finished func(Finished)
	// JobStarted, if set, is told of every job started (to show it as
	// progress).
	JobStarted func(jobs.Info)
	// AlwaysFile, if set, keeps the command patterns the user answered
	// "Always" for, one a line: read when the Host is made, appended to on
	// each new answer, so they hold in the next session too.
	AlwaysFile string
	// BeforeRun, if set, runs before the agent's commands: it brings the
	// disk in step with the editor where it can, and returns a note for
	// the model about what it could not ("" for none).
	BeforeRun func(ctx context.Context) string
	// Exec, if set, runs a block's shell steps in the workspace folder
	// instead of the persistent shell: the ACP client's terminal, where
	// the user watches them. It is called only once the policy and the
	// user let the whole block run, exactly as it was checked; `bg` jobs
	// and the job verbs stay the Host's.
	Exec func(ctx context.Context, script string) (shell.Command, error)
}

// Finished is a command or job that ended.
type Finished struct {
	Command  string
	Dir      string // where it ran
	ExitCode int
	Output   string // stdout then stderr, as kept in memory
	Job      int    // the job's id; 0 for a shell command
	LogPath  string
}

// A Host runs the tools of one workspace. Its methods are safe for
// concurrent use; shell commands run one at a time.
type Host struct {
	opts  Options
	jobs  *jobs.Manager
	terms *term.Manager
	// guard starts the shell's, the jobs' and the terminals' processes:
	// one watchdog kills them all if the server dies without Close.
	guard *proc.Guard

	mu     sync.Mutex
	limits shell.Limits
	policy *policy.Policy
	// remembered are the patterns the user said "Always" for: they
	// outlive a change of configuration.
	remembered []string
	shell      *shell.Session // started on first use
	closed     bool
	// kept holds what the user chose "Always" for outside the command
	// policy: "ipython", "tmux".
	kept approval.Kept
}

// New returns a Host; no process starts until a tool needs one.
func New(opts Options) (*Host, error) {
	p, err := policy.New(inWorkspace(opts.Policy, opts.Root))
	if err != nil {
		return nil, fmt.Errorf("command policy: %w", err)
	}
	h := &Host{opts: opts, policy: p, limits: opts.Limits}
	h.guard = proc.NewGuard()
	jobLogs := ""
	if opts.LogDir != "" {
		jobLogs = filepath.Join(opts.LogDir, "jobs")
	}
	h.jobs = jobs.NewManager(jobs.Options{
		Dir:    opts.Root,
		LogDir: jobLogs,
		Output: func(id int, _ string, p []byte) {
			if opts.Output != nil {
				opts.Output(fmt.Sprintf("job %d", id), p)
			}
		},
		Exited: h.jobExited,
		Guard:  h.guard,
	})
	h.terms = term.NewManager(term.Options{Dir: opts.Root, Guard: h.guard})
	if opts.AlwaysFile != "" {
		data, err := os.ReadFile(opts.AlwaysFile)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("kept approvals: %w", err)
		}
		for _, line := range strings.Split(string(data), "\n") {
			if line = strings.TrimSpace(line); line != "" {
				// Only a hand-edited line can be invalid: skipped, the
				// command is asked about again, which is safe.
				_ = h.Remember(line)
			}
		}
	}
	return h, nil
}

// keepAlways appends a pattern to the AlwaysFile.
func (h *Host) keepAlways(pattern string) error {
	if h.opts.AlwaysFile == "" {
		return nil
	}
	f, err := os.OpenFile(h.opts.AlwaysFile, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return fmt.Errorf("keep the approval of %q: %w", pattern, err)
	}
	_, err = f.WriteString(pattern + "\n")
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("keep the approval of %q: %w", pattern, err)
	}
	return nil
}

// Policy is the command policy, with what the user allowed meanwhile.
func (h *Host) Policy() *policy.Policy {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.policy
}

// SetPolicy replaces the configured rules (the user changed settings);
// what the user allowed with "Always" stays allowed.
func (h *Host) SetPolicy(cfg policy.Config) error {
	p, err := policy.New(inWorkspace(cfg, h.opts.Root))
	if err != nil {
		return fmt.Errorf("command policy: %w", err)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, pat := range h.remembered {
		p.Remember(pat)
	}
	h.policy = p
	return nil
}

// inWorkspace gives the policy the workspace folder, where allowed
// commands may read.
func inWorkspace(cfg policy.Config, root string) policy.Config {
	if cfg.Root == "" && root != "" {
		if abs, err := filepath.Abs(root); err == nil {
			cfg.Root = abs
		}
	}
	return cfg
}

// shellDir is where the shell's next command runs ("" before it started:
// the workspace folder), for the policy to judge relative paths.
func (h *Host) shellDir() string {
	h.mu.Lock()
	sh := h.shell
	h.mu.Unlock()
	if sh == nil {
		return ""
	}
	return sh.Dir()
}

// SetLimits changes how much of a command's output the model reads. The
// shell keeps in memory what the limits at its start asked for (or its
// defaults), so larger limits show more only from the next session.
func (h *Host) SetLimits(l shell.Limits) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.limits = l
}

// Remember allows a command pattern from now on, as the user's "Always"
// does (a caller restores earlier answers with it).
func (h *Host) Remember(pattern string) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if err := h.policy.Remember(pattern); err != nil {
		return err
	}
	h.remembered = append(h.remembered, pattern)
	return nil
}

// Jobs are the workspace's background jobs.
func (h *Host) Jobs() *jobs.Manager { return h.jobs }

// Close kills every process the host started and waits for them.
func (h *Host) Close() error {
	h.mu.Lock()
	sh := h.shell
	h.shell, h.closed = nil, true
	h.mu.Unlock()
	var errs []error
	if sh != nil {
		errs = append(errs, sh.Close())
	}
	errs = append(errs, h.jobs.Close(), h.terms.Close(), h.guard.Close())
	return errors.Join(errs...)
}

// TurnTools are the tools this package runs, for an agent turn's default
// tool list (ipython only where python3 is installed).
func TurnTools() []string { return []string{tools.NameShell, tools.NameIPython, tools.NameTmux} }

// IsShellTool reports whether a tool is one this package runs.
func IsShellTool(name string) bool {
	_, ok := lookupHostTool(name)
	return ok
}

// A hostTool is one of the tools a Host runs: the method that runs its
// input, and the named argument that holds the input when the call has
// no body.
type hostTool struct {
	run func(h *Host, ctx context.Context, input string, in turn) (string, error)
	arg string
}

// lookupHostTool returns the tool of that name this package runs.
func lookupHostTool(name string) (hostTool, bool) {
	switch name {
	case tools.NameShell:
		return hostTool{run: (*Host).runShell, arg: "command"}, true
	case tools.NameIPython:
		return hostTool{run: (*Host).runPython, arg: "code"}, true
	case tools.NameTmux:
		return hostTool{run: (*Host).runTmux, arg: "commands"}, true
	}
	return hostTool{}, false
}

// A turn is what a call of one of these tools reaches of its turn's
// tools.Env: the user to ask, the files the turn's edit tools wrote (an
// allowed runner asks again before it runs one), and how a Python cell
// shows an image. The zero value asks nobody and records nothing.
type turn struct {
	confirm approval.Confirmer
	writes  *tools.TurnWrites
	view    func(ctx context.Context, rel string) (string, error)
}

// bind returns the run function of the tool named name in env: each call
// runs in the Host that host returns, asking env's workspace when the
// policy says to. host is called on each call, so a Host made on first
// use is made only by a turn that runs a command; one that returns nil and
// no error means the workspace runs no commands.
func bind(name string, host func() (*Host, error), env tools.Env) tools.RunFunc {
	t, _ := lookupHostTool(name)
	in := turn{confirm: env.Workspace, writes: env.Writes, view: env.ViewImage}
	return func(ctx context.Context, use tools.ToolUse) (string, error) {
		h, err := host()
		if err != nil {
			return "", err
		}
		if h == nil {
			return "", fmt.Errorf("the %s tool cannot run here: this workspace runs no commands", name)
		}
		return t.run(h, ctx, toolText(use, t.arg), in)
	}
}

// RunTool runs a shell, ipython or tmux call; c asks the user when the
// policy says to (nil: nothing that needs asking runs). An error is the
// tool's failure for the model; approval.ErrStopTurn (wrapped) means the
// user stopped the turn.
func (h *Host) RunTool(ctx context.Context, use tools.ToolUse, c approval.Confirmer) (string, error) {
	t, ok := lookupHostTool(use.Tool)
	if !ok {
		return "", fmt.Errorf("%s is not a shell tool", use.Tool)
	}
	return t.run(h, ctx, toolText(use, t.arg), turn{confirm: c})
}

// toolText is a call's input: its block content, else the named argument.
func toolText(use tools.ToolUse, name string) string {
	if strings.TrimSpace(use.Content) != "" {
		return use.Content
	}
	if v, ok := use.Kwargs[name].(string); ok {
		return v
	}
	return strings.Join(use.Args, " ")
}

// session returns the shell, starting it on first use.
func (h *Host) session(ctx context.Context) (*shell.Session, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return nil, shell.ErrClosed
	}
	if h.shell != nil {
		return h.shell, nil
	}
	logs := ""
	if h.opts.LogDir != "" {
		logs = filepath.Join(h.opts.LogDir, "commands")
	}
	sh, err := shell.Start(ctx, shell.Options{
		Dir: h.opts.Root, Timeout: h.opts.Timeout, LogDir: logs, Keep: h.limits, Guard: h.guard,
		Output: func(cmd int, _ string, p []byte) {
			if h.opts.Output != nil {
				h.opts.Output(fmt.Sprintf("cmd %d", cmd), p)
			}
		},
	})
	if err != nil {
		return nil, fmt.Errorf("start the shell: %w", err)
	}
	h.shell = sh
	return sh, nil
}

// runPython runs code in the workspace's Python session.
func (h *Host) runPython(ctx context.Context, code string, in turn) (string, error) {
	if strings.TrimSpace(code) == "" {
		return "", errors.New("no code to run")
	}
	if err := ask(ctx, in.confirm, &h.kept, approval.Command(code, "Python code runs with your permissions", tools.NameIPython)); err != nil {
		return "", err
	}
	repl, err := h.terms.Python(ctx)
	if err != nil {
		return "", fmt.Errorf("start python: %w", err)
	}
	out, err := repl.RunWith(ctx, code, h.pythonHooks(in))
	if err != nil {
		return out, fmt.Errorf("python: %w", err)
	}
	ran := "Executed code block in " + repl.Interpreter(ctx)
	if strings.TrimSpace(out) == "" {
		return ran + " (no output).", nil
	}
	return ran + ".\n```stdout\n" + strings.TrimRight(out, "\n") + "\n```", nil
}

// runTmux runs tmux verbs on the workspace's terminal sessions; verbs that
// start or type into programs need approval.
func (h *Host) runTmux(ctx context.Context, body string, in turn) (string, error) {
	if tmuxWrites(body) {
		if err := ask(ctx, in.confirm, &h.kept, approval.Command(body, "it starts or types into a terminal program", tools.NameTmux)); err != nil {
			return "", err
		}
	}
	return h.terms.Tmux(ctx, body), nil
}

// tmuxWrites reports whether a tmux body starts a program or sends keys.
func tmuxWrites(body string) bool {
	for _, line := range strings.FieldsFunc(body, func(r rune) bool { return r == '\n' || r == ';' }) {
		verb, _, _ := strings.Cut(strings.TrimSpace(line), " ")
		switch verb {
		case "", "inspect-pane", "list-sessions", "wait", "kill-session":
		default:
			return true
		}
	}
	return false
}

// clipLine shortens a command for a message to the model: its first
// line, at most 200 bytes, saying how much more there is. A question to
// the user shows all of it (approval.Command).
func clipLine(s string) string {
	s = strings.TrimSpace(s)
	first, rest, multi := strings.Cut(s, "\n")
	more := ""
	if multi {
		more = fmt.Sprintf(" … (+%d lines)", strings.Count(rest, "\n")+1)
	}
	return text.Shorten(first, 200, "…") + more
}
