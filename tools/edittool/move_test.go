package edittool

import (
	"strings"
	"testing"
)

// TestDeleteAndMove: the delete and move tools are apply_patch's delete
// and move as calls of their own: one undoable change each, nothing
// changed when they are refused, and errors that say how to call them.
func TestDeleteAndMove(t *testing.T) {
	files := map[string]string{"old.go": "package p\n", "util.go": "package p\n\nfunc U() {}\n", "strings.go": "package p\n"}
	for _, tc := range []struct {
		name, reply string
		want        map[string]string // the changes
		msg, err    string
	}{
		{"delete", "```delete old.go\n```\n", map[string]string{"old.go": "delete:"}, "Deleted old.go", ""},
		{"move", "```move util.go text/util.go\n```\n",
			map[string]string{"util.go": "delete:", "text/util.go": "create:package p\n\nfunc U() {}\n"}, "Moved util.go to text/util.go", ""},
		{"move onto a file", "```move util.go strings.go\n```\n", nil, "", "strings.go already exists"},
		{"delete a file that is not there", "```delete gone.go\n```\n", nil, "", "gone.go: the file does not exist"},
		{"move a file that is not there", "```move gone.go x.go\n```\n", nil, "", "there is no gone.go to move"},
		{"delete without a path", "```delete\n```\n", nil, "", "no path given"},
		{"move without its new path", "```move util.go\n```\n", nil, "", "give the file and its new path"},
		{"delete holding text", "```delete old.go\npackage q\n```\n", nil, "", "the block holds text; nothing was deleted"},
		{"move holding text", "```move util.go u.go\npackage q\n```\n", nil, "", "the block holds text; nothing was moved"},
		{"delete outside the workspace", "```delete ../secret.txt\n```\n", nil, "", "outside"},
		{"move out of the workspace", "```move util.go ../util.go\n```\n", nil, "", "outside"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := newBatch(files)
			msgs, err := runReply(t, b, tc.reply)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				if len(b.Changes.Effective()) != 0 {
					t.Errorf("a refused call left changes: %v", result(b))
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := result(b)
			for p, w := range tc.want {
				if got[p] != w {
					t.Errorf("%s = %q, want %q", p, got[p], w)
				}
			}
			if len(got) != len(tc.want) {
				t.Errorf("changes = %q", got)
			}
			if !strings.Contains(strings.Join(msgs, "\n"), tc.msg) {
				t.Errorf("messages %q do not say %q", msgs, tc.msg)
			}
		})
	}
}
