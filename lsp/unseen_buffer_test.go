package lsp_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/lsp/lsptest"
)

// The reproduction of a wrong-line edit in a buffer agentls cannot see
// (issue 25): a.go on disk is "package p / / const A = 1 / const B = 2";
// the user adds "const Z = 0" above const A without saving, then applies
// a reply changing const B to 3. The server, which has no open document
// for the file, computes the edit against the disk and sends it with
// version null; applied by position to the modified buffer it changed
// const A. Each editor must land it on const B or not at all.

const (
	unseenDisk  = "package p\n\nconst A = 1\nconst B = 2\n"
	unseenReply = "Changing B.\n\n```patch %s\n<<<<<<< ORIGINAL\nconst B = 2\n=======\nconst B = 3\n>>>>>>> UPDATED\n```\n"
)

// TestEmacsUnseenBuffer: eglot with agentls.el as the README sets it up
// (Markdown buffers only) visits a.go in a buffer agentls does not
// manage. agentls.el checks the buffer against the base the server sent
// (its hash) and answers applied: false; the change waits as pending
// review, and the user's buffer is as the user left it
// (testdata/emacs/unseen_buffer.el).
// Not in parallel: it drives a real editor under deadlines.
func TestEmacsUnseenBuffer(t *testing.T) {
	emacs, eglotArgs := requireEmacs(t)
	bin := buildAgentls(t)
	root := writeFiles(t, map[string]string{"a.go": unseenDisk, "reply.md": "# A reply\n\n"})
	runEmacsScript(t, emacs, eglotArgs, root, "testdata/emacs/unseen_buffer.el", "AGENTLS_BIN="+bin,
		"AGENTLS_REPLY="+strings.Replace(unseenReply, "%s", "a.go", 1), "AGENTLS_MODEL=")
}

// TestNeovimUnseenBuffer: the Neovim plugin with its defaults attaches
// agentls to every buffer, whatever its file type (a.zig was outside the
// old list of file types), so the server sees the unsaved line and the
// edit lands on const B; set up for Markdown only, the plugin refuses the
// edit of the buffer it did not attach, checked against the base hash
// the server sent (testdata/nvim/unseen_buffer.lua).
// Not in parallel: it drives a real editor under deadlines.
func TestNeovimUnseenBuffer(t *testing.T) {
	nvim := requireNvim(t)
	binDir := filepath.Dir(buildAgentls(t))
	plugin, _ := filepath.Abs("../editors/nvim")
	script, _ := filepath.Abs("testdata/nvim/unseen_buffer.lua")
	for _, tc := range []struct{ name, settings, want string }{
		{name: "attached by default"},
		// A user who limits the plugin to Markdown: a.zig is not
		// attached, and the plugin checks it against the edit's base hash
		// and refuses the edit.
		{name: "not attached", settings: "filetypes = { 'markdown' }", want: "refused"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := writeFiles(t, map[string]string{".git/HEAD": "ref: refs/heads/main\n", "a.zig": unseenDisk, "reply.md": ""})
			root, _ = filepath.EvalSymlinks(root)
			runNvimPlugin(t, nvim, binDir, root, plugin, tc.settings, script,
				"AGENTLS_REPLY="+strings.Replace(unseenReply, "%s", "a.zig", 1), "AGENTLS_WANT="+tc.want)
		})
	}
}

// TestUnseenFileReplacedWhole is the server's form for a file it has no
// open document for, in-process: the fake editor (eglot's profile) holds
// a.go only on disk, and the text there changes between the reply's edit
// being computed and applied (the user's line above const A, as a buffer
// agentls cannot see would hold it). The edit, sent with version null,
// replaces the whole text: it makes the file the reply's result and never
// changes const A in place of const B, as the minimal edit computed on
// the old text did. (agentls's own editor set-ups refuse it instead when
// the buffer holds unsaved text: TestEmacsUnseenBuffer,
// TestNeovimUnseenBuffer.)
func TestUnseenFileReplacedWhole(t *testing.T) {
	t.Parallel()
	root := writeFiles(t, map[string]string{"a.go": unseenDisk})
	e := lsptest.Start(t, root, lsptest.Emacs(), lsptest.BeforeApply(func(e *lsptest.Editor, _ string) {
		if err := os.WriteFile(filepath.Join(e.Root, "a.go"), []byte("package p\n\nconst Z = 0\nconst A = 1\nconst B = 2\n"), 0o644); err != nil {
			t.Error(err)
		}
	}))
	if err := e.ExecuteCommand("agentls.applyReply", map[string]any{"text": strings.Replace(unseenReply, "%s", "a.go", 1)}); err != nil {
		t.Fatal(err)
	}
	e.Await(lsptest.ShownMessage("applied 1 edit in a.go"), lsptest.FileContent("a.go", "package p\n\nconst A = 1\nconst B = 3\n"))
	if v, ok := e.EditVersion("a.go"); !ok || v != nil {
		t.Errorf("the edit of a.go was pinned to version %v (sent: %v), want null", v, ok)
	}
}
