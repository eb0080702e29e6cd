package lsp

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/agentls/agentls/agent"
)

// mentionSource is what mentions read in the editor: its buffers over the
// disk, the open files, the diagnostics agentls and the request know of,
// and the selection.
func (s *Server) mentionSource(ws *editorWorkspace, req *agent.Request) agent.MentionSource {
	return agent.MentionSource{
		Root: req.Root,
		Read: func(ctx context.Context, rel string) (string, error) {
			text, _, exists, err := ws.Read(ctx, rel)
			if err == nil && !exists {
				err = fmt.Errorf("%s does not exist", rel)
			}
			return text, err
		},
		Buffers: func() []string { return slices.Clone(req.OpenFiles) },
		Diagnostics: func() string {
			var lines []string
			for _, d := range req.Diagnostics {
				lines = append(lines, fmt.Sprintf("%s:%d: %s: %s", d.Path, d.Line, d.Severity, d.Message))
			}
			for _, rel := range req.OpenFiles {
				for _, d := range s.problems.inFile(rel) { // keyed by workspace path
					lines = append(lines, fmt.Sprintf("%s:%d:%d: %s: %s (%s)", rel, d.Range.Start.Line+1, d.Range.Start.Character+1, severityName(d.Severity), d.Message, d.Source))
				}
			}
			return strings.Join(lines, "\n")
		},
		Selection: func() (string, string) {
			if req.Selection == nil {
				return "", ""
			}
			return req.Selection.Path, req.Selection.Text
		},
		GitDiff: func(ctx context.Context) (string, error) { return agent.GitDiff(ctx, req.Root) },
	}
}
