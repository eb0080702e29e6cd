package lsp_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

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
	t.Parallel()
	for _, p := range lsptest.Profiles() {
		t.Run(p.Name, func(t *testing.T) {
			t.Parallel()
			root := writeFiles(t, files)
			e := lsptest.Start(t, root, p, lsptest.InitOptions(map[string]any{"applyMode": "review"}))
			e.OpenFile("a.go", "go")
			e.OpenFile("b.go", "go")
			e.ExecuteCommand("agentls.applyReply", map[string]any{"text": reply})
			// One hint per file on the changed line, and nothing applied.
			e.Await(
				lsptest.ShownMessage("3 agent edits pending review in 3 files"),
				lsptest.DiagnosticsCount(1, lsptest.ForFile("a.go"), lsptest.WithCode("pending-edit"), lsptest.WithSource("agentls"), lsptest.WithSeverity(protocol.DiagnosticSeverityHint), lsptest.AtLine(3)),
				lsptest.DiagnosticsCount(1, lsptest.ForFile("a.go")),
				lsptest.DiagnosticsCount(1, lsptest.ForFile("b.go")),
				lsptest.BufferContent("a.go", files["a.go"]),
			)
			d := e.Diagnostics("a.go")[0]

			// Accept the hunk in a.go from its code action.
			accept := findAction(e.CodeActions("a.go", d.Range), "Accept agent edit")
			if accept == nil {
				t.Fatal("no accept action on the pending hunk")
			}
			e.RunCodeAction(*accept)
			e.Await(
				lsptest.ShownMessage("accepted 1 edit"),
				lsptest.BufferContent("a.go", "package p\n\n// Config holds settings.\ntype Settings struct{}\n"),
				lsptest.NoDiagnostics(lsptest.ForFile("a.go")),
			)

			// Reject b.go's, accept all that is left (the new c.go).
			e.ExecuteCommand("agentls.review.reject", map[string]any{"uri": string(protocolURI(root, "b.go"))})
			e.Await(lsptest.ShownMessage("rejected 1 pending edit"), lsptest.NoDiagnostics(lsptest.ForFile("b.go")))
			e.ExecuteCommand("agentls.review.accept", map[string]any{"all": true})
			e.Await(
				lsptest.ShownMessage("accepted 1 edit (agent edit 2)"),
				lsptest.FileContent("c.go", "package p\n"),
				lsptest.BufferContent("b.go", files["b.go"]), // rejected: unchanged
			)
		})
	}
}

// TestReviewFollowsUserEdits: a pending hunk moves with edits above it,
// and becomes a conflict, which cannot be accepted, when the user edits
// its own lines.
func TestReviewFollowsUserEdits(t *testing.T) {
	t.Parallel()
	root := writeFiles(t, files)
	e := lsptest.Start(t, root, lsptest.VSCode(), lsptest.InitOptions(map[string]any{"applyMode": "review"}))
	e.OpenFile("a.go", "go")
	e.ExecuteCommand("agentls.applyReply", map[string]any{"text": "```patch a.go\n<<<<<<< ORIGINAL\ntype Config struct{}\n=======\ntype Settings struct{}\n>>>>>>> UPDATED\n```\n"})
	e.Await(lsptest.DiagnosticsCount(1, lsptest.ForFile("a.go"), lsptest.WithCode("pending-edit"), lsptest.AtLine(3)))

	e.Type("a.go", "package p\n\nimport \"fmt\"\n\n// Config holds settings.\ntype Config struct{}\n")
	e.Await(lsptest.DiagnosticsCount(1, lsptest.ForFile("a.go"), lsptest.WithCode("pending-edit"), lsptest.AtLine(5)))

	e.Type("a.go", "package p\n\nimport \"fmt\"\n\n// Config holds settings.\ntype Config struct{ N int }\n")
	conflict := lsptest.DiagnosticsCount(1, lsptest.ForFile("a.go"), lsptest.WithSeverity(protocol.DiagnosticSeverityWarning), lsptest.WithMessage("conflicts"))
	e.Await(conflict, lsptest.DiagnosticsCount(1, lsptest.ForFile("a.go")))
	before := e.Buffer("a.go")
	e.ExecuteCommand("agentls.review.accept", map[string]any{"all": true})
	// Refused: nothing applied, and the hunk still pending.
	e.Await(lsptest.ShownMessage("cannot accept"), lsptest.BufferContent("a.go", before), conflict)
}

