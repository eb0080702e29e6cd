package lsp_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/agent/modeltest"
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
	e.Await("told", func() bool { return e.HasMessageLocked("no agent turn to undo") })
}

// TestTurnUndo: an agent turn that patched a.go and then b.go in two
// calls is undone as a turn — both files, in ONE WorkspaceEdit — with the
// turn id agentls.ask returned, under every editor's profile; redo puts
// both back; one edit can still be undone alone.
func TestTurnUndo(t *testing.T) {
	for _, p := range lsptest.Profiles() {
		t.Run(p.Name, func(t *testing.T) {
			t.Setenv("XDG_STATE_HOME", t.TempDir())
			srv := modeltest.New(
				modeltest.Text("```patch a.go\n<<<<<<< ORIGINAL\ntype Config struct{}\n=======\ntype Settings struct{}\n>>>>>>> UPDATED\n```\n", 16),
				modeltest.Text("```patch b.go\n<<<<<<< ORIGINAL\nvar c Config\n=======\nvar c Settings\n>>>>>>> UPDATED\n```\n", 16),
				modeltest.Text("Renamed.", 16),
			)
			defer srv.Close()
			root := writeFiles(t, files)
			e := lsptest.StartWith(t, root, p, map[string]any{"model": "m", "baseUrl": srv.URL}, nil)
			e.OpenFile("a.go", "go")
			var started struct{ Turn int }
			if err := e.Call("workspace/executeCommand", map[string]any{"command": "agentls.ask", "arguments": []any{map[string]any{"prompt": "rename Config"}}}, &started); err != nil {
				t.Fatal(err)
			}
			e.Await("turn done", func() bool { return e.HasMessageLocked(fmt.Sprintf("agent turn %d done", started.Turn)) })
			if !strings.Contains(e.Buffer("a.go"), "Settings") || !strings.Contains(readFile(t, root, "b.go"), "Settings") {
				t.Fatalf("the turn did not edit both files: %q, %q", e.Buffer("a.go"), readFile(t, root, "b.go"))
			}

			var undo *protocol.CodeAction
			for _, a := range e.CodeActions("a.go", protocol.Range{}) {
				if a.Title == fmt.Sprintf("Undo agent turn %d (2 files)", started.Turn) {
					undo = &a
				}
			}
			if undo == nil {
				t.Fatalf("no \"Undo agent turn %d (2 files)\" code action", started.Turn)
			}
			sent := e.EditsApplied()
			if err := e.ExecuteCommand("agentls.turn.undo", map[string]any{"turn": started.Turn}); err != nil {
				t.Fatal(err)
			}
			e.Await("undone", func() bool {
				return e.HasMessageLocked(fmt.Sprintf("agentls: undone: agent turn %d (2 edits)", started.Turn))
			})
			if e.Buffer("a.go") != files["a.go"] || readFile(t, root, "b.go") != files["b.go"] {
				t.Errorf("the turn was not undone: a.go %q, b.go %q", e.Buffer("a.go"), readFile(t, root, "b.go"))
			}
			if n := e.EditsApplied() - sent; n != 1 {
				t.Errorf("the undo took %d WorkspaceEdits, want 1", n)
			}

			e.ExecuteCommand("agentls.turn.redo", nil)
			e.Await("redone", func() bool { return e.HasMessageLocked("agentls: redone: agent turn") })
			if !strings.Contains(e.Buffer("a.go"), "Settings") || !strings.Contains(readFile(t, root, "b.go"), "Settings") {
				t.Errorf("the turn was not redone: %q, %q", e.Buffer("a.go"), readFile(t, root, "b.go"))
			}
			// One edit of it alone: the second (b.go).
			e.ExecuteCommand("agentls.edit.undo", nil)
			e.Await("edit undone", func() bool { return e.HasMessageLocked("agentls: undone: agent edit 2") })
			if !strings.Contains(e.Buffer("a.go"), "Settings") || readFile(t, root, "b.go") != files["b.go"] {
				t.Errorf("agentls.edit.undo: a.go %q, b.go %q", e.Buffer("a.go"), readFile(t, root, "b.go"))
			}
		})
	}
}

