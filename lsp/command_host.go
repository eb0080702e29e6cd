package lsp

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/edits"
	"github.com/agentls/agentls/internal/statedir"
	"github.com/agentls/agentls/internal/text"
	"github.com/agentls/agentls/lsp/internal/position"
	"github.com/agentls/agentls/procs/diagnose"
	"github.com/agentls/agentls/procs/jobs"
	"github.com/agentls/agentls/tools/shelltool"
)

// Commands and jobs: the agent's shell tools and the user's agentls.run
// share one shelltool.Host per workspace (one persistent shell, the jobs,
// the terminal sessions). Output streams to the output channel; when a
// command or job ends, its output becomes diagnostics on the files and
// lines it names, replacing those of the same command's last run. A
// running job shows as progress, cancellable (which kills it).

const (
	cmdRun        = "agentls.run"
	cmdJobsList   = "agentls.jobs.list"
	cmdJobsOutput = "agentls.jobs.output"
	cmdJobsKill   = "agentls.jobs.kill"
)

// commandHost is the workspace's commands and jobs: the shell host, made
// on first use, and what becomes of its output. What it needs of the
// server is named here, so that it reaches nothing else.
type commandHost struct {
	ctx      context.Context // the connection's
	session  func() *session
	settings func() serverSettings
	getenv   func(string) string
	log      *slog.Logger
	// read is a file as the editor holds it (the server's source).
	read func(ctx context.Context, rel string) (string, error)
	// problems keeps commands' diagnostics; publish sends a file's.
	problems *commandProblems
	publish  func(ctx context.Context, rel string)
	// show tells the user; output is the output channel; progress is
	// the agent command running now.
	show     func(ctx context.Context, typ protocol.MessageType, format string, args ...any)
	output   *outputChannel
	progress *commandProgress
	// goTask runs a job's progress; syncDisk saves the buffers before an
	// agent's command (the note says which it could not).
	goTask   func(title string, fn func(ctx context.Context, t *task))
	syncDisk func(ctx context.Context) string

	mu   sync.Mutex
	host *shelltool.Host
}

// get returns the workspace's host, made on first use.
func (c *commandHost) get() (*shelltool.Host, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.host != nil {
		return c.host, nil
	}
	root := c.session().root
	if root == "" {
		return nil, fmt.Errorf("no workspace folder: open a folder so commands have a directory to run in")
	}
	logDir := ""
	if dir, err := statedir.Dir(c.getenv, "runs", root); err == nil {
		// One folder per server: two editors on one workspace keep their
		// own logs.
		logDir = filepath.Join(dir, fmt.Sprintf("%s-%d", time.Now().UTC().Format("20060102T150405Z"), os.Getpid()))
	} else {
		c.log.Warn("command logs are not kept", "err", err)
	}
	// What the settings decide is agent's to say, as for agentls ask;
	// the server adds where output and finished commands go.
	opts := agent.ShellOptionsOf(c.settings(), c.getenv, root)
	opts.LogDir = logDir
	opts.Output, opts.Finished, opts.JobStarted, opts.BeforeRun = c.streamOutput, c.finished, c.showJob, c.beforeRun
	h, err := shelltool.New(opts)
	if err != nil {
		return nil, err
	}
	c.host = h
	return h, nil
}

// running returns the host if it was made (nil: no command ran yet).
func (c *commandHost) running() *shelltool.Host {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.host
}

// configure brings a running host in step with new settings.
func (c *commandHost) configure() {
	h := c.running()
	if h == nil {
		return
	}
	set := c.settings()
	if err := h.SetPolicy(agent.PolicyOf(set)); err != nil {
		c.log.Warn("command policy", "err", err)
	}
	h.SetLimits(agent.ShellLimitsOf(set))
}

// close kills every process the tools started.
func (c *commandHost) close() {
	c.mu.Lock()
	h := c.host
	c.host = nil
	c.mu.Unlock()
	if h != nil {
		if err := h.Close(); err != nil {
			c.log.Warn("stopping commands and jobs", "err", err)
		}
	}
}

