package lsp

import (
	"context"
	"slices"
	"sync"

	"go.lsp.dev/protocol"
)

// publishDiagnostics shows everything agentls has to say about a file, in
// one notification (a server's diagnostics for a file replace each other):
// its pending review hunks where they now stand, the answers to its AI?
// questions, the approvals waiting on it, and the problems the last run of
// each command found in it.
func (s *Server) publishDiagnostics(ctx context.Context, path string) {
	src := s.source()
	diags := []protocol.Diagnostic{}
	diags = append(diags, s.pendingView.diagnostics(ctx, path)...)
	if s.answers.has(path) {
		// Only the answers need the text: a buffer's is joined to read it.
		text, _, _, _ := src.Read(ctx, path)
		diags = append(diags, s.answers.live(path, text)...)
	}
	diags = append(diags, s.desk.approvalDiagnostics(path)...)
	diags = append(diags, s.problems.inFile(path)...)
	s.conn.Notify(ctx, protocol.MethodTextDocumentPublishDiagnostics, &protocol.PublishDiagnosticsParams{URI: s.session().fileURI(path), Diagnostics: diags})
}

// commandProblems holds, per command, the diagnostics its last run found,
// by file: the next run of the same command replaces them all.
type commandProblems struct {
	mu    sync.Mutex
	byCmd map[string]map[string][]protocol.Diagnostic // command → file → diagnostics
}

// replace sets a command's diagnostics and returns every file whose
// diagnostics changed (the ones it had and the ones it has now).
func (c *commandProblems) replace(command string, byFile map[string][]protocol.Diagnostic) []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.byCmd == nil {
		c.byCmd = map[string]map[string][]protocol.Diagnostic{}
	}
	touched := map[string]bool{}
	for f := range c.byCmd[command] {
		touched[f] = true
	}
	for f := range byFile {
		touched[f] = true
	}
	if len(byFile) == 0 {
		delete(c.byCmd, command)
	} else {
		c.byCmd[command] = byFile
	}
	files := make([]string, 0, len(touched))
	for f := range touched {
		files = append(files, f)
	}
	slices.Sort(files)
	return files
}

// inFile returns a file's diagnostics from every command, in command order.
func (c *commandProblems) inFile(path string) []protocol.Diagnostic {
	c.mu.Lock()
	defer c.mu.Unlock()
	cmds := make([]string, 0, len(c.byCmd))
	for cmd := range c.byCmd {
		cmds = append(cmds, cmd)
	}
	slices.Sort(cmds)
	var out []protocol.Diagnostic
	for _, cmd := range cmds {
		out = append(out, c.byCmd[cmd][path]...)
	}
	return out
}

// onLines returns the diagnostics agentls published for
// rel (a workspace path) from commands and jobs that start on the lines
// of r.
func (c *commandProblems) onLines(rel string, r protocol.Range) []protocol.Diagnostic {
	var out []protocol.Diagnostic
	for _, dg := range c.inFile(rel) {
		if dg.Range.Start.Line >= r.Start.Line && dg.Range.Start.Line <= r.End.Line {
			out = append(out, dg)
		}
	}
	return out
}
