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
	t.Parallel()
	for _, p := range lsptest.Profiles() {
		t.Run(p.Name, func(t *testing.T) {
			t.Parallel()
			root := writeFiles(t, files)
			e := lsptest.Start(t, root, p)
			e.OpenFile("a.go", "go")
			e.ExecuteCommand("agentls.applyReply", map[string]any{"text": reply})
			e.Await(lsptest.ShownMessage("applied", "agent turn 1"))

			// The code action offers the undo on a file the edit touched:
			// one row, the turn being one edit.
			var undo *protocol.CodeAction
			var rows []string
			for _, a := range e.CodeActions("a.go", protocol.Range{}) {
				if strings.HasPrefix(a.Title, "Undo agent ") {
					rows = append(rows, a.Title)
				}
				if strings.HasPrefix(a.Title, "Undo agent turn 1") {
					undo = &a
				}
			}
			if undo == nil || len(rows) != 1 {
				t.Fatalf("undo code actions %q: want one, \"Undo agent turn 1 (3 files)\"", rows)
			}
			if err := e.RunCodeAction(*undo); err != nil {
				t.Fatal(err)
			}
			e.Await(
				lsptest.ShownMessage("undone", "agent turn 1"),
				lsptest.BufferContent("a.go", files["a.go"]),
				lsptest.FileContent("b.go", files["b.go"]),
				lsptest.NoFile("c.go"), // the file it created is deleted
			)

			e.ExecuteCommand("agentls.turn.redo", nil)
			e.Await(
				lsptest.ShownMessage("redone", "agent turn 1"),
				lsptest.BufferContaining("a.go", "type Settings"),
				lsptest.FileContent("c.go", "package p\n"),
			)
		})
	}
}

// TestUndoAfterUserEdits: undo keeps the user's later edits elsewhere, and
// refuses when the user changed the lines the agent changed.
func TestUndoAfterUserEdits(t *testing.T) {
	t.Parallel()
	root := writeFiles(t, map[string]string{"a.go": "package p\n\nfunc one() {}\n\nfunc two() {}\n\nfunc three() {}\n"})
	e := lsptest.Start(t, root, lsptest.VSCode())
	e.OpenFile("a.go", "go")
	e.ExecuteCommand("agentls.applyReply", map[string]any{"text": "```patch a.go\n<<<<<<< ORIGINAL\nfunc two() {}\n=======\nfunc two() { println(2) }\n>>>>>>> UPDATED\n```\n"})
	e.Await(lsptest.ShownMessage("applied", "a.go"))

	// The user edits another line; undo keeps that edit.
	e.Type("a.go", strings.Replace(e.Buffer("a.go"), "func three() {}", "func three() { println(3) }", 1))
	e.ExecuteCommand("agentls.turn.undo", nil)
	e.Await(
		lsptest.ShownMessage("undone", "agent turn 1"),
		lsptest.BufferContent("a.go", "package p\n\nfunc one() {}\n\nfunc two() {}\n\nfunc three() { println(3) }\n"),
	)

	// Redo, then the user rewrites the agent's line: undo is refused.
	e.ExecuteCommand("agentls.turn.redo", nil)
	e.Await(lsptest.ShownMessage("redone", "agent turn 1"))
	e.Type("a.go", strings.Replace(e.Buffer("a.go"), "func two() { println(2) }", "func two() { println(22) }", 1))
	before := e.Buffer("a.go")
	e.ExecuteCommand("agentls.turn.undo", nil)
	e.Await(
		lsptest.ShownMessageOfType(protocol.MessageTypeError, "cannot undo", "a.go", "changed the same lines", "nothing changed"),
		lsptest.BufferContent("a.go", before),
	)
}

func TestUndoNothing(t *testing.T) {
	t.Parallel()
	e := lsptest.Start(t, t.TempDir(), lsptest.Helix())
	e.ExecuteCommand("agentls.turn.undo", nil)
	e.Await(lsptest.ShownMessage("no agent turn to undo"))
}

