package edittool

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/tools/parse"
)

// TestRead: files as the editor holds them, with line numbers; ranges;
// several paths; folders; what cannot be read says why without hiding the
// rest; nothing outside the workspace.
func TestRead(t *testing.T) {
	root := t.TempDir()
	root, _ = filepath.EvalSymlinks(root)
	os.MkdirAll(filepath.Join(root, "pkg", "sub"), 0o755)
	os.WriteFile(filepath.Join(root, "pkg", "B.go"), []byte("package pkg\n"), 0o644)
	os.WriteFile(filepath.Join(root, "pkg", "a.go"), []byte("package pkg\n"), 0o644)
	os.WriteFile(filepath.Join(root, "bin.dat"), []byte("\x00\x01"), 0o644)
	os.Symlink(t.TempDir(), filepath.Join(root, "escape"))
	// main.go is open in the editor with unsaved changes; the disk has
	// the old text.
	os.WriteFile(filepath.Join(root, "main.go"), []byte("old\n"), 0o644)
	src := overlay{files: map[string]string{"main.go": strings.Repeat("line\n", 11) + "last"}, disk: DiskSource{Root: root}}
	b := &Batch{Root: root, Source: src}
	reg := testRegistry()
	run := func(reply string) (string, error) {
		uses := parse.ToolUses(reply, parse.Options{Lookup: reg.Lookup})
		if len(uses) != 1 {
			t.Fatalf("%d uses in %q", len(uses), reply)
		}
		spec, _ := reg.Get("read")
		return b.Run(context.Background(), spec, uses[0])
	}
	for _, tc := range []struct {
		name, reply, want, wantErr string
	}{
		{"a buffer, unsaved", "```read main.go\n```\n", "````main.go\n 1\tline\n", ""},
		{"the last line, widths", "```read main.go\n```\n", "11\tline\n12\tlast\n````\n", ""},
		{"a folder", "```read pkg\n```\n", "````pkg/ (3 entries)\nsub/\na.go\nB.go\n````\n", ""},
		{"the workspace root", "```read .\n```\n", "````./ (4 entries)\npkg/\nbin.dat\nescape\nmain.go\n", ""},
		{"the workspace root, ./", "```read ./\n```\n", "````./ (4 entries)\n", ""},
		{"several, one missing", "```read\nmain.go\n# a comment\nnope.go\n```\n", "read nope.go: no such file or folder\n", ""},
		{"binary", "```read bin.dat\n```\n", "", "a binary file"},
		{"outside", "```read ../etc/passwd\n```\n", "", "outside the workspace"},
		{"through a symlink out", "```read escape\n```\n", "", "outside the workspace"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := run(tc.reply)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q (out %q)", err, tc.wantErr, out)
				}
				return
			}
			if err != nil || !strings.Contains(out, tc.want) {
				t.Fatalf("out = %q, err %v; want it to contain %q", out, err, tc.want)
			}
		})
	}
	out, err := b.Read(context.Background(), []string{"main.go"}, 3, 4)
	if err != nil || out != "````main.go (lines 3-4 of 12)\n3\tline\n4\tline\n````\n" {
		t.Errorf("range: %q, %v", out, err)
	}
	if _, err := b.Read(context.Background(), []string{"main.go"}, 5, 2); err == nil {
		t.Error("a reversed range was accepted")
	}
	// The batch's own edits are what later calls read.
	b.Changes.Write("new.go", "", false, 0, "package p\n")
	if out, err := b.Read(context.Background(), []string{"new.go"}, 0, 0); err != nil || !strings.Contains(out, "1\tpackage p") {
		t.Errorf("a file the batch created: %q, %v", out, err)
	}
}

// overlay is an editor view: open buffers over the disk.
type overlay struct {
	files map[string]string
	disk  DiskSource
}

func (o overlay) Read(ctx context.Context, p string) (string, int32, bool, error) {
	if c, ok := o.files[p]; ok {
		return c, 3, true, nil
	}
	return o.disk.Read(ctx, p)
}
