package edits

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestResolveInRoot: every existing component is resolved, symlinks
// included, and anything leading outside the root is refused, the
// nearest existing folder of a file to create included.
func TestResolveInRoot(t *testing.T) {
	outside := t.TempDir()
	root := tree(t, map[string]string{"real/a.txt": "a\n", "b.txt": "b\n"})
	relOut, _ := filepath.Rel(root, outside)
	for name, target := range map[string]string{
		"inlink":       "real",
		"dirlink":      relOut,
		"abslink":      outside,
		"filelink":     "real/a.txt",
		"dangling_in":  "real/missing.txt",
		"dangling_out": filepath.Join(outside, "missing.txt"),
		"chain":        "dirlink",
		"back":         relOut + "/../" + filepath.Base(root) + "/real", // out and back in
		"loop":         "loop",
		"upper":        "..",
	} {
		symlink(t, target, filepath.Join(root, name))
	}
	for _, tc := range []struct{ in, want, err string }{
		{"b.txt", "b.txt", ""},
		{"real/a.txt", "real/a.txt", ""},
		{"new/dir/c.txt", "new/dir/c.txt", ""},
		{"inlink/a.txt", "real/a.txt", ""},
		{"inlink/new.txt", "real/new.txt", ""},
		{"filelink", "real/a.txt", ""},
		{"dangling_in", "real/missing.txt", ""},
		{"back/a.txt", "real/a.txt", ""},
		{"dirlink/new.txt", "", "outside the workspace"},
		{"dirlink/deep/new.txt", "", "outside the workspace"},
		{"abslink/x", "", "outside the workspace"},
		{"dangling_out", "", "outside the workspace"},
		{"chain/x", "", "outside the workspace"},
		{"upper/x", "", "outside the workspace"},
		{"loop/x", "", "a loop"},
		{"b.txt/x", "", "b.txt is a file, not a folder"},
		{"/etc/passwd", "", "absolute"},
	} {
		got, err := ResolveInRoot(root, tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ResolveInRoot(%q) = %q, %v; want an error containing %q", tc.in, got, err, tc.err)
			}
			continue
		}
		if want := filepath.Join(root, tc.want); err != nil || got != want {
			t.Errorf("ResolveInRoot(%q) = %q, %v; want %q", tc.in, got, err, want)
		}
	}
}

// TestResolveInRootSymlinkedRoot: a root reached through a symlink is
// resolved first, so its own link does not count as leading outside.
func TestResolveInRootSymlinkedRoot(t *testing.T) {
	real := tree(t, map[string]string{"a.txt": "a\n"})
	link := filepath.Join(t.TempDir(), "ws")
	symlink(t, real, link)
	got, err := ResolveInRoot(link, "a.txt")
	if err != nil || got != filepath.Join(real, "a.txt") {
		t.Errorf("ResolveInRoot = %q, %v", got, err)
	}
	if got, err := CleanPath(link, "a.txt"); err != nil || got != "a.txt" {
		t.Errorf("CleanPath = %q, %v", got, err)
	}
}

// TestCleanPathOnDisk: with the root on disk, CleanPath refuses what a
// symlink leads out (the model made the link with one command, then saves
// through it with the next), and names a file reached through a symlink
// inside by its real path.
func TestCleanPathOnDisk(t *testing.T) {
	outside := t.TempDir()
	root := tree(t, map[string]string{"real/a.txt": "a\n"})
	relOut, _ := filepath.Rel(root, outside)
	symlink(t, relOut, filepath.Join(root, "dirlink"))
	symlink(t, "real", filepath.Join(root, "inlink"))
	for _, tc := range []struct{ in, want, err string }{
		{"real/a.txt", "real/a.txt", ""},
		{"inlink/a.txt", "real/a.txt", ""},
		{filepath.Join(root, "inlink", "b.txt"), "real/b.txt", ""},
		{"dirlink/new.txt", "", "outside the workspace"},
		{"dirlink", "", "outside the workspace"},
		{"~/x", "", "starts with ~"},
	} {
		got, err := CleanPath(root, tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("CleanPath(%q) = %q, %v; want an error containing %q", tc.in, got, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("CleanPath(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}

// TestCleanPathTilde: `save ~/x` must not create a folder named "~" in
// the workspace: every path starting with ~ is refused, saying why.
func TestCleanPathTilde(t *testing.T) {
	root := t.TempDir()
	for _, p := range []string{"~", "~/x", "~/.bashrc", "~root/.ssh/authorized_keys", "~/../x"} {
		_, err := CleanPath(root, p)
		if err == nil || !strings.Contains(err.Error(), "does not expand ~") || !strings.Contains(err.Error(), "relative to the workspace root") {
			t.Errorf("CleanPath(%q) err = %v, want a refusal naming ~", p, err)
		}
	}
	if _, err := os.Stat(filepath.Join(root, "~")); err == nil {
		t.Error("a ~ folder was made")
	}
	// A ~ later in a path is an ordinary character.
	if got, err := CleanPath(root, "a/~b"); err != nil || got != "a/~b" {
		t.Errorf("CleanPath(a/~b) = %q, %v", got, err)
	}
}

func symlink(t *testing.T, target, name string) {
	t.Helper()
	if err := os.Symlink(target, name); err != nil {
		t.Fatal(err)
	}
}

// BenchmarkResolveInRoot: the cost grows with the path's depth (one Lstat
// per component), not with the size of the tree.
func BenchmarkResolveInRoot(b *testing.B) {
	for _, depth := range []int{1, 4, 16} {
		root := b.TempDir()
		parts := make([]string, depth)
		for i := range parts {
			parts[i] = fmt.Sprintf("d%d", i)
		}
		dir := filepath.Join(append([]string{root}, parts...)...)
		os.MkdirAll(dir, 0o755)
		os.WriteFile(filepath.Join(dir, "f.txt"), nil, 0o644)
		rel := strings.Join(append(parts, "f.txt"), "/")
		b.Run(fmt.Sprintf("depth=%d", depth), func(b *testing.B) {
			for b.Loop() {
				if _, err := ResolveInRoot(root, rel); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
