package lsp_test

import (
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/lsp/lsptest"
)

func findAction(actions []protocol.CodeAction, prefix string) *protocol.CodeAction {
	for _, a := range actions {
		if strings.HasPrefix(a.Title, prefix) {
			return &a
		}
	}
	return nil
}

// TestReviewMode: in review mode a reply's changes wait as diagnostics;
// hunks are accepted and rejected one by one, per file, or all.
func TestReviewMode(t *testing.T) {
	for _, p := range lsptest.Profiles() {
		t.Run(p.Name, func(t *testing.T) {
			root := writeFiles(t, files)
			e := lsptest.StartWith(t, root, p, map[string]any{"applyMode": "review"}, nil)
			e.OpenFile("a.go", "go")
			e.OpenFile("b.go", "go")
			e.ExecuteCommand("agentls.applyReply", map[string]any{"text": reply})
			e.Await("pending", func() bool { return e.HasMessageLocked("pending review") })
			e.Await("diagnostics", func() bool { return len(e.DiagnosticsLocked("a.go")) == 1 && len(e.DiagnosticsLocked("b.go")) == 1 })
			d := e.Diagnostics("a.go")[0]
			if d.Severity != protocol.DiagnosticSeverityHint || d.Source != "agentls" || d.Code != "pending-edit" || d.Range.Start.Line != 3 {
				t.Errorf("diagnostic = %+v", d)
			}
			if e.Buffer("a.go") != files["a.go"] {
				t.Fatal("review mode applied the edit")
			}

			// Accept the hunk in a.go from its code action.
			accept := findAction(e.CodeActions("a.go", d.Range), "Accept agent edit")
			if accept == nil {
				t.Fatal("no accept action on the pending hunk")
			}
			e.RunCodeAction(*accept)
			e.Await("accepted", func() bool { return e.HasMessageLocked("agentls: accepted 1 edit") })
			if got := e.Buffer("a.go"); got != "package p\n\n// Config holds settings.\ntype Settings struct{}\n" {
				t.Errorf("a.go = %q", got)
			}
			e.Await("a.go cleared", func() bool { return len(e.DiagnosticsLocked("a.go")) == 0 })

			// Reject b.go's, accept all that is left (the new c.go).
			e.ExecuteCommand("agentls.review.reject", map[string]any{"uri": string(protocolURI(root, "b.go"))})
			e.Await("rejected", func() bool { return e.HasMessageLocked("rejected 1 pending edit") })
			e.ExecuteCommand("agentls.review.accept", map[string]any{"all": true})
			e.Await("created", func() bool { return e.HasMessageLocked("agentls: accepted 1 edit (agent edit 2)") })
			if e.Buffer("b.go") != files["b.go"] {
				t.Errorf("a rejected hunk changed b.go: %q", e.Buffer("b.go"))
			}
			if got := readFile(t, root, "c.go"); got != "package p\n" {
				t.Errorf("c.go = %q", got)
			}
		})
	}
}

// TestReviewFollowsUserEdits: a pending hunk moves with edits above it,
// and becomes a conflict, which cannot be accepted, when the user edits
// its own lines.
func TestReviewFollowsUserEdits(t *testing.T) {
	root := writeFiles(t, files)
	e := lsptest.StartWith(t, root, lsptest.VSCode(), map[string]any{"applyMode": "review"}, nil)
	e.OpenFile("a.go", "go")
	e.ExecuteCommand("agentls.applyReply", map[string]any{"text": "```patch a.go\n<<<<<<< ORIGINAL\ntype Config struct{}\n=======\ntype Settings struct{}\n>>>>>>> UPDATED\n```\n"})
	e.Await("pending", func() bool { return len(e.DiagnosticsLocked("a.go")) == 1 })

	e.Type("a.go", "package p\n\nimport \"fmt\"\n\n// Config holds settings.\ntype Config struct{}\n")
	e.Await("moved", func() bool {
		ds := e.DiagnosticsLocked("a.go")
		return len(ds) == 1 && ds[0].Range.Start.Line == 5
	})

	e.Type("a.go", "package p\n\nimport \"fmt\"\n\n// Config holds settings.\ntype Config struct{ N int }\n")
	e.Await("conflict", func() bool {
		ds := e.DiagnosticsLocked("a.go")
		return len(ds) == 1 && ds[0].Severity == protocol.DiagnosticSeverityWarning && strings.Contains(ds[0].Message, "conflicts")
	})
	before := e.Buffer("a.go")
	e.ExecuteCommand("agentls.review.accept", map[string]any{"all": true})
	e.Await("refused", func() bool { return e.HasMessageLocked("cannot accept") })
	if e.Buffer("a.go") != before {
		t.Error("a conflicting hunk was applied")
	}
	if len(e.Diagnostics("a.go")) != 1 {
		t.Error("the refused hunk is no longer pending")
	}
}

func protocolURI(root, rel string) protocol.DocumentURI {
	real, _ := filepath.EvalSymlinks(root)
	return protocol.DocumentURI("file://" + filepath.Join(real, rel))
}