// TestTurnUndo: an agent turn that patched a.go and then b.go in two
// calls is undone as a turn — both files, in ONE WorkspaceEdit — with the
// turn id agentls.ask returned, under every editor's profile; redo puts
// both back; one edit can still be undone alone.
func TestTurnUndo(t *testing.T) {
	t.Parallel()
	for _, p := range lsptest.Profiles() {
		t.Run(p.Name, func(t *testing.T) {
			t.Parallel()
			srv := modeltest.New(
				modeltest.Text("```patch a.go\n<<<<<<< ORIGINAL\ntype Config struct{}\n=======\ntype Settings struct{}\n>>>>>>> UPDATED\n```\n", 16),
				modeltest.Text("```patch b.go\n<<<<<<< ORIGINAL\nvar c Config\n=======\nvar c Settings\n>>>>>>> UPDATED\n```\n", 16),
				modeltest.Text("Renamed.", 16),
			)
			defer srv.Close()
			root := writeFiles(t, files)
			e := lsptest.Start(t, root, p, lsptest.InitOptions(map[string]any{"model": "m", "baseUrl": srv.URL}))
			e.OpenFile("a.go", "go")
			var started struct{ Turn int }
			if err := e.Call("workspace/executeCommand", map[string]any{"command": "agentls.ask", "arguments": []any{map[string]any{"prompt": "rename Config"}}}, &started); err != nil {
				t.Fatal(err)
			}
			turn := fmt.Sprintf("agent turn %d", started.Turn)
			e.Await(
				lsptest.ShownMessage(turn+" done"),
				lsptest.BufferContaining("a.go", "type Settings"),
				lsptest.FileContaining("b.go", "var c Settings"),
			)

			// A turn of two edits: its undo, and its last edit's in a.go.
			var undo, undoEdit *protocol.CodeAction
			for _, a := range e.CodeActions("a.go", protocol.Range{}) {
				if a.Title == fmt.Sprintf("Undo agent turn %d (2 files)", started.Turn) {
					undo = &a
				}
				if strings.HasPrefix(a.Title, "Undo agent edit 1: ") {
					undoEdit = &a
				}
			}
			if undo == nil {
				t.Fatalf("no \"Undo agent turn %d (2 files)\" code action", started.Turn)
			}
			if undoEdit == nil {
				t.Errorf("no \"Undo agent edit 1: …\" code action in a turn of two edits")
			}
			sent := e.EditsApplied()
			if err := e.ExecuteCommand("agentls.turn.undo", map[string]any{"turn": started.Turn}); err != nil {
				t.Fatal(err)
			}
			e.Await(
				lsptest.ShownMessage("undone", turn+" (2 edits)"),
				lsptest.BufferContent("a.go", files["a.go"]),
				lsptest.FileContent("b.go", files["b.go"]),
			)
			if n := e.EditsApplied() - sent; n != 1 {
				t.Errorf("the undo took %d WorkspaceEdits, want 1", n)
			}

			e.ExecuteCommand("agentls.turn.redo", nil)
			e.Await(
				lsptest.ShownMessage("redone", turn),
				lsptest.BufferContaining("a.go", "type Settings"),
				lsptest.FileContaining("b.go", "var c Settings"),
			)
			// One edit of it alone: the second (b.go).
			e.ExecuteCommand("agentls.edit.undo", nil)
			e.Await(
				lsptest.ShownMessage("undone", "agent edit 2"),
				lsptest.BufferContaining("a.go", "type Settings"),
				lsptest.FileContent("b.go", files["b.go"]),
			)
		})
	}
}

