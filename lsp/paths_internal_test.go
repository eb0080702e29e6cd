package lsp

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/edits"
)

// TestWorkspaceEditRechecksPaths: a change computed while its path was
// plain is checked again when the WorkspaceEdit is built: a folder turned
// into a symlink since (out of the workspace, or elsewhere inside it), or
// a file made read-only or setuid since, refuses the whole edit.
func TestWorkspaceEditRechecksPaths(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(root, outside string) // what happens after the change was computed
		err    string
	}{
		{"folder swapped for a symlink out", func(root, outside string) {
			os.RemoveAll(filepath.Join(root, "dir"))
			os.Symlink(outside, filepath.Join(root, "dir"))
		}, "outside the workspace"},
		{"folder swapped for a symlink inside", func(root, outside string) {
			os.RemoveAll(filepath.Join(root, "dir"))
			os.Symlink("other", filepath.Join(root, "dir"))
		}, "now leads through a symlink"},
		{"file made read-only", func(root, outside string) {
			os.Chmod(filepath.Join(root, "a.txt"), 0o444)
		}, "a.txt is read-only"},
		{"file made setuid", func(root, outside string) {
			os.Chmod(filepath.Join(root, "a.txt"), 0o755|fs.ModeSetuid)
		}, "setuid or setgid"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root, _ := filepath.EvalSymlinks(t.TempDir())
			outside := t.TempDir()
			os.MkdirAll(filepath.Join(root, "dir"), 0o755)
			os.MkdirAll(filepath.Join(root, "other"), 0o755)
			os.WriteFile(filepath.Join(root, "dir", "b.txt"), []byte("b\n"), 0o644)
			os.WriteFile(filepath.Join(root, "other", "b.txt"), []byte("b\n"), 0o644)
			os.WriteFile(filepath.Join(root, "a.txt"), []byte("a\n"), 0o644)
			s := newServer(Options{})
			testSession(s, root)
			var cs edits.Changeset
			cs.Write("a.txt", "a\n", true, edits.NotOpen, "A\n")
			cs.Write("dir/b.txt", "b\n", true, edits.NotOpen, "B\n")
			cs.Write("dir/new.txt", "", false, edits.NotOpen, "n\n")
			if _, err := s.delivery.workspaceEditFor(&cs); err != nil {
				t.Fatalf("before: %v", err)
			}
			tc.change(root, outside)
			we, err := s.delivery.workspaceEditFor(&cs)
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Fatalf("err = %v (edit %+v), want one containing %q", err, we, tc.err)
			}
		})
	}
}
