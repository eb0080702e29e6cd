package edittool

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestPathsOnDisk: the attacks on paths, through the tools a model calls
// with the CLI's disk source: a symlink that leads out (made by an earlier
// command of the same turn) is refused for reading and writing, a path
// starting with ~ is refused instead of making a "~" folder, a FIFO is
// refused instead of hanging the read; a symlink that stays inside edits
// the real file and says so.
func TestPathsOnDisk(t *testing.T) {
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "secret"), []byte("s\n"), 0o644)
	root, _ := filepath.EvalSymlinks(t.TempDir())
	os.MkdirAll(filepath.Join(root, "real"), 0o755)
	os.WriteFile(filepath.Join(root, "real", "a.txt"), []byte("a\n"), 0o644)
	rel, _ := filepath.Rel(root, outside)
	os.Symlink(rel, filepath.Join(root, "dirlink"))
	os.Symlink("real", filepath.Join(root, "inlink"))
	if err := syscall.Mkfifo(filepath.Join(root, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, reply, want, wantErr string
	}{
		{"save through a symlink out", "```save dirlink/new.txt\npwned\n```\n", "", "outside the workspace"},
		{"patch through a symlink out", "```patch dirlink/secret\n<<<<<<< ORIGINAL\ns\n=======\npwned\n>>>>>>> UPDATED\n```\n", "", "outside the workspace"},
		{"read through a symlink out", "```read dirlink/secret\n```\n", "", "outside the workspace"},
		{"read a folder through a symlink out", "```read dirlink\n```\n", "", "outside the workspace"},
		{"save to the home folder", "```save ~/x\npwned\n```\n", "", "does not expand ~"},
		{"read a FIFO", "```read fifo\n```\n", "", "a named pipe"},
		{"save through a symlink inside", "```save inlink/a.txt\nA\n```\n", "Saved to real/a.txt (inlink/a.txt leads there through a symlink) (overwritten)", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := &Batch{Root: root, Source: DiskSource{Root: root}}
			msgs, err := runReply(t, b, tc.reply)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v (messages %q), want one containing %q", err, msgs, tc.wantErr)
				}
				if len(b.Changes.Changes) != 0 {
					t.Errorf("the batch holds changes: %+v", b.Changes.Changes)
				}
				return
			}
			if err != nil || len(msgs) != 1 || msgs[0] != tc.want {
				t.Fatalf("messages %q, err %v; want %q", msgs, err, tc.want)
			}
		})
	}
	if _, err := os.Lstat(filepath.Join(root, "~")); err == nil {
		t.Error("a folder named ~ was made")
	}
}

// TestDiskSourceReadsBeneathRoot: the disk source refuses a symlink out
// even when it is asked directly (not through CleanPath).
func TestDiskSourceReadsBeneathRoot(t *testing.T) {
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "secret"), []byte("s\n"), 0o644)
	root, _ := filepath.EvalSymlinks(t.TempDir())
	os.Symlink(outside, filepath.Join(root, "out"))
	if content, _, _, err := (DiskSource{Root: root}).Read(context.Background(), "out/secret"); err == nil || content != "" {
		t.Errorf("read %q, %v; want a refusal", content, err)
	}
}