func protocolURI(root, rel string) protocol.DocumentURI {
	real, _ := filepath.EvalSymlinks(root)
	return protocol.DocumentURI("file://" + filepath.Join(real, rel))
}

// TestReviewDiff: "Show diff" opens the pending hunks as a unified diff
// against the buffers, with showDocument where the editor has it and as a
// path in a message where it does not; conflicting hunks are named.
func TestReviewDiff(t *testing.T) {
	t.Parallel()
	for _, p := range lsptest.Profiles() {
		t.Run(p.Name, func(t *testing.T) {
			t.Parallel()
			root := writeFiles(t, files)
			e := lsptest.Start(t, root, p, lsptest.InitOptions(map[string]any{"applyMode": "review"}))
			e.OpenFile("a.go", "go")
			e.ExecuteCommand("agentls.applyReply", map[string]any{"text": reply})
			e.Await(lsptest.DiagnosticsCount(1, lsptest.ForFile("a.go"), lsptest.WithCode("pending-edit")))

			// The user edits a.go above the hunk: the diff is against that.
			e.Type("a.go", "package p\n\nimport \"fmt\"\n\n// Config holds settings.\ntype Config struct{}\n")
			e.Await(lsptest.DiagnosticsCount(1, lsptest.ForFile("a.go"), lsptest.WithCode("pending-edit"), lsptest.AtLine(5)))
			show := findAction(e.CodeActions("a.go", e.Diagnostics("a.go")[0].Range), "Show diff")
			if show == nil {
				t.Fatal("no Show diff action")
			}
			e.RunCodeAction(*show)
			got := awaitDiff(t, e, 1)
			want := "# agentls: pending agent edit 1; accept or reject them with the code actions on the changed lines.\n" +
				"--- a/a.go\n+++ b/a.go\n@@ -3,4 +3,4 @@\n import \"fmt\"\n \n // Config holds settings.\n-type Config struct{}\n+type Settings struct{}\n"
			if got != want {
				t.Errorf("diff of a.go =\n%s\nwant\n%s", got, want)
			}

			// All pending hunks; a.go's now conflicts.
			e.Type("a.go", "package p\n\nimport \"fmt\"\n\n// Config holds settings.\ntype Config struct{ N int }\n")
			e.Await(lsptest.DiagnosticsCount(1, lsptest.ForFile("a.go"), lsptest.WithSeverity(protocol.DiagnosticSeverityWarning)))
			e.ExecuteCommand("agentls.review.diff", nil)
			got = awaitDiff(t, e, 2)
			for _, s := range []string{
				"# agentls: pending agent edits 2, 3;",
				"# edit 1 in a.go conflicts with your changes; it can only be rejected\n",
				"--- a/b.go\n+++ b/b.go\n",
				"-var c Config\n+var c Settings\n",
				"--- /dev/null\n+++ b/c.go\n@@ -0,0 +1 @@\n+package p\n",
			} {
				if !strings.Contains(got, s) {
					t.Errorf("diff of all lacks %q:\n%s", s, got)
				}
			}
			if e.Buffer("a.go") == files["a.go"] || readFile(t, root, "b.go") != files["b.go"] {
				t.Error("showing the diff changed a file")
			}
		})
	}
}

