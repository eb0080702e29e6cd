package edits

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// tree writes files (path → content) under a new temp dir.
func tree(t *testing.T, files map[string]string) string {
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
func snapshot(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Type()&fs.ModeSymlink != 0 {
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

func TestApplyToDiskRefusesWithoutWriting(t *testing.T) {
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "secret"), []byte("s\n"), 0o644)
	for _, tc := range []struct {
		name  string
		build func(root string, cs *Changeset)
		err   string
	}{
		{"stale base", func(root string, cs *Changeset) {
			cs.Write("a.txt", "a\n", true, 0, "A\n")
			cs.Write("b.txt", "OLD\n", true, 0, "B\n")
		}, "changed on disk"},
		{"create over an existing file", func(root string, cs *Changeset) {
			cs.Write("a.txt", "a\n", true, 0, "A\n")
			cs.Write("b.txt", "", false, 0, "B\n")
		}, "already exists"},
		{"modify a missing file", func(root string, cs *Changeset) {
			cs.Write("a.txt", "a\n", true, 0, "A\n")
			cs.Write("nope.txt", "x", true, 0, "y")
		}, "no longer exists"},
		{"symlink out of the root", func(root string, cs *Changeset) {
			os.Symlink(filepath.Join(outside, "secret"), filepath.Join(root, "link"))
			cs.Write("a.txt", "a\n", true, 0, "A\n")
			cs.Write("link", "s\n", true, 0, "pwned\n")
		}, "outside the workspace"},
		{"symlinked folder out of the root", func(root string, cs *Changeset) {
			os.Symlink(outside, filepath.Join(root, "out"))
			cs.Write("a.txt", "a\n", true, 0, "A\n")
			cs.Write("out/new.txt", "", false, 0, "pwned\n")
		}, "outside the workspace"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := tree(t, map[string]string{"a.txt": "a\n", "b.txt": "b\n"})
			cs := &Changeset{}
			tc.build(root, cs)
			before := snapshot(t, root)
			err := ApplyToDisk(root, cs)
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Fatalf("err = %v, want one containing %q", err, tc.err)
			}
			if after := snapshot(t, root); !equalMaps(before, after) {
				t.Errorf("files changed: %q → %q", before, after)
			}
			if data, _ := os.ReadFile(filepath.Join(outside, "secret")); string(data) != "s\n" {
				t.Errorf("file outside the root written: %q", data)
			}
		})
	}
}

// TestApplyToDiskRollsBack fails the write of the last file and checks that
// every file is as it was, created folders included.
func TestApplyToDiskRollsBack(t *testing.T) {
	root := tree(t, map[string]string{"a.txt": "a\n", "b.txt": "b\n", "d.txt": "d\n"})
	before := snapshot(t, root)
	cs := &Changeset{}
	cs.Write("a.txt", "a\n", true, 0, "A\n")
	cs.Remove("d.txt", "d\n", 0)
	cs.Write("new/c.txt", "", false, 0, "c\n")
	cs.Write("z.txt", "", false, 0, "z\n")
	writes := 0
	failing := func(target string, data []byte, mode fs.FileMode) error {
		writes++
		if strings.HasSuffix(target, "z.txt") {
			return errors.New("disk full")
		}
		return writeAtomic(target, data, mode)
	}
	err := applyToDisk(root, cs, failing)
	if err == nil || !strings.Contains(err.Error(), "disk full") || !strings.Contains(err.Error(), "restored") {
		t.Fatalf("err = %v", err)
	}
	if writes != 3 {
		t.Errorf("%d writes, want 3 (a, new/c, then the failing z)", writes)
	}
	if after := snapshot(t, root); !equalMaps(before, after) {
		t.Errorf("not rolled back: %q → %q", before, after)
	}
	if _, err := os.Stat(filepath.Join(root, "new")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("created folder left behind: %v", err)
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
	if len(eff) != 2 || eff[0].Path != "a" || eff[0].Base != "1" || eff[0].Version != 3 || eff[0].Result != "3" ||
		eff[1].Path != "d" || eff[1].Action != Modify || eff[1].Base != "old" || eff[1].Result != "new" {
		for _, c := range eff {
			t.Logf("%+v", *c)
		}
		t.Error("changes not merged as expected")
	}
}
