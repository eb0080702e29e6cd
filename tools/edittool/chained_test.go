package edittool

import (
	"strings"
	"testing"
)

// TestChainedEditsSeeEachOther is a model chaining tool calls on one file
// in one batch: the patch tools record a change by its edits only, its
// new text made when first read, so each later call — a read, another
// patch, a patch_many that fails half-way — must see the file exactly as
// the calls before it left it, and a failed call must leave it so.
func TestChainedEditsSeeEachOther(t *testing.T) {
	files := map[string]string{
		"a.go": "package a\n\nfunc A() int { return 1 }\n",
		"b.go": "package b\n",
	}
	patch := func(path, from, to string) string {
		return "```patch " + path + "\n<<<<<<< ORIGINAL\n" + from + "\n=======\n" + to + "\n>>>>>>> UPDATED\n```\n\n"
	}
	for _, tc := range []struct {
		name  string
		reply string
		// msg is in the messages of the calls that ran; err in the error
		// of the one that failed, if one did.
		msg, err string
		want     map[string]string
	}{
		{"patch, then read", patch("a.go", "func A() int { return 1 }", "func A() int { return 10 }") + "```read a.go\n```\n",
			"3\tfunc A() int { return 10 }", "", map[string]string{"a.go": "modify:package a\n\nfunc A() int { return 10 }\n"}},
		{"patch, then patch what it made", patch("a.go", "func A() int { return 1 }", "func A() int { return 10 }") + patch("a.go", "func A() int { return 10 }", "func A() int { return 100 } // a"),
			"", "", map[string]string{"a.go": "modify:package a\n\nfunc A() int { return 100 } // a\n"}},
		{"patch, then a patch of the old text", patch("a.go", "func A() int { return 1 }", "func A() int { return 10 }") + patch("a.go", "func A() int { return 1 }", "x"),
			"", "patch a.go", map[string]string{"a.go": "modify:package a\n\nfunc A() int { return 10 }\n"}},
		{"patch, then patch_many failing on its second file", patch("a.go", "func A() int { return 1 }", "func A() int { return 10 }") +
			"```patch_many\n=== PATH: a.go ===\n<<<<<<< ORIGINAL\nfunc A() int { return 10 }\n=======\nfunc A() int { return 11 }\n>>>>>>> UPDATED\n=== PATH: b.go ===\n<<<<<<< ORIGINAL\nnot there\n=======\ny\n>>>>>>> UPDATED\n```\n\n```read a.go\n```\n",
			"", "file 2/2: patch b.go", map[string]string{"a.go": "modify:package a\n\nfunc A() int { return 10 }\n"}},
		{"append, then patch the appended line", "```append a.go\nfunc B() {}\n```\n\n" + patch("a.go", "func B() {}", "func B() { A() }") + "```read a.go\n```\n",
			"4\tfunc B() { A() }", "", map[string]string{"a.go": "modify:package a\n\nfunc A() int { return 1 }\nfunc B() { A() }\n"}},
		{"apply_patch, then read", "```apply_patch\n*** Begin Patch\n*** Update File: a.go\n@@\n-func A() int { return 1 }\n+func A() int { return 2 }\n*** End Patch\n```\n\n```read a.go\n```\n",
			"3\tfunc A() int { return 2 }", "", map[string]string{"a.go": "modify:package a\n\nfunc A() int { return 2 }\n"}},
		{"save a new file, then patch it", "```save c.go\npackage c\n```\n\n" + patch("c.go", "package c", "package cc"),
			"", "", map[string]string{"c.go": "create:package cc\n"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := newBatch(files)
			msgs, err := runReply(t, b, tc.reply)
			switch {
			case tc.err == "" && err != nil:
				t.Fatal(err)
			case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
				t.Fatalf("err = %v, want one containing %q", err, tc.err)
			}
			if !strings.Contains(strings.Join(msgs, "\n"), tc.msg) {
				t.Errorf("messages %q do not say %q", msgs, tc.msg)
			}
			got := result(b)
			if len(got) != len(tc.want) {
				t.Errorf("changes = %q, want %q", got, tc.want)
			}
			for p, w := range tc.want {
				if got[p] != w {
					t.Errorf("%s = %q, want %q", p, got[p], w)
				}
			}
		})
	}
}