// awaitDiff waits for the n-th diff the server shows (as a document or as
// a path in a message) and returns its text.
func awaitDiff(t *testing.T, e *lsptest.Editor, n int) string {
	t.Helper()
	const told = "is in " // "the diff of 2 pending edits is in /tmp/…"
	e.Await(lsptest.AnyOf(lsptest.DocumentsShown(n), lsptest.ShownMessages(n, "the diff of", told)))
	var name string
	if shown := e.ShownDocuments(); len(shown) >= n {
		name = uri.URI(shown[n-1]).Filename()
	} else {
		for _, m := range e.Messages() {
			if _, path, ok := strings.Cut(m.Message, told); ok && strings.Contains(m.Message, "the diff of") {
				name = path
			}
		}
	}
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestReviewFollowsKeystrokes: typed as editors send keystrokes (one
// incremental change each), a line break above a pending hunk moves its
// diagnostic and its code actions down; a character typed in its line
// makes it a conflict, with no accept action on it, which accepting all
// refuses; restoring the line mends it.
func TestReviewFollowsKeystrokes(t *testing.T) {
	t.Parallel()
	root := writeFiles(t, files)
	e := lsptest.Start(t, root, lsptest.VSCode(), lsptest.InitOptions(map[string]any{"applyMode": "review"}))
	e.OpenFile("a.go", "go")
	e.ExecuteCommand("agentls.applyReply", map[string]any{"text": "```patch a.go\n<<<<<<< ORIGINAL\ntype Config struct{}\n=======\ntype Settings struct{}\n>>>>>>> UPDATED\n```\n"})
	e.Await(lsptest.Diagnostics(lsptest.ForFile("a.go"), lsptest.WithCode("pending-edit"), lsptest.AtLine(3)))

	e.TypeAt("a.go", 0, 9, "\n")
	e.Await(lsptest.Diagnostics(lsptest.ForFile("a.go"), lsptest.WithCode("pending-edit"), lsptest.AtLine(4)))
	at4 := protocol.Range{Start: protocol.Position{Line: 4}, End: protocol.Position{Line: 4}}
	if findAction(e.CodeActions("a.go", at4), "Accept agent edit 1") == nil {
		t.Error("no accept action on the hunk's new line")
	}

	e.TypeAt("a.go", 4, 0, "x")
	e.Await(lsptest.Diagnostics(lsptest.ForFile("a.go"), lsptest.WithCode("pending-edit"), lsptest.WithSeverity(protocol.DiagnosticSeverityWarning), lsptest.WithMessage("conflicts")))
	if findAction(e.CodeActions("a.go", at4), "Accept agent edit 1") != nil {
		t.Error("an accept action on a hunk whose line the user changed")
	}
	before := e.Buffer("a.go")
	e.ExecuteCommand("agentls.review.accept", map[string]any{"all": true})
	e.Await(lsptest.ShownMessage("cannot accept"))
	if e.Buffer("a.go") != before {
		t.Error("a conflicting hunk was applied")
	}

	e.Type("a.go", "package p\n\n\n// Config holds settings.\ntype Config struct{}\n")
	e.Await(lsptest.Diagnostics(lsptest.ForFile("a.go"), lsptest.WithCode("pending-edit"), lsptest.WithSeverity(protocol.DiagnosticSeverityHint), lsptest.AtLine(4)))
}

// TestReviewAcceptAmbiguous: the user pastes a copy of a pending hunk's
// line elsewhere. The hunk stays where it is (the store follows it), but
// accepting it fails: against the whole file its line is no longer
// unique. The failed accept must put it back where it was, still
// pending, not make it a conflict (resolved on the whole file again it
// was one, and stayed one after the copy was deleted); once the copy is
// gone, accepting it works.
func TestReviewAcceptAmbiguous(t *testing.T) {
	t.Parallel()
	root := writeFiles(t, files)
	e := lsptest.Start(t, root, lsptest.VSCode(), lsptest.InitOptions(map[string]any{"applyMode": "review"}))
	e.OpenFile("a.go", "go")
	e.ExecuteCommand("agentls.applyReply", map[string]any{"text": "```patch a.go\n<<<<<<< ORIGINAL\ntype Config struct{}\n=======\ntype Settings struct{}\n>>>>>>> UPDATED\n```\n"})
	e.Await(lsptest.Diagnostics(lsptest.ForFile("a.go"), lsptest.WithCode("pending-edit"), lsptest.AtLine(3)))

	e.TypeAt("a.go", 1, 0, "type Config struct{}\n")
	e.ExecuteCommand("agentls.review.accept", map[string]any{"hunk": 1})
	e.Await(lsptest.ShownMessage("cannot accept"))
	e.Await(lsptest.Diagnostics(lsptest.ForFile("a.go"), lsptest.WithCode("pending-edit"), lsptest.WithSeverity(protocol.DiagnosticSeverityHint), lsptest.AtLine(4)))

	e.Type("a.go", files["a.go"])
	e.Await(lsptest.Diagnostics(lsptest.ForFile("a.go"), lsptest.WithCode("pending-edit"), lsptest.WithSeverity(protocol.DiagnosticSeverityHint), lsptest.AtLine(3)))
	e.ExecuteCommand("agentls.review.accept", map[string]any{"hunk": 1})
	e.Await(lsptest.ShownMessage("agentls: accepted 1 edit"))
	if got := e.Buffer("a.go"); got != "package p\n\n// Config holds settings.\ntype Settings struct{}\n" {
		t.Errorf("a.go = %q", got)
	}
}
