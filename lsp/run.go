package lsp

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/edits"
	"github.com/agentls/agentls/internal/statedir"
	"github.com/agentls/agentls/procs/diagnose"
	"github.com/agentls/agentls/procs/jobs"
	"github.com/agentls/agentls/procs/policy"
	"github.com/agentls/agentls/tools/approval"
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

// shellHost returns the workspace's host, made on first use.
func (s *Server) shellHost() (*shelltool.Host, error) {
	s.hostMu.Lock()
	defer s.hostMu.Unlock()
	if s.host != nil {
		return s.host, nil
	}
	root := s.session().root
	if root == "" {
		return nil, fmt.Errorf("no workspace folder: open a folder so commands have a directory to run in")
	}
	set := s.currentSettings()
	logDir := ""
	if dir, err := statedir.Dir(s.getenv, "runs", root); err == nil {
		// One folder per server: two editors on one workspace keep their
		// own logs.
		logDir = filepath.Join(dir, fmt.Sprintf("%s-%d", time.Now().UTC().Format("20060102T150405Z"), os.Getpid()))
	} else {
		s.log.Warn("command logs are not kept", "err", err)
	}
	h, err := shelltool.New(shelltool.Options{
		Root:       root,
		LogDir:     logDir,
		Timeout:    time.Duration(set.ShellTimeout) * time.Second,
		Policy:     policy.Config{Allow: set.CommandAllowlist, Deny: set.CommandDenylist},
		Limits:     set.OutputLimits.Shell(),
		Output:     s.commandOutput,
		Finished:   s.commandFinished,
		JobStarted: s.showJob,
		BeforeRun:  s.beforeCommand,
		AlwaysFile: statedir.KeptApprovals(s.getenv, root),
	})
	if err != nil {
		return nil, err
	}
	s.host = h
	return h, nil
}

// configureHost brings a running host in step with new settings.
func (s *Server) configureHost() {
	s.hostMu.Lock()
	h := s.host
	s.hostMu.Unlock()
	set := s.currentSettings()
	if h == nil {
		return
	}
	if err := h.SetPolicy(policy.Config{Allow: set.CommandAllowlist, Deny: set.CommandDenylist}); err != nil {
		s.log.Warn("command policy", "err", err)
	}
	h.SetLimits(set.OutputLimits.Shell())
}

// closeHost kills every process the tools started.
func (s *Server) closeHost() {
	s.hostMu.Lock()
	h := s.host
	s.host = nil
	s.hostMu.Unlock()
	if h != nil {
		if err := h.Close(); err != nil {
			s.log.Warn("stopping commands and jobs", "err", err)
		}
	}
}

// A confirmer asks the editor's user on behalf of a turn.
type confirmer struct {
	s    *Server
	who  string
	path string
	line int
}

func (c confirmer) Confirm(ctx context.Context, q approval.Question) (approval.Answer, error) {
	return c.s.confirm(ctx, c.who, c.path, c.line, q)
}