// TestTurnUndoAfterManualUndo: the user undid the agent's change to a.go
// in the editor; undoing the turn reverts b.go and says a.go already held
// what the undo gives — not "already applied … nothing changed".
func TestTurnUndoAfterManualUndo(t *testing.T) {
	const twoFiles = "```patch_many\n=== PATH: a.go ===\n<<<<<<< ORIGINAL\ntype Config struct{}\n=======\ntype Settings struct{}\n>>>>>>> UPDATED\n\n=== PATH: b.go ===\n<<<<<<< ORIGINAL\nvar c Config\n=======\nvar c Settings\n>>>>>>> UPDATED\n```\n"
	root := writeFiles(t, files)
	e := lsptest.Start(t, root, lsptest.Neovim07())
	e.OpenFile("a.go", "go")
	e.OpenFile("b.go", "go")
	e.ExecuteCommand("agentls.applyReply", map[string]any{"text": twoFiles})
	e.Await("applied", func() bool { return e.HasMessageLocked("agentls: applied") })
	e.Type("a.go", files["a.go"]) // the editor's own undo
	e.ExecuteCommand("agentls.turn.undo", nil)
	e.Await("undone", func() bool { return e.HasMessageLocked("agentls: undone: agent turn 1") })
	if !e.HasMessage("a.go already held what the undo gives") {
		t.Errorf("messages: %+v", e.Messages())
	}
	if e.Buffer("a.go") != files["a.go"] || e.Buffer("b.go") != files["b.go"] {
		t.Errorf("a.go %q, b.go %q", e.Buffer("a.go"), e.Buffer("b.go"))
	}
	// Everything undone by hand: nothing is sent, and it says so.
	e.ExecuteCommand("agentls.turn.redo", nil)
	e.Await("redone", func() bool { return e.HasMessageLocked("agentls: redone") })
	e.Type("a.go", files["a.go"])
	e.Type("b.go", files["b.go"])
	sent := e.EditsApplied()
	e.ExecuteCommand("agentls.turn.undo", nil)
	e.Await("nothing to undo", func() bool { return e.HasMessageLocked("nothing to undo for agent turn 1") })
	if e.EditsApplied() != sent {
		t.Error("an undo with nothing to do sent an edit")
	}
}

// TestUndoAfterRestart: the undo history is kept on disk for the
// workspace, so a turn applied before the editor restarted is undone in
// the next session — every file, the created one included — and turn
// numbers go on from where they were.
func TestUndoAfterRestart(t *testing.T) {
	// The next session reads the undo history this one keeps.
	state := lsptest.Env(map[string]string{"XDG_STATE_HOME": t.TempDir()})
	root := writeFiles(t, files)
	e := lsptest.Start(t, root, lsptest.VSCode(), state)
	e.OpenFile("a.go", "go")
	var applied struct{ Turn int }
	if err := e.Call("workspace/executeCommand", map[string]any{"command": "agentls.applyReply", "arguments": []any{map[string]any{"text": reply}}}, &applied); err != nil {
		t.Fatal(err)
	}
	e.Await("applied", func() bool { return e.HasMessageLocked("agentls: applied") })
	e.Shutdown()
	// The editor saved its buffer before it quit.
	os.WriteFile(filepath.Join(root, "a.go"), []byte(strings.Replace(files["a.go"], "type Config", "type Settings", 1)), 0o644)

	e2 := lsptest.Start(t, root, lsptest.VSCode(), state)
	e2.OpenFile("a.go", "go")
	want := fmt.Sprintf("Undo agent turn %d (3 files)", applied.Turn)
	found := false
	for _, a := range e2.CodeActions("a.go", protocol.Range{}) {
		found = found || a.Title == want
	}
	if !found {
		t.Fatalf("no %q code action after the restart", want)
	}
	if err := e2.ExecuteCommand("agentls.turn.undo", map[string]any{"turn": applied.Turn}); err != nil {
		t.Fatal(err)
	}
	e2.Await("undone", func() bool { return e2.HasMessageLocked(fmt.Sprintf("agentls: undone: agent turn %d", applied.Turn)) })
	if e2.Buffer("a.go") != files["a.go"] || readFile(t, root, "b.go") != files["b.go"] {
		t.Errorf("not reverted: a.go %q, b.go %q", e2.Buffer("a.go"), readFile(t, root, "b.go"))
	}
	if _, err := os.Stat(filepath.Join(root, "c.go")); err == nil {
		t.Error("the created c.go was not deleted")
	}
	var next struct{ Turn int }
	if err := e2.Call("workspace/executeCommand", map[string]any{"command": "agentls.applyReply", "arguments": []any{map[string]any{"text": "```save d.go\npackage p\n```\n"}}}, &next); err != nil {
		t.Fatal(err)
	}
	if next.Turn <= applied.Turn {
		t.Errorf("turn %d after turn %d: numbers repeat across restarts", next.Turn, applied.Turn)
	}
}

