package edits

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// tree writes files (path → content) under a new temp dir.
func tree(t testing.TB, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for p, c := range files {
		full := filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// snapshot reads every file under root.
func snapshot(t testing.TB, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() { // folders, symlinks, FIFOs
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, p)
		out[filepath.ToSlash(rel)] = string(data)
		return nil
	})
	return out
}

func equalMaps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

func TestApplyToDisk(t *testing.T) {
	root := tree(t, map[string]string{"a.txt": "a\n", "gone.txt": "x\n", "sub/b.txt": "b\n"})
	os.Chmod(filepath.Join(root, "a.txt"), 0o755)
	cs := &Changeset{}
	cs.Write("a.txt", "a\n", true, 0, "A\n")
	cs.Write("new/dir/c.txt", "", false, 0, "c\n")
	cs.Remove("gone.txt", "x\n", 0)
	cs.Write("sub/b.txt", "b\n", true, 0, "b\n") // no change: skipped
	if err := ApplyToDisk(root, cs); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"a.txt": "A\n", "new/dir/c.txt": "c\n", "sub/b.txt": "b\n"}
	if got := snapshot(t, root); !equalMaps(got, want) {
		t.Errorf("files = %q, want %q", got, want)
	}
	if info, _ := os.Stat(filepath.Join(root, "a.txt")); info.Mode().Perm() != 0o755 {
		t.Errorf("mode = %v, want 0755 kept", info.Mode().Perm())
	}
}

// TestApplyToDiskRefusesWithoutWriting: every refusal of the
// all-or-nothing apply leaves every file as it was, writes nothing outside
// the root, and ends with "Nothing was written.".
func TestApplyToDiskRefusesWithoutWriting(t *testing.T) {
	for _, tc := range []struct {
		name  string
		build func(t *testing.T, root, outside string, cs *Changeset)
		err   string
	}{
		{"stale base", func(t *testing.T, root, outside string, cs *Changeset) {
			cs.Write("a.txt", "a\n", true, 0, "A\n")
			cs.Write("b.txt", "OLD\n", true, 0, "B\n")
		}, "changed on disk"},
		{"stale base of the same size", func(t *testing.T, root, outside string, cs *Changeset) {
			cs.Write("a.txt", "a\n", true, 0, "A\n")
			cs.Write("b.txt", "c\n", true, 0, "B\n")
		}, "changed on disk"},
		{"stale base, the file longer", func(t *testing.T, root, outside string, cs *Changeset) {
			cs.Write("a.txt", "a\n", true, 0, "A\n")
			cs.Write("b.txt", "b", true, 0, "B")
		}, "changed on disk"},
		{"create over an existing file", func(t *testing.T, root, outside string, cs *Changeset) {
			cs.Write("a.txt", "a\n", true, 0, "A\n")
			cs.Write("b.txt", "", false, 0, "B\n")
		}, "already exists"},
		{"modify a missing file", func(t *testing.T, root, outside string, cs *Changeset) {
			cs.Write("a.txt", "a\n", true, 0, "A\n")
			cs.Write("nope.txt", "x", true, 0, "y")
		}, "no longer exists"},
		{"symlink out of the root", func(t *testing.T, root, outside string, cs *Changeset) {
			symlink(t, filepath.Join(outside, "secret"), filepath.Join(root, "link"))
			cs.Write("a.txt", "a\n", true, 0, "A\n")
			cs.Write("link", "s\n", true, 0, "pwned\n")
		}, "outside the workspace"},
		{"symlinked folder out of the root", func(t *testing.T, root, outside string, cs *Changeset) {
			symlink(t, outside, filepath.Join(root, "out"))
			cs.Write("a.txt", "a\n", true, 0, "A\n")
			cs.Write("out/new.txt", "", false, 0, "pwned\n")
		}, "outside the workspace"},
		{"relative symlinked folder out of the root, new folders under it", func(t *testing.T, root, outside string, cs *Changeset) {
			rel, _ := filepath.Rel(root, outside)
			symlink(t, rel, filepath.Join(root, "dirlink"))
			cs.Write("a.txt", "a\n", true, 0, "A\n")
			cs.Write("dirlink/deep/new.txt", "", false, 0, "pwned\n")
		}, "outside the workspace"},
		{"dangling symlink out of the root", func(t *testing.T, root, outside string, cs *Changeset) {
			symlink(t, filepath.Join(outside, "made-by-agentls"), filepath.Join(root, "dangling"))
			cs.Write("a.txt", "a\n", true, 0, "A\n")
			cs.Write("dangling", "", false, 0, "pwned\n")
		}, "outside the workspace"},
		{"dangling symlink inside, modified", func(t *testing.T, root, outside string, cs *Changeset) {
			symlink(t, "missing.txt", filepath.Join(root, "dangling"))
			cs.Write("a.txt", "a\n", true, 0, "A\n")
			cs.Write("dangling", "x\n", true, 0, "y\n")
		}, "no longer exists"},
		{"symlink loop", func(t *testing.T, root, outside string, cs *Changeset) {
			symlink(t, "loop2", filepath.Join(root, "loop1"))
			symlink(t, "loop1", filepath.Join(root, "loop2"))
			cs.Write("a.txt", "a\n", true, 0, "A\n")
			cs.Write("loop1/x", "", false, 0, "x\n")
		}, "a loop"},
		{"a file where a folder is needed", func(t *testing.T, root, outside string, cs *Changeset) {
			cs.Write("a.txt", "a\n", true, 0, "A\n")
			cs.Write("b.txt/c.txt", "", false, 0, "c\n")
		}, "not a folder"},
		{"read-only file", func(t *testing.T, root, outside string, cs *Changeset) {
			chmod(t, filepath.Join(root, "b.txt"), 0o444)
			cs.Write("a.txt", "a\n", true, 0, "A\n")
			cs.Write("b.txt", "b\n", true, 0, "B\n")
		}, "b.txt is read-only (mode 0444)"},
		{"read-only file deleted", func(t *testing.T, root, outside string, cs *Changeset) {
			chmod(t, filepath.Join(root, "b.txt"), 0o444)
			cs.Write("a.txt", "a\n", true, 0, "A\n")
			cs.Remove("b.txt", "b\n", 0)
		}, "does not delete read-only files"},
		{"setuid file", func(t *testing.T, root, outside string, cs *Changeset) {
			chmod(t, filepath.Join(root, "b.txt"), 0o755|fs.ModeSetuid)
			cs.Write("a.txt", "a\n", true, 0, "A\n")
			cs.Write("b.txt", "b\n", true, 0, "B\n")
		}, "setuid or setgid"},
		{"setgid file", func(t *testing.T, root, outside string, cs *Changeset) {
			chmod(t, filepath.Join(root, "b.txt"), 0o755|fs.ModeSetgid)
			cs.Write("a.txt", "a\n", true, 0, "A\n")
			cs.Write("b.txt", "b\n", true, 0, "B\n")
		}, "setuid or setgid"},
		{"a FIFO in a file's place", func(t *testing.T, root, outside string, cs *Changeset) {
			if err := syscall.Mkfifo(filepath.Join(root, "fifo"), 0o644); err != nil {
				t.Skip(err)
			}
			cs.Write("a.txt", "a\n", true, 0, "A\n")
			cs.Write("fifo", "", true, 0, "x\n")
		}, "not a regular file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			outside := t.TempDir()
			os.WriteFile(filepath.Join(outside, "secret"), []byte("s\n"), 0o644)
			root := tree(t, map[string]string{"a.txt": "a\n", "b.txt": "b\n"})
			cs := &Changeset{}
			tc.build(t, root, outside, cs)
			before := snapshot(t, root)
			err := ApplyToDisk(root, cs)
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Fatalf("err = %v, want one containing %q", err, tc.err)
			}
			if !strings.HasSuffix(err.Error(), " Nothing was written.") {
				t.Errorf("err = %q, want it to end with \"Nothing was written.\"", err)
			}
			if after := snapshot(t, root); !equalMaps(before, after) {
				t.Errorf("files changed: %q → %q", before, after)
			}
			if got := snapshot(t, outside); !equalMaps(got, map[string]string{"secret": "s\n"}) {
				t.Errorf("files outside the root written: %q", got)
			}
		})
	}
}

