package edittool

import (
	"context"
	"strings"
	"testing"

	"github.com/agentls/agentls/tools"
)

// Replies as models write them for the peers' tools (aider's
// SEARCH/REPLACE, gptme's patch_many and append, Codex's apply_patch), run
// through ApplyReply as agentls apply and the server run them. Each case
// decides one difference from the peer: followed, or refused with a
// message that says how to recover.
func TestPeerReplies(t *testing.T) {
	files := map[string]string{
		"a.go":      "package a\n\nfunc A() int { return 1 }\n",
		"b.go":      "package b\n\nfunc B() int { return 2 }\n",
		"empty.py":  "",
		"notes.md":  "- a",
		"crlf.txt":  "one\r\ntwo",
		"ends.txt":  "x\n",
		"old/x.txt": "x\n",
	}
	for _, tc := range []struct {
		name, reply string
		want        map[string]string
		err         string
	}{
		// aider: an empty SEARCH creates a new file (aider's documented way).
		{"empty SEARCH creates a new file", "new/app.py\n```python\n<<<<<<< SEARCH\n=======\nprint(1)\n>>>>>>> REPLACE\n```\n",
			map[string]string{"new/app.py": "create:print(1)\n"}, ""},
		{"empty SEARCH written as a blank line creates a new file", "app.py\n```python\n<<<<<<< SEARCH\n\n=======\nprint(1)\n>>>>>>> REPLACE\n```\n",
			map[string]string{"app.py": "create:print(1)\n"}, ""},
		{"empty SEARCH fills an empty file", "empty.py\n```python\n<<<<<<< SEARCH\n=======\nprint(1)\n>>>>>>> REPLACE\n```\n",
			map[string]string{"empty.py": "modify:print(1)\n"}, ""},
		// aider appends to an existing file; a model that did not know the
		// file was there did not mean to append to it.
		{"empty SEARCH on an existing file is refused", "a.go\n```go\n<<<<<<< SEARCH\n=======\npackage z\n>>>>>>> REPLACE\n```\n",
			nil, "SEARCH is empty, which creates a new file, but a.go exists and is not empty"},
		{"SEARCH on a missing file says how to create it", "nope.go\n```go\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n```\n",
			nil, "nope.go does not exist; to create it, leave SEARCH empty"},
		// Where aider finds the file, and what it skips.
		{"the file name fenced on its own", "```python\na.go\n```\n```python\n<<<<<<< SEARCH\npackage a\n=======\npackage f\n>>>>>>> REPLACE\n```\n",
			map[string]string{"a.go": "modify:package f\n\nfunc A() int { return 1 }\n"}, ""},
		{"a block that names no file is refused, not skipped", "Here:\n\n```go\n<<<<<<< SEARCH\npackage a\n=======\npackage f\n>>>>>>> REPLACE\n```\n",
			nil, "SEARCH/REPLACE block (at byte 7): the block names no file"},
		{"prose between the hunks of one block", "a.go\n```go\n<<<<<<< SEARCH\npackage a\n=======\npackage f\n>>>>>>> REPLACE\n\n...\n\n<<<<<<< SEARCH\nfunc A() int { return 1 }\n=======\nfunc A() int { return 7 }\n>>>>>>> REPLACE\n```\n",
			map[string]string{"a.go": "modify:package f\n\nfunc A() int { return 7 }\n"}, ""},
		// The patch tool keeps gptme's rule: files are created with save.
		{"patch with an empty ORIGINAL does not create a file", "```patch new.go\n<<<<<<< ORIGINAL\n=======\npackage n\n>>>>>>> UPDATED\n```\n",
			nil, "does not exist; use save"},

		// gptme's patch_many with paths in the tag drops text before and
		// between hunks: here it is refused, named.
		{"patch_many tag paths: text between hunks refused", "```patch_many a.go b.go\n<<<<<<< ORIGINAL\npackage a\n=======\npackage x\n>>>>>>> UPDATED\nand for b.go:\n<<<<<<< ORIGINAL\npackage b\n=======\npackage y\n>>>>>>> UPDATED\n```\n",
			nil, "line 6: text between hunks 1 and 2 (\"and for b.go:\") belongs to no file"},
		{"patch_many tag paths: text before the first hunk refused", "```patch_many a.go\nChange a.go:\n<<<<<<< ORIGINAL\npackage a\n=======\npackage x\n>>>>>>> UPDATED\n```\n",
			nil, "line 1: text before the first hunk (\"Change a.go:\") belongs to no file"},
		{"patch_many tag paths: prose after the last hunk ignored as in patch", "```patch_many a.go\n<<<<<<< ORIGINAL\npackage a\n=======\npackage x\n>>>>>>> UPDATED\nDone.\n```\n",
			map[string]string{"a.go": "modify:package x\n\nfunc A() int { return 1 }\n"}, ""},
		{"patch_many tag paths: an unterminated hunk is named", "```patch_many a.go b.go\n<<<<<<< ORIGINAL\npackage a\n=======\npackage x\n>>>>>>> UPDATED\n<<<<<<< ORIGINAL\npackage b\n=======\npackage y\n```\n",
			nil, "missing \">>>>>>> UPDATED\""},

		// Codex overwrites on Add File and on Move to an existing file. The
		// content there was never read: refused, with the way to say it.
		{"Add File over an existing file is refused", "```apply_patch\n*** Begin Patch\n*** Add File: ends.txt\n+y\n*** End Patch\n```\n",
			nil, "add ends.txt: the file already exists; to change it use \"*** Update File: ends.txt\", to replace it whole put \"*** Delete File: ends.txt\" before the Add"},
		{"Delete then Add replaces a file", "```apply_patch\n*** Begin Patch\n*** Delete File: ends.txt\n*** Add File: ends.txt\n+y\n*** End Patch\n```\n",
			map[string]string{"ends.txt": "modify:y\n"}, ""},
		{"Move to an existing file is refused", "```apply_patch\n*** Begin Patch\n*** Update File: old/x.txt\n*** Move to: ends.txt\n-x\n+z\n*** End Patch\n```\n",
			nil, "move old/x.txt to ends.txt: ends.txt already exists; to replace it put \"*** Delete File: ends.txt\" before the Update"},
		{"Delete then Move replaces a file", "```apply_patch\n*** Begin Patch\n*** Delete File: ends.txt\n*** Update File: old/x.txt\n*** Move to: ends.txt\n-x\n+z\n*** End Patch\n```\n",
			map[string]string{"ends.txt": "modify:z\n", "old/x.txt": "delete:"}, ""},

		{"Update keeps a file without a final newline so", "```apply_patch\n*** Begin Patch\n*** Update File: notes.md\n@@\n-- a\n+- first\n+- second\n*** End Patch\n```\n",
			map[string]string{"notes.md": "modify:- first\n- second"}, ""},

		// gptme's append starts the text on a new line when the file has
		// no final newline; so does agentls, in the file's line endings.
		{"append after a file without a final newline", "```append notes.md\n- b\n```\n", map[string]string{"notes.md": "modify:- a\n- b\n"}, ""},
		{"append after a CRLF file without a final newline", "```append crlf.txt\nthree\n```\n", map[string]string{"crlf.txt": "modify:one\r\ntwo\r\nthree\r\n"}, ""},
		{"append to an empty file adds no blank line", "```append empty.py\nx = 1\n```\n", map[string]string{"empty.py": "modify:x = 1\n"}, ""},
		{"append after a final newline adds no blank line", "```append ends.txt\ny\n```\n", map[string]string{"ends.txt": "modify:x\ny\n"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := newBatch(files)
			_, err := b.ApplyReply(context.Background(), tc.reply, tools.FormatMarkdown, testRegistry())
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v\nwant one containing %q", err, tc.err)
				}
				if len(b.Changes.Effective()) != 0 {
					t.Errorf("a refused edit left changes: %v", result(b))
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
				t.Errorf("changes = %q, want %q", got, tc.want)
			}
		})
	}
}
