package lsp

import (
	"slices"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/internal/text"
	"github.com/agentls/agentls/lsp/internal/documents"
)

func severityName(s protocol.DiagnosticSeverity) string {
	switch s {
	case protocol.DiagnosticSeverityError:
		return "error"
	case protocol.DiagnosticSeverityWarning:
		return "warning"
	case protocol.DiagnosticSeverityInformation:
		return "info"
	case protocol.DiagnosticSeverityHint:
		return "hint"
	}
	return "problem"
}

// fixActions are "Agent: fix — <message>" code actions, one per diagnostic
// the editor sent with the request (not agentls's own pending-edit hints).
func (s *Server) fixActions(d documents.Document, ds []protocol.Diagnostic) []protocol.CodeAction {
	lines := d.Buf.Lines()
	var out []protocol.CodeAction
	for _, dg := range ds {
		if dg.Source == "agentls" {
			continue
		}
		msg, _, _ := strings.Cut(strings.TrimSpace(dg.Message), "\n")
		msg = text.Shorten(msg, 77, "...")
		line := int(dg.Range.Start.Line)
		around := protocol.Range{
			Start: protocol.Position{Line: uint32(max(0, line-aiContext))},
			End:   protocol.Position{Line: uint32(max(0, min(lines-1, line+aiContext+1)))},
		}
		title := "Agent: fix — " + msg
		out = append(out, protocol.CodeAction{
			Title: title, Kind: protocol.QuickFix, Diagnostics: []protocol.Diagnostic{dg},
			Command: &protocol.Command{Title: title, Command: cmdAsk, Arguments: []any{askArgs{
				Prompt: "Fix the problem the editor shows below, with the smallest change that fixes its cause.", URI: d.URI, Range: &around, Diagnostics: []protocol.Diagnostic{dg},
			}}},
		})
	}
	return out
}

// withoutRunning drops the ask actions (agentls.ask) whose turn runs
// now: while "Agent: run the tests" waits for its approval, offering it
// again would start the same work twice.
func (s *Server) withoutRunning(actions []protocol.CodeAction) []protocol.CodeAction {
	return slices.DeleteFunc(actions, func(a protocol.CodeAction) bool {
		if a.Command == nil || a.Command.Command != cmdAsk || len(a.Command.Arguments) != 1 {
			return false
		}
		args, ok := a.Command.Arguments[0].(askArgs)
		return ok && s.tasks.asking(args)
	})
}
