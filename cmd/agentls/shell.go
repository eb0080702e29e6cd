package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/internal/statedir"
	"github.com/agentls/agentls/procs/diagnose"
	"github.com/agentls/agentls/settings"
	"github.com/agentls/agentls/tools/approval"
	"github.com/agentls/agentls/tools/shelltool"
)

// runLogDir is where a terminal turn keeps its commands' full output: the
// state folder, one folder per run ("" if there is none).
func runLogDir(root string) string {
	dir, err := statedir.Dir(os.Getenv, "runs", root)
	if err != nil {
		return ""
	}
	return filepath.Join(dir, fmt.Sprintf("%s-%d", time.Now().UTC().Format("20060102T150405Z"), os.Getpid()))
}

// newShellHost gives a terminal turn the shell tools as set says, the
// same options as the server's (agent.ShellOptionsOf): commands run under
// root with the workspace's policy, timeout and output limits, their
// output kept in logDir; when one ends, the problems its output names
// (the errorFormats setting's included) are printed, the terminal's
// diagnostics.
func newShellHost(set settings.Settings, root, logDir string, stderr io.Writer) (*shelltool.Host, error) {
	var mu sync.Mutex
	opts := agent.ShellOptionsOf(set, os.Getenv, root)
	opts.LogDir = logDir
	opts.Finished = func(f shelltool.Finished) {
		diags, _ := diagnose.Parse(f.Command, f.Output, agent.DiagnoseOptionsOf(set, f.Dir, root))
		if len(diags) == 0 && len(diagnose.Presets(f.Command)) == 0 {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(stderr, "[agentls] %s\n", diagnose.Summary(f.Command, diags, f.ExitCode))
		for _, d := range diags {
			rel, _ := filepath.Rel(root, d.Path)
			first, _, _ := strings.Cut(d.Message, "\n")
			at := fmt.Sprintf("%s:%d", rel, d.Line)
			if d.Col > 0 {
				at += fmt.Sprintf(":%d", d.Col)
			}
			fmt.Fprintf(stderr, "[agentls]   %s: %s: %s\n", at, d.Severity, first)
		}
	}
	return shelltool.New(opts)
}

// terminalConfirmer asks on the terminal: the question on stderr, the
// answer a line of stdin.
type terminalConfirmer struct {
	mu  sync.Mutex
	in  *bufio.Reader
	out io.Writer
}

func (c *terminalConfirmer) Confirm(ctx context.Context, q approval.Question) (approval.Answer, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	always := ""
	if q.Pattern != "" {
		always = fmt.Sprintf(", [a]lways `%s`", q.Pattern)
	}
	for {
		if q.Detail != "" {
			fmt.Fprintf(c.out, "\n%s", q.Detail)
		}
		fmt.Fprintf(c.out, "\n[agentls] %s? (%s)\n[agentls] [y]es%s, [n]o, [s]top the turn: ", q.What(), q.Reason, always)
		line, err := c.in.ReadString('\n')
		if ctx.Err() != nil {
			return approval.Skip, ctx.Err()
		}
		switch strings.ToLower(strings.TrimSpace(line)) {
		case "y", "yes":
			return approval.Run, nil
		case "a", "always":
			if q.Pattern != "" {
				return approval.Always, nil
			}
		case "s", "stop":
			return approval.StopTurn, nil
		case "n", "no":
			return approval.Skip, nil
		}
		if err != nil { // end of input: nobody to ask
			return approval.Skip, nil
		}
	}
}

// isTerminal reports whether r is a terminal someone can answer on: the
// terminal driver knows it (isatty), which /dev/null, also a character
// device, does not.
func isTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	return ok && fdIsTerminal(f.Fd())
}