// finished turns a finished command's output into diagnostics,
// replacing those of its last run, and tells the user how it went.
func (c *commandHost) finished(f shelltool.Finished) {
	ctx := c.ctx
	root, set := c.session().root, c.settings()
	diags, err := diagnose.Parse(f.Command, f.Output, agent.DiagnoseOptionsOf(set, f.Dir, root))
	if err != nil {
		c.show(ctx, protocol.MessageTypeWarning, "agentls: agentls.errorFormats: %v", err)
	}
	source := "agentls: " + diagnose.Label(f.Command)
	byFile := map[string][]protocol.Diagnostic{}
	texts := map[string]*edits.Mapper{} // each file read once, as the editor holds it
	for _, d := range diags {
		rel, err := filepath.Rel(root, d.Path)
		if err != nil || strings.HasPrefix(rel, "..") {
			continue
		}
		rel = filepath.ToSlash(rel)
		m, seen := texts[rel]
		if !seen {
			if content, err := c.read(ctx, rel); err == nil {
				m = edits.NewMapper(content)
			}
			texts[rel] = m
		}
		diag := protocol.Diagnostic{
			Range:    c.lineRange(m, d.Line, d.Col),
			Severity: protocol.DiagnosticSeverity(d.Severity),
			Source:   source,
			Message:  d.Message,
		}
		if d.Code != "" {
			// An empty code is sent as none: Helix shows "code": "" as "()".
			diag.Code = d.Code
		}
		byFile[rel] = append(byFile[rel], diag)
	}
	key := strings.Join(strings.Fields(f.Command), " ")
	touched := c.problems.replace(key, byFile)
	for _, rel := range touched {
		c.publish(ctx, rel)
	}
	// Say how it went for commands that report problems, or that had
	// diagnostics to clear; an `ls` needs no summary.
	if len(touched) == 0 && len(diagnose.Presets(f.Command)) == 0 && f.Job == 0 {
		return
	}
	what := "agentls: " + diagnose.Summary(f.Command, diags, f.ExitCode)
	if f.Job != 0 {
		what = fmt.Sprintf("agentls: job %d: %s", f.Job, diagnose.Summary(f.Command, diags, f.ExitCode))
	}
	typ := protocol.MessageTypeInfo
	if f.ExitCode != 0 || len(diags) > 0 {
		typ = protocol.MessageTypeWarning
	}
	c.show(ctx, typ, "%s", what)
}

// lineRange is the range of a reported line (1-based) from its column
// (1-based, in bytes; 0 for the line's first non-blank) to its end, in
// the negotiated encoding, on the file's text m (nil: unreadable, the
// whole line).
func (c *commandHost) lineRange(m *edits.Mapper, line, col int) protocol.Range {
	if line <= 0 {
		return protocol.Range{}
	}
	l := uint32(line - 1)
	whole := protocol.Range{Start: protocol.Position{Line: l}, End: protocol.Position{Line: l + 1}}
	if m == nil {
		return whole
	}
	text := m.Text()
	start, err := m.Offset(line-1, 0, edits.UTF8)
	if err != nil {
		return whole
	}
	end := len(text)
	if i := strings.IndexByte(text[start:], '\n'); i >= 0 {
		end = start + i
	}
	from := start + len(text[start:end]) - len(strings.TrimLeft(text[start:end], " \t"))
	if col > 0 {
		from = min(start+col-1, end)
	}
	r, err := position.ForText(text, c.session().encoding).Range(from, end)
	if err != nil {
		return whole
	}
	return r
}

// showJob shows a running job as progress until it ends; its cancel
// button kills it.
func (c *commandHost) showJob(info jobs.Info) {
	h, err := c.get()
	if err != nil {
		return
	}
	c.goTask(fmt.Sprintf("agentls: job %d: %s", info.ID, text.Shorten(info.Command, 60, "…")), func(ctx context.Context, t *task) {
		for {
			got, err := h.Jobs().Wait(ctx, info.ID, 5*time.Second)
			if err != nil { // cancelled: the user pressed cancel
				if _, err := h.Jobs().Kill(context.WithoutCancel(ctx), info.ID); err != nil {
					c.log.Warn("kill job", "job", info.ID, "err", err)
				}
				return
			}
			if !got.Running {
				return
			}
			t.report(ctx, fmt.Sprintf("running for %s, %d KB of output", got.Duration.Round(time.Second), (got.StdoutBytes+got.StderrBytes)/1024))
		}
	})
}

// beforeRun runs before an agent's command: the disk is brought in
// step with the buffers (syncDisk), and the command shows in its turn's
// progress.
func (c *commandHost) beforeRun(ctx context.Context) string {
	note := c.syncDisk(ctx)
	if t := taskOf(ctx); t != nil {
		c.progress.begin(c.ctx, t)
	}
	return note
}

// streamOutput streams a command's or job's output to the output
// channel, and an agent command's to its turn's progress.
func (c *commandHost) streamOutput(source string, p []byte) {
	c.output.write(source, p)
	if strings.HasPrefix(source, "cmd ") {
		c.progress.output(c.ctx, p)
	}
}
