package lsp

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/edits"
	"github.com/agentls/agentls/internal/statedir"
	"github.com/agentls/agentls/lsp/internal/position"
	"github.com/agentls/agentls/procs/diagnose"
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
	// What the settings decide is agent's to say, as for agentls ask;
	// the server adds where output and finished commands go.
	opts := agent.ShellOptionsOf(set, s.getenv, root)
	opts.LogDir = logDir
	opts.Output, opts.Finished, opts.JobStarted, opts.BeforeRun = s.commandOutput, s.commandFinished, s.showJob, s.beforeCommand
	h, err := shelltool.New(opts)
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
	if err := h.SetPolicy(agent.PolicyOf(set)); err != nil {
		s.log.Warn("command policy", "err", err)
	}
	h.SetLimits(agent.ShellLimitsOf(set))
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

// commandFinished turns a finished command's output into diagnostics,
// replacing those of its last run, and tells the user how it went.
func (s *Server) commandFinished(f shelltool.Finished) {
	ctx := s.ctx
	root, set := s.session().root, s.currentSettings()
	diags, err := diagnose.Parse(f.Command, f.Output, agent.DiagnoseOptionsOf(set, f.Dir, root))
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
	r, err := position.ForText(text, s.session().encoding).Range(from, end)
	if err != nil {
		return whole
	}
	return r
}
