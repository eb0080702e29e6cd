package lsp

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agentls/agentls/agent"
)

// turnContext adds to a turn's request what the project and the user
// attached: the project's rules (AGENTS.md and the rest, from the root
// down to the folder the request is about) and what the prompt's
// mentions name (@a.go as the editor holds it, #diagnostics, …). Each is
// listed in the output channel, under the turn.
func (s *Server) turnContext(ctx context.Context, id int, ws *editorWorkspace, req *agent.Request) {
	set := s.currentSettings()
	from := ""
	if req.Selection != nil {
		from = filepath.Dir(filepath.Join(req.Root, filepath.FromSlash(req.Selection.Path)))
	}
	rules := agent.LoadRules(agent.RulesOptions{Root: req.Root, From: from, Extra: set.Rules, UserFile: agent.UserRulesFile(s.getenv)})
	req.Rules = rules.Prompt()
	if len(rules) > 0 {
		s.output.write(fmt.Sprintf("turn %d", id), []byte("rules: "+rules.Summary()+"\n"))
	}
	added, accounts := agent.ExpandMentions(ctx, s.mentionSource(ws, req), req.Prompt)
	req.Attached = added
	for _, a := range accounts {
		s.output.write(fmt.Sprintf("turn %d", id), []byte(fmt.Sprintf("mention %s: %s\n", a.Text, a.Added)))
	}
}

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
