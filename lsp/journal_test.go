package lsp_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/lsp/lsptest"
)

// TestUndoRedo applies a reply touching an open buffer, a file not open
// and a new file, undoes it across all three, and redoes it.
func TestUndoRedo(t *testing.T) {
	for _, p := range lsptest.Profiles() {
		t.Run(p.Name, func(t *testing.T) {
			root := writeFiles(t, files)
			e := lsptest.Start(t, root, p)
			e.OpenFile("a.go", "go")
			e.ExecuteCommand("agentls.applyReply", map[string]any{"text": reply})
			e.Await("applied", func() bool { return e.HasMessageLocked("agentls: applied") })

			// The code action offers the undo on a file the edit touched.
			var undo *protocol.CodeAction
			for _, a := range e.CodeActions("a.go", protocol.Range{}) {
				if strings.HasPrefix(a.Title, "Undo agent edit 1") {
					undo = &a
				}
			}
			if undo == nil {
				t.Fatal("no undo code action")
			}
			if err := e.RunCodeAction(*undo); err != nil {
				t.Fatal(err)
			}
			e.Await("undone", func() bool { return e.HasMessageLocked("agentls: undone") })
			if e.Buffer("a.go") != files["a.go"] || readFile(t, root, "b.go") != files["b.go"] {
				t.Errorf("not reverted: a.go %q, b.go %q", e.Buffer("a.go"), readFile(t, root, "b.go"))
			}
			if _, err := os.Stat(filepath.Join(root, "c.go")); err == nil {
				t.Error("the created c.go was not deleted")
			}

			e.ExecuteCommand("agentls.turn.redo", nil)
			e.Await("redone", func() bool { return e.HasMessageLocked("agentls: redone") })
			if !strings.Contains(e.Buffer("a.go"), "type Settings") || readFile(t, root, "c.go") != "package p\n" {
				t.Errorf("not redone: a.go %q", e.Buffer("a.go"))
			}
		})
	}
}

// TestUndoAfterUserEdits: undo keeps the user's later edits elsewhere, and
// refuses when the user changed the lines the agent changed.
func TestUndoAfterUserEdits(t *testing.T) {
	root := writeFiles(t, map[string]string{"a.go": "package p\n\nfunc one() {}\n\nfunc two() {}\n\nfunc three() {}\n"})
	e := lsptest.Start(t, root, lsptest.VSCode())
	e.OpenFile("a.go", "go")
	e.ExecuteCommand("agentls.applyReply", map[string]any{"text": "```patch a.go\n<<<<<<< ORIGINAL\nfunc two() {}\n=======\nfunc two() { println(2) }\n>>>>>>> UPDATED\n```\n"})
	e.Await("applied", func() bool { return e.HasMessageLocked("agentls: applied") })

	// The user edits another line; undo keeps that edit.
	e.Type("a.go", strings.Replace(e.Buffer("a.go"), "func three() {}", "func three() { println(3) }", 1))
	e.ExecuteCommand("agentls.turn.undo", nil)
	e.Await("undone", func() bool { return e.HasMessageLocked("agentls: undone") })
	if got := e.Buffer("a.go"); got != "package p\n\nfunc one() {}\n\nfunc two() {}\n\nfunc three() { println(3) }\n" {
		t.Errorf("a.go = %q", got)
	}

	// Redo, then the user rewrites the agent's line: undo is refused.
	e.ExecuteCommand("agentls.turn.redo", nil)
	e.Await("redone", func() bool { return e.HasMessageLocked("agentls: redone") })
	e.Type("a.go", strings.Replace(e.Buffer("a.go"), "func two() { println(2) }", "func two() { println(22) }", 1))
	before := e.Buffer("a.go")
	e.ExecuteCommand("agentls.turn.undo", nil)
	e.Await("refused", func() bool { return e.HasMessageLocked("changed the same lines") })
	if e.Buffer("a.go") != before {
		t.Error("a refused undo changed the buffer")
	}
}

func TestUndoNothing(t *testing.T) {
	e := lsptest.Start(t, t.TempDir(), lsptest.Helix())
	e.ExecuteCommand("agentls.turn.undo", nil)
	e.Await("told", func() bool { return e.HasMessageLocked("no agent edit to undo") })
}