func chmod(t *testing.T, name string, mode fs.FileMode) {
	t.Helper()
	if err := os.Chmod(name, mode); err != nil {
		t.Fatal(err)
	}
}

// TestApplyToDiskFollowsSymlinksInside: a symlink that stays inside the
// root is followed, the file it names is changed, and the link stays a
// link.
func TestApplyToDiskFollowsSymlinksInside(t *testing.T) {
	root := tree(t, map[string]string{"real/a.txt": "a\n"})
	symlink(t, "real", filepath.Join(root, "link"))
	symlink(t, "a.txt", filepath.Join(root, "real", "alias"))
	cs := &Changeset{}
	cs.Write("link/alias", "a\n", true, 0, "A\n")
	cs.Write("link/new.txt", "", false, 0, "n\n")
	if err := ApplyToDisk(root, cs); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"real/a.txt": "A\n", "real/new.txt": "n\n"}
	if got := snapshot(t, root); !equalMaps(got, want) {
		t.Errorf("files = %q, want %q", got, want)
	}
	if info, err := os.Lstat(filepath.Join(root, "real", "alias")); err != nil || info.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("the symlink was replaced: %v, %v", info, err)
	}
}

// TestApplyToDiskRollsBack fails (or panics in) the write of the last file
// and checks that every file is as it was, created folders included, and
// that no temporary file is left.
func TestApplyToDiskRollsBack(t *testing.T) {
	for _, tc := range []struct {
		name     string
		fail     func() error
		walkOnly bool
	}{
		{"error", func() error { return errors.New("disk full") }, false},
		{"error, walking folders", func() error { return errors.New("disk full") }, true},
		{"panic", func() error { panic("disk full") }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := tree(t, map[string]string{"a.txt": "a\n", "b.txt": "b\n", "d.txt": "d\n"})
			before := snapshot(t, root)
			cs := &Changeset{}
			cs.Write("a.txt", "a\n", true, 0, "A\n")
			cs.Remove("d.txt", "d\n", 0)
			cs.Write("new/c.txt", "", false, 0, "c\n")
			cs.Write("z.txt", "", false, 0, "z\n")
			writes := 0
			opts := diskOptions{walkOnly: tc.walkOnly, beforeWrite: func(c *FileChange) error {
				writes++
				if c.Path == "z.txt" {
					return tc.fail()
				}
				return nil
			}}
			var err error
			func() {
				defer func() {
					if r := recover(); r != nil {
						err = fmt.Errorf("panic: %v", r)
					}
				}()
				err = applyToDisk(root, cs, opts)
			}()
			if err == nil || !strings.Contains(err.Error(), "disk full") {
				t.Fatalf("err = %v", err)
			}
			if tc.name != "panic" && !strings.HasSuffix(err.Error(), "the 3 files already written were put back as they were, so nothing changed") {
				t.Errorf("err = %v, want it to say the files were put back", err)
			}
			if writes != 4 {
				t.Errorf("%d writes, want 4 (a, d, new/c, then the failing z)", writes)
			}
			if after := snapshot(t, root); !equalMaps(before, after) {
				t.Errorf("not rolled back (or temporary files left): %q → %q", before, after)
			}
			if _, err := os.Stat(filepath.Join(root, "new")); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("created folder left behind: %v", err)
			}
		})
	}
}

