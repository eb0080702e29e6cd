package edittool

import (
	"context"
	"strings"
	"testing"

	"github.com/agentls/agentls/edits"
	"github.com/agentls/agentls/tools"
)

// FuzzApplyReply runs any reply against two small files: parsing the
// edits (patch_many sections and lists, V4A, SEARCH/REPLACE detection) and
// applying them never panics, a failed multi-file tool leaves nothing of
// itself in the batch, and every change stays inside the workspace.
func FuzzApplyReply(f *testing.F) {
	f.Add("```patch_many\n=== PATH: a.go ===\n<<<<<<< ORIGINAL\npackage a\n=======\npackage b\n>>>>>>> UPDATED\n```\n")
	f.Add("```patch_many\n[{\"path\": \"a.go\", \"patch\": \"<<<<<<< ORIGINAL\\npackage a\\n=======\\npackage z\\n>>>>>>> UPDATED\"}]\n```\n")
	f.Add("```apply_patch\n*** Begin Patch\n*** Update File: a.go\n@@ package a\n+var x = 1\n*** Add File: c/d.go\n+package d\n*** End Patch\n```\n")
	f.Add("b.txt\n```\n<<<<<<< SEARCH\nhello\n=======\nbye\n>>>>>>> REPLACE\n```\n")
	f.Add("```save ../x\ny\n```\n\n```append b.txt\nmore\n```\n")
	reg := testRegistry()
	f.Fuzz(func(t *testing.T, reply string) {
		b := newBatch(map[string]string{"a.go": "package a\n", "b.txt": "hello\n"})
		_, err := b.ApplyReply(context.Background(), reply, tools.FormatMarkdown, reg)
		if err != nil && len(b.Changes.Changes) > 0 && strings.Count(reply, "```") <= 2 {
			// With a single block, a failed tool must leave nothing.
			t.Fatalf("a failed single edit left changes: %v (%v)", result(b), err)
		}
		for _, c := range b.Changes.Changes {
			if p, err := edits.CleanPath("/ws", c.Path); err != nil || p != c.Path {
				t.Fatalf("change outside the workspace or unclean: %q", c.Path)
			}
		}
	})
}