// TestPartialUndo: the user rewrote the agent's line in a.go; undoing the
// turn is refused — naming a.go and why, and saying b.go can still be
// undone — until the user asks for what still can be: then b.go is undone
// and a.go kept as the user has it.
func TestPartialUndo(t *testing.T) {
	const twoFiles = "```patch_many\n=== PATH: a.go ===\n<<<<<<< ORIGINAL\ntype Config struct{}\n=======\ntype Settings struct{}\n>>>>>>> UPDATED\n\n=== PATH: b.go ===\n<<<<<<< ORIGINAL\nvar c Config\n=======\nvar c Settings\n>>>>>>> UPDATED\n```\n"
	for _, p := range lsptest.Profiles() {
		t.Run(p.Name, func(t *testing.T) {
			root := writeFiles(t, files)
			e := lsptest.Start(t, root, p)
			e.OpenFile("a.go", "go")
			e.OpenFile("b.go", "go")
			e.ExecuteCommand("agentls.applyReply", map[string]any{"text": twoFiles})
			e.Await("applied", func() bool { return e.HasMessageLocked("agentls: applied") })
			mine := strings.Replace(e.Buffer("a.go"), "type Settings struct{}", "type Settings struct{ Name string }", 1)
			e.Type("a.go", mine)

			e.ExecuteCommand("agentls.turn.undo", nil)
			e.Await("refused", func() bool {
				return e.HasMessageLocked("cannot undo agent turn 1 (1 edit): a.go: you changed the same lines since") &&
					e.HasMessageLocked("The other 1 file can still be undone")
			})
			if e.Buffer("a.go") != mine || !strings.Contains(e.Buffer("b.go"), "Settings") {
				t.Fatalf("a refused undo changed something: a.go %q, b.go %q", e.Buffer("a.go"), e.Buffer("b.go"))
			}
			var rest *protocol.CodeAction
			for _, a := range e.CodeActions("b.go", protocol.Range{}) {
				if a.Title == "Undo what still can be undone of agent turn 1" {
					rest = &a
				}
			}
			if rest == nil {
				t.Fatal("no \"Undo what still can be undone\" code action")
			}
			if err := e.RunCodeAction(*rest); err != nil {
				t.Fatal(err)
			}
			e.Await("undone", func() bool { return e.HasMessageLocked("agentls: undone: agent turn 1") })
			if e.Buffer("b.go") != files["b.go"] || e.Buffer("a.go") != mine {
				t.Errorf("a.go %q, b.go %q", e.Buffer("a.go"), e.Buffer("b.go"))
			}
			if !e.HasMessage("left as you have them: a.go") {
				t.Errorf("the kept file is not named: %+v", e.Messages())
			}
		})
	}
}
