package lsp_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/agent/modeltest"
	"github.com/agentls/agentls/lsp/lsptest"
)

// outsideAndLink makes a folder beside the workspace, with a file and a
// symlink dirlink → ../<it> in the workspace, and returns the folder's
// path relative to the root ("../out…").
func outsideAndLink(t *testing.T, root string) (outside, rel string) {
	t.Helper()
	outside = filepath.Join(filepath.Dir(root), filepath.Base(root)+"-out")
	if err := os.Mkdir(outside, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(outside) })
	os.WriteFile(filepath.Join(outside, "x.txt"), []byte("x\n"), 0o644)
	rel, _ = filepath.Rel(root, outside)
	if err := os.Symlink(rel, filepath.Join(root, "dirlink")); err != nil {
		t.Fatal(err)
	}
	return outside, filepath.ToSlash(rel)
}

func listDir(t *testing.T, dir string) []string {
	t.Helper()
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// TestApplyReplyRefusesSymlinkOut: a reply that creates dirlink/new.txt,
// patches or deletes dirlink/x.txt, or moves a file to dirlink/, where
// dirlink leads out of the workspace and x.txt is open in the editor under
// its real path outside, is refused whole: no CreateFile or TextDocumentEdit reaches the editor, nothing
// outside changes, and the user is told why.
func TestApplyReplyRefusesSymlinkOut(t *testing.T) {
	t.Parallel()
	for _, p := range lsptest.Profiles() {
		t.Run(p.Name, func(t *testing.T) {
			root := writeFiles(t, files)
			outside, rel := outsideAndLink(t, root)
			e := lsptest.Start(t, root, p)
			e.OpenBuffer(rel+"/x.txt", "text", "x\n") // the link's target, open
			for i, reply := range []string{
				"```save dirlink/new.txt\npwned\n```\n",
				"```patch dirlink/x.txt\n<<<<<<< ORIGINAL\nx\n=======\npwned\n>>>>>>> UPDATED\n```\n",
				"```save a.go\npackage p\n```\n\n```save dirlink/new.txt\npwned\n```\n",
				"```apply_patch\n*** Begin Patch\n*** Delete File: dirlink/x.txt\n*** End Patch\n```\n",
				"```apply_patch\n*** Begin Patch\n*** Update File: a.go\n*** Move to: dirlink/moved.go\n@@\n-type Config struct{}\n+type Settings struct{}\n*** End Patch\n```\n",
			} {
				if err := e.ExecuteCommand("agentls.applyReply", map[string]any{"text": reply}); err != nil {
					t.Fatal(err)
				}
				// Each reply gets its own refusal, an error saying why.
				e.Await(lsptest.ShownMessages(i+1, "nothing applied", "outside the workspace"), lsptest.NoShownMessage("agentls: applied"))
				if msgs := e.Messages(); len(msgs) != i+1 || msgs[i].Type != protocol.MessageTypeError {
					t.Errorf("reply %q: messages %+v, want one error each", reply, msgs)
				}
			}
			e.Await(lsptest.BufferContent(rel+"/x.txt", "x\n"), lsptest.FileContent("a.go", files["a.go"]))
			if got := listDir(t, outside); len(got) != 1 || got[0] != "x.txt" {
				t.Errorf("files outside the workspace: %v", got)
			}
			if n := e.EditsApplied(); n != 0 {
				t.Errorf("%d WorkspaceEdits were sent", n)
			}
		})
	}
}

// TestApplyReplyThroughSymlinkInside: a file reached through a symlink
// inside the workspace is edited as the buffer the editor has open for it,
// whichever of its names the editor opened and the reply used: the edit
// goes to that buffer, pinned to its version, never to the disk through
// the other name with positions computed on the buffer.
func TestApplyReplyThroughSymlinkInside(t *testing.T) {
	t.Parallel()
	for _, p := range lsptest.Profiles() {
		for _, tc := range []struct{ open, named string }{
			{"real/a.txt", "inlink/a.txt"},
			{"inlink/a.txt", "real/a.txt"},
			{"inlink/a.txt", "inlink/a.txt"},
		} {
			t.Run(p.Name+"/open "+tc.open+", named "+tc.named, func(t *testing.T) {
				root := writeFiles(t, map[string]string{"real/a.txt": "one\ntwo\n"})
				os.Symlink("real", filepath.Join(root, "inlink"))
				e := lsptest.Start(t, root, p)
				e.OpenBuffer(tc.open, "text", "zero\none\ntwo\n") // unsaved: a line added
				e.ExecuteCommand("agentls.applyReply", map[string]any{"text": "```patch " + tc.named + "\n<<<<<<< ORIGINAL\ntwo\n=======\nTWO\n>>>>>>> UPDATED\n```\n"})
				e.Await(
					lsptest.ShownMessage("applied"),
					lsptest.BufferContent(tc.open, "zero\none\nTWO\n"),
					lsptest.FileContent("real/a.txt", "one\ntwo\n"), // the buffer is the editor's to save
				)
				if v, ok := e.EditVersion(tc.open); !ok || v == nil || *v != p.OpenVersion {
					t.Errorf("the edit is pinned to %v (sent: %v), want the buffer's version %d", v, ok, p.OpenVersion)
				}
			})
		}
	}
}

// TestAskSymlinkMadeByCommand: the model chains two harmless steps in one
// turn — a shell command that makes dirlink → ../out, then a save of
// dirlink/x — and the save is refused (the path is checked when the save
// runs, after the command), nothing lands outside, and the model is told.
func TestAskSymlinkMadeByCommand(t *testing.T) {
	t.Parallel()
	root := writeFiles(t, files)
	outside := filepath.Join(filepath.Dir(root), filepath.Base(root)+"-out")
	os.Mkdir(outside, 0o755)
	t.Cleanup(func() { os.RemoveAll(outside) })
	rel, _ := filepath.Rel(root, outside)
	srv := modeltest.New(
		modeltest.Text("```shell\nln -s "+rel+" dirlink\n```\n\n", 16),
		modeltest.Text("```save dirlink/new.txt\npwned\n```\n\n", 16),
		modeltest.Text("Done.", 16),
	)
	defer srv.Close()
	e := lsptest.Start(t, root, lsptest.VSCode(), lsptest.InitOptions(map[string]any{"model": "m", "baseUrl": srv.URL}), lsptest.Press("Run"))
	e.OpenFile("a.go", "go")
	e.ExecuteCommand("agentls.ask", map[string]any{"prompt": "make a link and save through it"})
	e.Await(lsptest.ShownMessage("agent turn 1 done"))
	if _, err := os.Lstat(filepath.Join(root, "dirlink")); err != nil {
		t.Fatalf("the command did not make the link: %v (messages %v)", err, e.Messages())
	}
	if got := listDir(t, outside); len(got) != 0 {
		t.Errorf("files outside the workspace: %v", got)
	}
	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d model calls", len(reqs))
	}
	msgs := reqs[2].Body.Messages
	if result := msgs[len(msgs)-1].Content; !strings.Contains(result, "outside the workspace") {
		t.Errorf("the model was told %q", result)
	}
}
