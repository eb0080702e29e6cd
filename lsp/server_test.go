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
	t.Parallel()
	for _, p := range lsptest.Profiles() {
		t.Run(p.Name, func(t *testing.T) {
			root := writeFiles(t, files)
			e := lsptest.Start(t, root, p)
			e.OpenFile("a.go", "go")
			if err := e.ExecuteCommand("agentls.applyReply", map[string]any{"text": reply}); err != nil {
				t.Fatal(err)
			}
			e.Await(
				lsptest.ShownMessage("applied", "a.go, b.go, c.go"),
				lsptest.BufferContent("a.go", "package p\n\n// Config holds settings.\ntype Settings struct{}\n"),
				lsptest.FileContent("b.go", "package p\n\nvar c Settings\n"),
				lsptest.FileContent("c.go", "package p\n"),
				// The buffer is the editor's to save.
				lsptest.FileContent("a.go", files["a.go"]),
			)
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
	t.Parallel()
	root := writeFiles(t, map[string]string{"a.go": files["a.go"], "b.go": "package p\n\nvar c Other\n"})
	e := lsptest.Start(t, root, lsptest.VSCode())
	e.OpenFile("a.go", "go")
	e.ExecuteCommand("agentls.applyReply", map[string]any{"text": reply})
	// The error names the failing block and what the file holds instead.
	e.Await(
		lsptest.ShownMessageOfType(protocol.MessageTypeError, "nothing applied", "patch b.go", "var c Other"),
		lsptest.BufferContent("a.go", files["a.go"]),
	)
	if n := e.EditsApplied(); n != 0 {
		t.Errorf("%d edits sent although b.go failed", n)
	}
}

func TestClientRejects(t *testing.T) {
	t.Parallel()
	for _, p := range lsptest.Profiles() {
		t.Run(p.Name, func(t *testing.T) {
			t.Parallel()
			root := writeFiles(t, files)
			// The user declines the apply, and later accepts the review.
			e := lsptest.Start(t, root, p, lsptest.RefuseEdits("apply reply"))
			e.OpenFile("a.go", "go")
			e.ExecuteCommand("agentls.applyReply", map[string]any{"text": reply})
			// Nothing is lost: the changes wait for review.
			e.Await(
				lsptest.RefusedEdit("apply reply"),
				lsptest.ShownMessage("refused the edit", "3 changes are kept as pending review"),
				lsptest.Diagnostics(lsptest.ForFile("a.go"), lsptest.WithCode("pending-edit")),
				lsptest.BufferContent("a.go", files["a.go"]),
				lsptest.FileContent("b.go", files["b.go"]),
				lsptest.NoFile("c.go"),
			)
			if ds := e.Diagnostics("a.go"); len(ds) != 1 {
				t.Errorf("a.go shows %d diagnostics, want its one pending hunk: %v", len(ds), ds)
			}
			e.ExecuteCommand("agentls.review.accept", map[string]any{"all": true})
			e.Await(
				lsptest.ShownMessage("accepted 3 edits"),
				lsptest.BufferContent("a.go", "package p\n\n// Config holds settings.\ntype Settings struct{}\n"),
				lsptest.FileContent("c.go", "package p\n"),
				lsptest.NoDiagnostics(lsptest.ForFile("a.go"), lsptest.WithCode("pending-edit")),
			)
		})
	}
}

// TestUserTypesDuringApply: the user's keystroke lands between the
// server's computing the edit and the editor's applying it; the editor
// refuses the stale version, the server resolves again, and both the
// keystroke and the edit survive.
func TestUserTypesDuringApply(t *testing.T) {
	t.Parallel()
	for _, p := range lsptest.Profiles() {
		t.Run(p.Name, func(t *testing.T) {
			root := writeFiles(t, files)
			typed := false
			e := lsptest.Start(t, root, p, lsptest.BeforeApply(func(e *lsptest.Editor, _ string) {
				if !typed {
					typed = true
					e.Type("a.go", "package p // typed\n\n// Config holds settings.\ntype Config struct{}\n")
				}
			}))
			e.OpenFile("a.go", "go")
			e.ExecuteCommand("agentls.applyReply", map[string]any{"text": reply})
			e.Await(
				lsptest.ShownMessage("applied"),
				lsptest.BufferContent("a.go", "package p // typed\n\n// Config holds settings.\ntype Settings struct{}\n"),
				lsptest.FileContent("b.go", "package p\n\nvar c Settings\n"),
			)
		})
	}
}

// TestEditorSkipsTypedBuffer: Neovim 0.7 skips a buffer the user typed in
// while the edit was on its way and still answers applied: true. The
// server notices from the buffer it gets back and sends that file's part
// again, rebased onto what the user typed; if the editor skips it again,
// the server names the file.
func TestEditorSkipsTypedBuffer(t *testing.T) {
	t.Parallel()
	for _, times := range []int{1, 2} {
		t.Run(fmt.Sprintf("skipped %d times", times), func(t *testing.T) {
			root := writeFiles(t, files)
			typed := 0
			e := lsptest.Start(t, root, lsptest.Neovim07(), lsptest.BeforeApply(func(e *lsptest.Editor, _ string) {
				if typed < times {
					typed++
					e.Type("a.go", fmt.Sprintf("package p // typed %d\n\n// Config holds settings.\ntype Config struct{}\n", typed))
				}
			}))
			e.OpenFile("a.go", "go")
			e.ExecuteCommand("agentls.applyReply", map[string]any{"text": reply})
			// Recovered, the file is reported applied with the others;
			// skipped twice, it is named.
			told := lsptest.ShownMessage("applied", "a.go, b.go, c.go")
			want := "package p // typed 1\n\n// Config holds settings.\ntype Settings struct{}\n"
			if times == 2 {
				told = lsptest.ShownMessage("the editor skipped a.go")
				want = "package p // typed 2\n\n// Config holds settings.\ntype Config struct{}\n"
			}
			e.Await(
				lsptest.ShownMessage("applied"),
				told,
				lsptest.BufferContent("a.go", want),
				lsptest.FileContent("b.go", "package p\n\nvar c Settings\n"),
				lsptest.FileContent("c.go", "package p\n"),
			)
		})
	}
}

// TestCodeActionOnScratchBuffer: a reply pasted into a Markdown scratch
// buffer is offered as a code action and applied.
func TestCodeActionOnScratchBuffer(t *testing.T) {
	t.Parallel()
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
	e.Await(lsptest.ShownMessage("applied"), lsptest.FileContent("a.go", "package p\n\n// Config holds settings.\ntype Settings struct{}\n"))
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
	t.Parallel()
	for _, p := range []lsptest.Profile{lsptest.VSCode(), lsptest.Helix()} {
		t.Run(p.Name, func(t *testing.T) {
			root := writeFiles(t, map[string]string{"e.txt": "x := \"😀\"; y := 1\r\nz\r\n"})
			e := lsptest.Start(t, root, p)
			e.OpenFile("e.txt", "plaintext")
			e.ExecuteCommand("agentls.applyReply", map[string]any{"text": "```patch e.txt\n<<<<<<< ORIGINAL\nx := \"😀\"; y := 1\n=======\nx := \"😀\"; y := 2\n>>>>>>> UPDATED\n```\n"})
			e.Await(lsptest.ShownMessage("applied"), lsptest.BufferContent("e.txt", "x := \"😀\"; y := 2\r\nz\r\n"))
		})
	}
}

// TestConfiguration: a bad initializationOptions value is reported, not
// dropped; settings pushed with didChangeConfiguration and pulled with
// workspace/configuration take effect (here the tool-call format).
func TestConfiguration(t *testing.T) {
	t.Parallel()
	root := writeFiles(t, files)
	e := lsptest.Start(t, root, lsptest.VSCode(), lsptest.InitOptions(map[string]any{"toolFormat": "yaml"}), lsptest.Settings(map[string]any{"maxSteps": -1}))
	e.Await(
		// The bad key and value are named.
		lsptest.ShownMessage("agentls.toolFormat", `"yaml"`),
		// VS Code supports workspace/configuration: the server pulled it.
		lsptest.ShownMessage("workspace configuration", "agentls.maxSteps", "positive"),
	)

	xmlReply := "<tool-use>\n<save path=\"x.txt\">\nhello\n</save>\n</tool-use>\n"
	e.ChangeSettings(map[string]any{"agentls": map[string]any{"toolFormat": "xml"}})
	e.ExecuteCommand("agentls.applyReply", map[string]any{"text": xmlReply})
	// With the xml format unused, the reply has no edits.
	e.Await(lsptest.ShownMessage("applied"), lsptest.NoShownMessage("no edits"), lsptest.FileContent("x.txt", "hello\n"))
}