// TestApplyToDiskKeepsModes: a changed file keeps its permission bits.
func TestApplyToDiskKeepsModes(t *testing.T) {
	for _, mode := range []fs.FileMode{0o755, 0o600, 0o640, 0o700} {
		root := tree(t, map[string]string{"a.txt": "a\n"})
		chmod(t, filepath.Join(root, "a.txt"), mode)
		cs := &Changeset{}
		cs.Write("a.txt", "a\n", true, 0, "A\n")
		if err := ApplyToDisk(root, cs); err != nil {
			t.Fatal(err)
		}
		if info, _ := os.Stat(filepath.Join(root, "a.txt")); info.Mode() != mode {
			t.Errorf("mode = %v, want %v kept", info.Mode(), mode)
		}
	}
}

func TestCleanPath(t *testing.T) {
	root := "/work/proj"
	for _, tc := range []struct{ in, want, err string }{
		{"a.go", "a.go", ""},
		{"./x/../b/c.go", "b/c.go", ""},
		{"/work/proj/d/e.go", "d/e.go", ""},
		{"../etc/passwd", "", "outside the workspace"},
		{"a/../../x", "", "outside the workspace"},
		{"/etc/passwd", "", "outside the workspace"},
		{"", "", "no path"},
		{".", "", "workspace root"},
		{"docs/notes.md```", "", "holds a ``` fence"},
	} {
		got, err := CleanPath(root, tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("CleanPath(%q) err = %v, want %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("CleanPath(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}

func TestChangesetMerges(t *testing.T) {
	cs := &Changeset{}
	cs.Write("a", "1", true, 3, "2")
	cs.Write("a", "ignored", true, 9, "3")
	cs.Write("n", "", false, 0, "x")
	cs.Remove("n", "", 0) // created then deleted: no change at all
	cs.Remove("d", "old", 0)
	cs.Write("d", "", false, 0, "new") // deleted then written: a modification
	eff := cs.Effective()
	if len(eff) != 2 || eff[0].Path != "a" || eff[0].Base() != "1" || eff[0].Version != 3 || eff[0].Result() != "3" ||
		eff[1].Path != "d" || eff[1].Action != Modify || eff[1].Base() != "old" || eff[1].Result() != "new" {
		for _, c := range eff {
			t.Logf("%+v", *c)
		}
		t.Error("changes not merged as expected")
	}
}

// BenchmarkApplyToDisk: one changeset of n changed files in a few
// folders; the cost grows with the number of files (a folder is opened
// once per apply, whatever the number of its files).
func BenchmarkApplyToDisk(b *testing.B) {
	for _, n := range []int{1, 10, 100} {
		files := map[string]string{}
		for i := range n {
			files[fmt.Sprintf("d%d/f%d.txt", i%4, i)] = "a\n"
		}
		b.Run(fmt.Sprintf("files=%d", n), func(b *testing.B) {
			root := tree(b, files)
			content := []string{"a\n", "b\n"}
			i := 0
			for b.Loop() {
				cs := &Changeset{}
				for p := range files {
					cs.Write(p, content[i%2], true, 0, content[(i+1)%2])
				}
				if err := ApplyToDisk(root, cs); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
	}
}