// TestTurnUndoAfterManualUndo: the user undid the agent's change to a.go
// in the editor; undoing the turn reverts b.go and says a.go already held
// what the undo gives — not "already applied … nothing changed".
func TestTurnUndoAfterManualUndo(t *testing.T) {
	t.Parallel()
	const twoFiles = "```patch_many\n=== PATH: a.go ===\n<<<<<<< ORIGINAL\ntype Config struct{}\n=======\ntype Settings struct{}\n>>>>>>> UPDATED\n\n=== PATH: b.go ===\n<<<<<<< ORIGINAL\nvar c Config\n=======\nvar c Settings\n>>>>>>> UPDATED\n```\n"
	root := writeFiles(t, files)
	e := lsptest.Start(t, root, lsptest.Neovim07())
	e.OpenFile("a.go", "go")
	e.OpenFile("b.go", "go")
	e.ExecuteCommand("agentls.applyReply", map[string]any{"text": twoFiles})
	e.Await(lsptest.ShownMessage("applied", "a.go, b.go"))
	e.Type("a.go", files["a.go"]) // the editor's own undo
	e.ExecuteCommand("agentls.turn.undo", nil)
	e.Await(
		lsptest.ShownMessage("undone", "agent turn 1", "a.go already held what the undo gives"),
		lsptest.NoShownMessage("already applied"),
		lsptest.BufferContent("a.go", files["a.go"]),
		lsptest.BufferContent("b.go", files["b.go"]),
	)
	// Everything undone by hand: nothing is sent, and it says so.
	e.ExecuteCommand("agentls.turn.redo", nil)
	e.Await(lsptest.ShownMessage("redone", "agent turn 1"))
	e.Type("a.go", files["a.go"])
	e.Type("b.go", files["b.go"])
	sent := e.EditsApplied()
	e.ExecuteCommand("agentls.turn.undo", nil)
	e.Await(lsptest.ShownMessage("nothing to undo", "agent turn 1"))
	if e.EditsApplied() != sent {
		t.Error("an undo with nothing to do sent an edit")
	}
}

// TestUndoAfterRestart: the undo history is kept on disk for the
// workspace, so a turn applied before the editor restarted is undone in
// the next session — every file, the created one included — and turn
// numbers go on from where they were.
func TestUndoAfterRestart(t *testing.T) {
	t.Parallel()
	// The next session reads the undo history this one keeps.
	state := lsptest.Env(map[string]string{"XDG_STATE_HOME": t.TempDir()})
	root := writeFiles(t, files)
	e := lsptest.Start(t, root, lsptest.VSCode(), state)
	e.OpenFile("a.go", "go")
	var applied struct{ Turn int }
	if err := e.Call("workspace/executeCommand", map[string]any{"command": "agentls.applyReply", "arguments": []any{map[string]any{"text": reply}}}, &applied); err != nil {
		t.Fatal(err)
	}
	e.Await(lsptest.ShownMessage("applied", "a.go, b.go, c.go"))
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
	e2.Await(
		lsptest.ShownMessage("undone", fmt.Sprintf("agent turn %d", applied.Turn)),
		lsptest.BufferContent("a.go", files["a.go"]),
		lsptest.FileContent("b.go", files["b.go"]),
		lsptest.NoFile("c.go"), // created by the turn, deleted by its undo
	)
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
	t.Parallel()
	const twoFiles = "```patch_many\n=== PATH: a.go ===\n<<<<<<< ORIGINAL\ntype Config struct{}\n=======\ntype Settings struct{}\n>>>>>>> UPDATED\n\n=== PATH: b.go ===\n<<<<<<< ORIGINAL\nvar c Config\n=======\nvar c Settings\n>>>>>>> UPDATED\n```\n"
	for _, p := range lsptest.Profiles() {
		t.Run(p.Name, func(t *testing.T) {
			t.Parallel()
			root := writeFiles(t, files)
			e := lsptest.Start(t, root, p)
			e.OpenFile("a.go", "go")
			e.OpenFile("b.go", "go")
			e.ExecuteCommand("agentls.applyReply", map[string]any{"text": twoFiles})
			e.Await(lsptest.ShownMessage("applied", "a.go, b.go"))
			mine := strings.Replace(e.Buffer("a.go"), "type Settings struct{}", "type Settings struct{ Name string }", 1)
			e.Type("a.go", mine)

			e.ExecuteCommand("agentls.turn.undo", nil)
			// Refused, naming the file and why, and what can still be done.
			e.Await(
				lsptest.ShownMessageOfType(protocol.MessageTypeError, "cannot undo agent turn 1", "a.go: you changed the same lines", "nothing changed", "The other 1 file can still be undone"),
				lsptest.BufferContent("a.go", mine),
				lsptest.BufferContaining("b.go", "var c Settings"),
			)
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
			e.Await(
				lsptest.ShownMessage("undone", "agent turn 1", "left as you have them: a.go"),
				lsptest.BufferContent("b.go", files["b.go"]),
				lsptest.BufferContent("a.go", mine),
			)
		})
	}
}
