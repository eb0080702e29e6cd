package edittool

import (
	"context"
	"strings"
	"testing"
)

// TestPatchWithoutPath: a patch naming no file is told patch's own form;
// one holding "=== PATH:" sections (patch_many's form, which small models
// copy into a patch block) is applied as patch_many, all or nothing.
func TestPatchWithoutPath(t *testing.T) {
	files := map[string]string{"a.go": "func foo() {}\nfoo()\n", "b.go": "foo()\n"}
	for _, tc := range []struct {
		name, patch, wantErr, wantMsg string
		changed                       bool
	}{
		{name: "no sections", patch: "<<<<<<< ORIGINAL\nfoo()\n=======\nbar()\n>>>>>>> UPDATED\n", wantErr: "e.g. ```patch path/to/file"},
		{name: "sections", patch: "=== PATH: a.go ===\n<<<<<<< ORIGINAL\nfunc foo() {}\n=======\nfunc bar() {}\n>>>>>>> UPDATED\n=== PATH: b.go ===\n<<<<<<< ORIGINAL\nfoo()\n=======\nbar()\n>>>>>>> UPDATED\n",
			wantMsg: "applied as patch_many", changed: true},
		{name: "a section fails", patch: "=== PATH: a.go ===\n<<<<<<< ORIGINAL\nfunc foo() {}\n=======\nfunc bar() {}\n>>>>>>> UPDATED\n=== PATH: main.go ===\n<<<<<<< ORIGINAL\nfoo()\n=======\nbar()\n>>>>>>> UPDATED\n",
			wantErr: "patch_many's form; applied as patch_many it failed"},
		{name: "text before the sections", patch: "here:\n=== PATH: a.go ===\n<<<<<<< ORIGINAL\nfoo()\n=======\nbar()\n>>>>>>> UPDATED\n", wantErr: "patch_many's form, but they cannot be read"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := newBatch(files)
			msg, err := b.Patch(context.Background(), "", tc.patch)
			switch {
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr) || strings.Contains(err.Error(), "```save")):
				t.Fatalf("err = %v, want %q", err, tc.wantErr)
			case tc.wantErr == "" && (err != nil || !strings.Contains(msg, tc.wantMsg)):
				t.Fatalf("msg %q, err %v", msg, err)
			}
			if changed := len(b.Changes.Effective()) > 0; changed != tc.changed {
				t.Errorf("changed = %v, want %v", changed, tc.changed)
			}
		})
	}
}

// TestSaveRefusesDescribedContent: a save whose whole content is a
// parenthesized description of it (a placeholder a small model copied
// from an example) is refused, and the file kept; code that merely
// starts with a parenthesis is written.
func TestSaveRefusesDescribedContent(t *testing.T) {
	files := map[string]string{"shapes.py": "def area(side):\n    return side * side\n"}
	for _, content := range []string{"(the entire new content of shapes.py)", "(the whole new content of shapes.py)", "(new code)", "// ... every line of shapes.py, changed as asked ..."} {
		b := newBatch(files)
		if _, err := b.Save(context.Background(), "shapes.py", content); err == nil || !strings.Contains(err.Error(), "placeholder") {
			t.Errorf("save %q: err = %v", content, err)
		}
	}
	b := newBatch(files)
	if _, err := b.Save(context.Background(), "init.el", "(provide 'my-file)"); err != nil {
		t.Errorf("a Lisp line was refused: %v", err)
	}
}
