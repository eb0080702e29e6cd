package acp

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agentls/agentls/procs/shell"
)

// When the client offers terminal/*, the shell tool's commands run in
// the client's terminals, where the user watches them: the shell host
// checks a block against the command policy and asks the user exactly as
// it does for its own shell (tools/shelltool), and only a block the user
// and the policy let through reaches execInTerminal (the host's Exec).
// There it runs whole, as checked, with `bash -c` in the workspace
// folder (a fresh shell each block: the policy judged it from there,
// and no `cd` of an earlier block carries over); the tool call embeds the terminal while it runs; its output
// comes back with terminal/output once terminal/wait_for_exit says it
// ended, and the terminal is released. A cancelled turn or the shell
// timeout kills it (terminal/kill) first. `bg` jobs, ipython and tmux
// stay agentls's own processes.

// terminalOutputLimit is how much of a command's output the client
// keeps (it drops the start beyond it); the model reads the head and
// tail of what is kept, as it does of the shell's.
const terminalOutputLimit = 1 << 20

// terminalGrace bounds each request that cleans a terminal up after the
// turn was cancelled or the command timed out.
const terminalGrace = 5 * time.Second

// trackerKey holds a turn's tracker in its context, for execInTerminal
// to show the terminal on the running call.
type trackerKey struct{}

func withTracker(ctx context.Context, t *tracker) context.Context {
	return context.WithValue(ctx, trackerKey{}, t)
}

func trackerOf(ctx context.Context) *tracker {
	t, _ := ctx.Value(trackerKey{}).(*tracker)
	return t
}

// execInTerminal runs an allowed script in a client terminal and
// reports it as the shell reports a command. timeout bounds it (0:
// shell.DefaultTimeout).
func (s *session) execInTerminal(ctx context.Context, script string, timeout time.Duration) (shell.Command, error) {
	if timeout <= 0 {
		timeout = shell.DefaultTimeout
	}
	cmd := shell.Command{Text: script}
	cwd := s.root
	limit := terminalOutputLimit
	created, err := s.a.conn.CreateTerminal(ctx, sdk.CreateTerminalRequest{
		SessionId:       s.id,
		Command:         "bash",
		Args:            []string{"--noprofile", "--norc", "-c", script},
		Cwd:             &cwd,
		Env:             terminalEnv(),
		OutputByteLimit: &limit,
	})
	if err != nil {
		return cmd, fmt.Errorf("terminal/create: %w", describe(err))
	}
	id := created.TerminalId
	if t := trackerOf(ctx); t != nil {
		t.addTerminal(id)
	}
	// Every request after this one is made even if the turn is
	// cancelled: the terminal is killed and released, never left behind.
	cleanup := func() (context.Context, context.CancelFunc) {
		return context.WithTimeout(context.WithoutCancel(ctx), terminalGrace)
	}
	defer func() {
		c, cancel := cleanup()
		defer cancel()
		if _, err := s.a.conn.ReleaseTerminal(c, sdk.ReleaseTerminalRequest{SessionId: s.id, TerminalId: id}); err != nil {
			s.a.logf("terminal/release %s: %v", id, err)
		}
	}()
	start := time.Now()
	waitCtx, cancel := context.WithTimeout(ctx, timeout)
	exit, werr := s.a.conn.WaitForTerminalExit(waitCtx, sdk.WaitForTerminalExitRequest{SessionId: s.id, TerminalId: id})
	timedOut := errors.Is(waitCtx.Err(), context.DeadlineExceeded) && ctx.Err() == nil
	cancel()
	cmd.Duration = time.Since(start)
	stopped := werr != nil
	if stopped {
		c, cancel := cleanup()
		if _, err := s.a.conn.KillTerminal(c, sdk.KillTerminalRequest{SessionId: s.id, TerminalId: id}); err != nil {
			s.a.logf("terminal/kill %s: %v", id, err)
		}
		cancel()
	}
	c, cancelOut := cleanup()
	out, oerr := s.a.conn.TerminalOutput(c, sdk.TerminalOutputRequest{SessionId: s.id, TerminalId: id})
	cancelOut()
	cmd.Stdout = out.Output
	if out.Truncated {
		cmd.Stdout = fmt.Sprintf("(the terminal kept only the last %d bytes of the output)\n", terminalOutputLimit) + cmd.Stdout
	}
	switch {
	case timedOut:
		cmd.TimedOut, cmd.ExitCode = true, shell.ExitTimedOut
	case stopped && ctx.Err() != nil:
		cmd.Interrupted, cmd.ExitCode = true, shell.ExitInterrupted
	case stopped:
		return cmd, fmt.Errorf("terminal/wait_for_exit: %w", describe(werr))
	case oerr != nil:
		return cmd, fmt.Errorf("terminal/output: %w", describe(oerr))
	default:
		cmd.ExitCode = exitCode(exit.ExitCode, exit.Signal)
	}
	return cmd, nil
}

// exitCode is a terminal's exit status as a shell's: 128+n for a signal
// the client names SIGn or by a name bash knows, else 1.
func exitCode(code *int, signal *string) int {
	switch {
	case code != nil:
		return *code
	case signal != nil:
		for n, name := range []string{"", "SIGHUP", "SIGINT", "SIGQUIT", "SIGILL", "SIGTRAP", "SIGABRT", "SIGBUS", "SIGFPE", "SIGKILL", "SIGUSR1", "SIGSEGV", "SIGUSR2", "SIGPIPE", "SIGALRM", "SIGTERM"} {
			if n > 0 && strings.EqualFold(strings.TrimPrefix(*signal, "SIG"), strings.TrimPrefix(name, "SIG")) {
				return 128 + n
			}
		}
	}
	return 1
}

// terminalEnv is what the agent's commands get in their environment
// beyond the client's own, as in agentls's shell (shell.Environ): no
// pager or editor waits on the user, and git's settings that would run a
// program by themselves are pinned off above the repository's config.
// The client's environment is taken to be the agent's (it started the
// agent).
func terminalEnv() []sdk.EnvVariable {
	have := map[string]string{}
	for _, kv := range os.Environ() {
		k, v, _ := strings.Cut(kv, "=")
		have[k] = v
	}
	want := map[string]string{}
	var order []string
	for _, kv := range shell.Environ(nil) {
		k, v, _ := strings.Cut(kv, "=")
		if _, seen := want[k]; !seen {
			order = append(order, k)
		}
		want[k] = v // the last wins, as in exec
	}
	var env []sdk.EnvVariable
	for _, k := range order {
		if v, ok := have[k]; !ok || v != want[k] {
			env = append(env, sdk.EnvVariable{Name: k, Value: want[k]})
		}
	}
	return env
}

// describe is a client's error answer with its data, which says what
// went wrong.
func describe(err error) error {
	var re *sdk.RequestError
	if errors.As(err, &re) && re.Data != nil {
		return fmt.Errorf("%s (%v)", re.Message, re.Data)
	}
	return err
}