// commandFinished turns a finished command's output into diagnostics,
// replacing those of its last run, and tells the user how it went.
func (s *Server) commandFinished(f shelltool.Finished) {
	ctx := s.ctx
	root, set := s.session().root, s.currentSettings()
	diags, err := diagnose.Parse(f.Command, f.Output, diagnose.Options{Dir: f.Dir, Formats: set.ErrorFormats, Root: root})
	if err != nil {
		s.showMessage(ctx, protocol.MessageTypeWarning, "agentls: agentls.errorFormats: %v", err)
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
			if text, _, _, err := s.source().Read(ctx, rel); err == nil {
				m = edits.NewMapper(text)
			}
			texts[rel] = m
		}
		diag := protocol.Diagnostic{
			Range:    s.lineRange(m, d.Line, d.Col),
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
	touched := s.problems.replace(key, byFile)
	for _, rel := range touched {
		s.publishDiagnostics(ctx, rel)
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
	s.showMessage(ctx, typ, "%s", what)
}

// lineRange is the range of a reported line (1-based) from its column
// (1-based, in bytes; 0 for the line's first non-blank) to its end, in
// the negotiated encoding, on the file's text m (nil: unreadable, the
// whole line).
func (s *Server) lineRange(m *edits.Mapper, line, col int) protocol.Range {
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
	enc := s.session().encoding
	sl, sc, _ := m.Position(from, enc)
	el, ec, _ := m.Position(end, enc)
	return protocol.Range{Start: protocol.Position{Line: uint32(sl), Character: uint32(sc)}, End: protocol.Position{Line: uint32(el), Character: uint32(ec)}}
}

// showJob shows a running job as progress until it ends; its cancel
// button kills it.
func (s *Server) showJob(info jobs.Info) {
	h, err := s.shellHost()
	if err != nil {
		return
	}
	s.goTask(fmt.Sprintf("agentls: job %d: %s", info.ID, clip(info.Command, 60, "…")), func(ctx context.Context, t *task) {
		for {
			got, err := h.Jobs().Wait(ctx, info.ID, 5*time.Second)
			if err != nil { // cancelled: the user pressed cancel
				if _, err := h.Jobs().Kill(context.WithoutCancel(ctx), info.ID); err != nil {
					s.log.Warn("kill job", "job", info.ID, "err", err)
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

type jobArgs struct {
	Command string `json:"command"`
	Job     int    `json:"job"`
	Show    bool   `json:"show"` // jobs.output: open the log file too
}

// jobInfo is a job as the commands return it.
type jobInfo struct {
	ID       int     `json:"id"`
	Command  string  `json:"command"`
	Running  bool    `json:"running"`
	ExitCode int     `json:"exitCode"`
	Seconds  float64 `json:"seconds"`
	Log      string  `json:"log,omitempty"`
}

func toJobInfo(i jobs.Info) jobInfo {
	return jobInfo{ID: i.ID, Command: i.Command, Running: i.Running, ExitCode: i.ExitCode, Seconds: i.Duration.Seconds(), Log: i.LogPath}
}

// jobCommand runs agentls.run and the agentls.jobs commands. They answer
// at once; a job runs in the background.
func (s *Server) jobCommand(command string, a jobArgs) (any, error) {
	h, err := s.shellHost()
	if err != nil {
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidRequest, err.Error())
	}
	if command == cmdRun {
		if strings.TrimSpace(a.Command) == "" {
			return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, "agentls.run takes {command}")
		}
		info, err := h.StartJob(s.ctx, a.Command)
		if err != nil {
			return nil, jsonrpc2.NewError(jsonrpc2.InternalError, fmt.Sprintf("agentls.run: %v", err))
		}
		return map[string]int{"job": info.ID}, nil
	}
	if command == cmdJobsList {
		out := []jobInfo{}
		for _, i := range h.Jobs().List() {
			out = append(out, toJobInfo(i))
		}
		return out, nil
	}
	info, ok := h.Jobs().Info(a.Job)
	if !ok {
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, fmt.Sprintf("%s: no job %d (agentls.jobs.list lists them)", command, a.Job))
	}
	if command == cmdJobsKill {
		s.goBackground("kill job", func(ctx context.Context) {
			got, err := h.Jobs().Kill(ctx, a.Job)
			if err != nil {
				s.showMessage(ctx, protocol.MessageTypeError, "agentls: kill job %d: %v", a.Job, err)
				return
			}
			s.showMessage(ctx, protocol.MessageTypeInfo, "agentls: %s", jobs.KilledMessage(got))
		})
		return toJobInfo(info), nil
	}
	o, err := h.Jobs().Output(a.Job, 0, 0)
	if err != nil {
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, err.Error())
	}
	if a.Show && info.LogPath != "" {
		s.goBackground("show job log", func(ctx context.Context) { s.showFile(ctx, info.LogPath) })
	}
	return map[string]any{"job": toJobInfo(info), "stdout": o.Stdout, "stderr": o.Stderr, "text": jobs.FormatOutput(info, o)}, nil
}

// showFile opens a file in the editor where it can, else names it.
func (s *Server) showFile(ctx context.Context, file string) {
	if !s.showDocument(ctx, file) {
		s.showMessage(ctx, protocol.MessageTypeInfo, "agentls: the full output is in %s", file)
	}
}
