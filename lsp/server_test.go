package lsp_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/lsp/lsptest"
)

// writeFiles writes files (paths relative to the root) under a new
// temporary root, and returns the root.
func writeFiles(t testing.TB, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for p, c := range files {
		full := filepath.Join(root, p)
		os.MkdirAll(filepath.Dir(full), 0o755)
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func readFile(t *testing.T, root, rel string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, rel))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

const reply = "Renaming Config.\n\n```patch_many\n=== PATH: a.go ===\n<<<<<<< ORIGINAL\ntype Config struct{}\n=======\ntype Settings struct{}\n>>>>>>> UPDATED\n\n=== PATH: b.go ===\n<<<<<<< ORIGINAL\nvar c Config\n=======\nvar c Settings\n>>>>>>> UPDATED\n```\n\n```save c.go\npackage p\n```\n"

var files = map[string]string{
	"a.go": "package p\n\n// Config holds settings.\ntype Config struct{}\n",
	"b.go": "package p\n\nvar c Config\n",
}

// TestApplyReply applies a multi-file reply (an open buffer, a file not
// open, a new file) as one WorkspaceEdit, under each editor's profile.
func TestApplyReply(t *testing.T) {
	for _, p := range lsptest.Profiles() {
		t.Run(p.Name, func(t *testing.T) {
			root := writeFiles(t, files)
			e := lsptest.Start(t, root, p)
			e.OpenFile("a.go", "go")
			if err := e.ExecuteCommand("agentls.applyReply", map[string]any{"text": reply}); err != nil {
				t.Fatal(err)
			}
			e.Await("the edit applied", func() bool { return e.HasMessageLocked("agentls: applied") })
			if got := e.Buffer("a.go"); got != "package p\n\n// Config holds settings.\ntype Settings struct{}\n" {
				t.Errorf("a.go buffer = %q", got)
			}
			if got := readFile(t, root, "b.go"); got != "package p\n\nvar c Settings\n" {
				t.Errorf("b.go on disk = %q", got)
			}
			if got := readFile(t, root, "c.go"); got != "package p\n" {
				t.Errorf("c.go = %q", got)
			}
			if got := readFile(t, root, "a.go"); got != files["a.go"] {
				t.Errorf("a.go on disk changed (the buffer is the editor's to save): %q", got)
			}
			// The open buffer's edits are pinned to its version (Neovim's
			// first is 0), the file not open's are not.
			if v, ok := e.EditVersion("a.go"); !ok || v == nil || *v != p.OpenVersion {
				t.Errorf("a.go's edits are pinned to %v, want version %d", v, p.OpenVersion)
			}
			if v, ok := e.EditVersion("b.go"); !ok || v != nil {
				t.Errorf("b.go's edits are pinned to %v, want null", v)
			}
		})
	}
}

func TestApplyReplyFailureChangesNothing(t *testing.T) {
	root := writeFiles(t, map[string]string{"a.go": files["a.go"], "b.go": "package p\n\nvar c Other\n"})
	e := lsptest.Start(t, root, lsptest.VSCode())
	e.OpenFile("a.go", "go")
	e.ExecuteCommand("agentls.applyReply", map[string]any{"text": reply})
	e.Await("an error", func() bool { return e.HasMessageLocked("nothing applied") })
	if msg := e.Messages()[0]; msg.Type != protocol.MessageTypeError || !strings.Contains(msg.Message, "patch b.go") || !strings.Contains(msg.Message, "var c Other") {
		t.Errorf("message = %+v", msg)
	}
	if e.Buffer("a.go") != files["a.go"] {
		t.Error("a.go changed although b.go failed")
	}
}

func TestClientRejects(t *testing.T) {
	for _, p := range lsptest.Profiles() {
		t.Run(p.Name, func(t *testing.T) {
			root := writeFiles(t, files)
			e := lsptest.Start(t, root, p)
			e.OpenFile("a.go", "go")
			e.RejectEdits = true
			e.ExecuteCommand("agentls.applyReply", map[string]any{"text": reply})
			e.Await("the refusal reported", func() bool { return e.HasMessageLocked("refused the edit") })
			if e.Buffer("a.go") != files["a.go"] || readFile(t, root, "b.go") != files["b.go"] {
				t.Error("files changed although the editor refused")
			}
			if _, err := os.Stat(filepath.Join(root, "c.go")); err == nil {
				t.Error("c.go was created although the editor refused")
			}
			// Nothing is lost: the changes wait for review, and accepting
			// them once the editor takes edits applies them.
			e.Await("kept for review", func() bool {
				return e.HasMessageLocked("3 changes are kept as pending review") && len(e.DiagnosticsLocked("a.go")) == 1
			})
			e.RejectEdits = false
			e.ExecuteCommand("agentls.review.accept", map[string]any{"all": true})
			e.Await("accepted", func() bool { return e.HasMessageLocked("agentls: accepted 3 edits") })
			if e.Buffer("a.go") != "package p\n\n// Config holds settings.\ntype Settings struct{}\n" || readFile(t, root, "c.go") != "package p\n" {
				t.Errorf("accepting the kept changes: a.go %q", e.Buffer("a.go"))
			}
		})
	}
}

// TestUserTypesDuringApply: the user's keystroke lands between the
// server's computing the edit and the editor's applying it; the editor
// refuses the stale version, the server resolves again, and both the
// keystroke and the edit survive.
func TestUserTypesDuringApply(t *testing.T) {
	for _, p := range lsptest.Profiles() {
		t.Run(p.Name, func(t *testing.T) {
			root := writeFiles(t, files)
			e := lsptest.Start(t, root, p)
			e.OpenFile("a.go", "go")
			typed := false
			e.BeforeApply = func() {
				if !typed {
					typed = true
					e.Type("a.go", "package p // typed\n\n// Config holds settings.\ntype Config struct{}\n")
				}
			}
			e.ExecuteCommand("agentls.applyReply", map[string]any{"text": reply})
			e.Await("the edit applied", func() bool { return e.HasMessageLocked("agentls: applied") })
			if got := e.Buffer("a.go"); got != "package p // typed\n\n// Config holds settings.\ntype Settings struct{}\n" {
				t.Errorf("a.go = %q", got)
			}
			if got := readFile(t, root, "b.go"); got != "package p\n\nvar c Settings\n" {
				t.Errorf("b.go = %q", got)
			}
		})
	}
}

// TestEditorSkipsTypedBuffer: Neovim 0.7 skips a buffer the user typed in
// while the edit was on its way and still answers applied: true. The
// server notices from the buffer it gets back and sends that file's part
// again, rebased onto what the user typed; if the editor skips it again,
// the server names the file.
func TestEditorSkipsTypedBuffer(t *testing.T) {
	for _, times := range []int{1, 2} {
		t.Run(fmt.Sprintf("skipped %d times", times), func(t *testing.T) {
			root := writeFiles(t, files)
			e := lsptest.Start(t, root, lsptest.Neovim07())
			e.OpenFile("a.go", "go")
			typed := 0
			e.BeforeApply = func() {
				if typed < times {
					typed++
					e.Type("a.go", fmt.Sprintf("package p // typed %d\n\n// Config holds settings.\ntype Config struct{}\n", typed))
				}
			}
			e.ExecuteCommand("agentls.applyReply", map[string]any{"text": reply})
			e.Await("applied", func() bool { return e.HasMessageLocked("agentls: applied") })
			want := "package p // typed 1\n\n// Config holds settings.\ntype Settings struct{}\n"
			if times == 2 {
				want = "package p // typed 2\n\n// Config holds settings.\ntype Config struct{}\n"
				if !e.HasMessage("the editor skipped a.go") {
					t.Errorf("the twice-skipped file was not reported: %v", e.Messages())
				}
			} else if !e.HasMessage("in a.go, b.go, c.go") {
				t.Errorf("the recovered file is not reported as applied: %v", e.Messages())
			}
			if got := e.Buffer("a.go"); got != want {
				t.Errorf("a.go = %q, want %q", got, want)
			}
			if readFile(t, root, "b.go") != "package p\n\nvar c Settings\n" || readFile(t, root, "c.go") != "package p\n" {
				t.Error("the other files were not applied")
			}
		})
	}
}

// TestCodeActionOnScratchBuffer: a reply pasted into a Markdown scratch
// buffer is offered as a code action and applied.
func TestCodeActionOnScratchBuffer(t *testing.T) {
	root := writeFiles(t, files)
	e := lsptest.Start(t, root, lsptest.Neovim07())
	e.OpenBuffer("reply.md", "markdown", reply)
	actions := e.CodeActions("reply.md", protocol.Range{})
	if len(actions) != 1 || actions[0].Title != "Apply agent reply (2 edits in 3 files)" {
		t.Fatalf("actions = %+v", actions)
	}
	if err := e.RunCodeAction(actions[0]); err != nil {
		t.Fatal(err)
	}
	e.Await("the edit applied", func() bool { return e.HasMessageLocked("agentls: applied") })
	if readFile(t, root, "a.go") != "package p\n\n// Config holds settings.\ntype Settings struct{}\n" {
		t.Errorf("a.go = %q", readFile(t, root, "a.go"))
	}
	// No "Apply" action on a Go file without edit blocks in the selection
	// (only the undo of the edit that touched it).
	e.OpenFile("b.go", "go")
	for _, a := range e.CodeActions("b.go", protocol.Range{End: protocol.Position{Line: 2}}) {
		if strings.HasPrefix(a.Title, "Apply") {
			t.Errorf("apply action on plain code: %+v", a)
		}
	}
}

// TestPositionsWithAstralCharacters edits a line with an emoji before the
// change, under UTF-16 (VS Code) and UTF-8 (Helix) positions, and a CRLF
// file.
func TestPositionsWithAstralCharacters(t *testing.T) {
	for _, p := range []lsptest.Profile{lsptest.VSCode(), lsptest.Helix()} {
		t.Run(p.Name, func(t *testing.T) {
			root := writeFiles(t, map[string]string{"e.txt": "x := \"😀\"; y := 1\r\nz\r\n"})
			e := lsptest.Start(t, root, p)
			e.OpenFile("e.txt", "plaintext")
			e.ExecuteCommand("agentls.applyReply", map[string]any{"text": "```patch e.txt\n<<<<<<< ORIGINAL\nx := \"😀\"; y := 1\n=======\nx := \"😀\"; y := 2\n>>>>>>> UPDATED\n```\n"})
			e.Await("the edit applied", func() bool { return e.HasMessageLocked("agentls: applied") })
			if got := e.Buffer("e.txt"); got != "x := \"😀\"; y := 2\r\nz\r\n" {
				t.Errorf("e.txt = %q", got)
			}
		})
	}
}

// TestConfiguration: a bad initializationOptions value is reported, not
// dropped; settings pushed with didChangeConfiguration and pulled with
// workspace/configuration take effect (here the tool-call format).
func TestConfiguration(t *testing.T) {
	root := writeFiles(t, files)
	e := lsptest.StartWith(t, root, lsptest.VSCode(), map[string]any{"toolFormat": "yaml"}, map[string]any{"maxSteps": -1})
	e.Await("the bad setting reported", func() bool { return e.HasMessageLocked("agentls.toolFormat: \"yaml\" is not one of") })
	// VS Code supports workspace/configuration: the server pulled it.
	e.Await("the pulled setting checked", func() bool {
		return e.HasMessageLocked("workspace configuration: agentls.maxSteps: it must be positive")
	})

	xmlReply := "<tool-use>\n<save path=\"x.txt\">\nhello\n</save>\n</tool-use>\n"
	e.ChangeSettings(map[string]any{"agentls": map[string]any{"toolFormat": "xml"}})
	e.ExecuteCommand("agentls.applyReply", map[string]any{"text": xmlReply})
	e.Await("applied", func() bool { return e.HasMessageLocked("agentls: applied") || e.HasMessageLocked("no edits") })
	if got := readFile(t, root, "x.txt"); got != "hello\n" {
		t.Errorf("x.txt = %q (the xml format was not used)", got)
	}
}
