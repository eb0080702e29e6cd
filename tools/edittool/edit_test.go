package edittool

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/agentls/agentls/edits"
	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/parse"
)

// memSource is a Source over a map, with editor versions.
type memSource map[string]string

func (m memSource) Read(_ context.Context, p string) (string, int32, bool, error) {
	c, ok := m[p]
	if !ok {
		return "", 0, false, nil
	}
	return c, 7, true, nil
}

func newBatch(files map[string]string) *Batch {
	return &Batch{Root: "/ws", Source: memSource(files)}
}

// runReply parses a markdown reply and runs its edit tool uses.
func runReply(t *testing.T, b *Batch, reply string) ([]string, error) {
	t.Helper()
	reg := testRegistry()
	var msgs []string
	for _, use := range parse.ToolUses(reply, parse.Options{Lookup: reg.Lookup}) {
		spec, _ := reg.Get(use.Tool)
		msg, err := b.Run(context.Background(), spec, use)
		if err != nil {
			return msgs, err
		}
		msgs = append(msgs, msg)
	}
	return msgs, nil
}

func result(b *Batch) map[string]string {
	out := map[string]string{}
	for _, c := range b.Changes.Effective() {
		out[c.Path] = c.Action.String() + ":" + c.Result()
	}
	return out
}

func TestEditTools(t *testing.T) {
	files := map[string]string{
		"a.go":      "package a\n\nfunc A() int { return 1 }\n",
		"b.go":      "package b\n\nfunc B() int { return 2 }\n",
		"crlf.txt":  "one\r\ntwo\r\n",
		"bom.txt":   "\ufeffhello\n",
		"notes.md":  "- a",
		"long.txt":  strings.Repeat("line\n", 20),
		"other.txt": "x\n",
	}
	for _, tc := range []struct {
		name, reply string
		want        map[string]string
		msg         string
		err         string
	}{
		{"save creates", "```save new/c.go\npackage c\n```\n", map[string]string{"new/c.go": "create:package c\n"}, "Saved to new/c.go (created)", ""},
		{"save keeps CRLF and BOM", "```save crlf.txt\nuno\ndos\n```\n\n```save bom.txt\nbye\n```\n",
			map[string]string{"crlf.txt": "modify:uno\r\ndos\r\n", "bom.txt": "modify:\ufeffbye\n"}, "", ""},
		{"save refuses placeholders", "```save a.go\npackage a\n// ... rest unchanged\n```\n", nil, "", "placeholder"},
		{"save without path", "```save\nx\n```\n", nil, "", "no path given"},
		{"save outside the root", "```save ../x.go\nx\n```\n", nil, "", "outside the workspace"},
		{"save hint", "```save long.txt\n" + strings.Repeat("line\n", 19) + "LINE\n```\n", nil, "barely changed", ""},
		{"append adds a line break", "```append notes.md\n- b\n```\n", map[string]string{"notes.md": "modify:- a\n- b\n"}, "Appended to notes.md", ""},
		{"patch", "```patch a.go\n<<<<<<< ORIGINAL\nfunc A() int { return 1 }\n=======\nfunc A() int { return 10 }\n>>>>>>> UPDATED\n```\n",
			map[string]string{"a.go": "modify:package a\n\nfunc A() int { return 10 }\n"}, "Patch applied to a.go (1 hunk)", ""},
		{"patch a missing file", "```patch nope.go\n<<<<<<< ORIGINAL\na\n=======\nb\n>>>>>>> UPDATED\n```\n", nil, "", "does not exist; use save"},
		{"patch not found", "```patch a.go\n<<<<<<< ORIGINAL\nfunc A() int { return 2 }\n=======\nx\n>>>>>>> UPDATED\n```\n", nil, "", "The nearest lines"},
		{"later edits see earlier ones", "```save c.txt\nv1\n```\n\n```patch c.txt\n<<<<<<< ORIGINAL\nv1\n=======\nv2\n>>>>>>> UPDATED\n```\n",
			map[string]string{"c.txt": "create:v2\n"}, "", ""},
		{"patch_many sections", "```patch_many\n=== PATH: a.go ===\n<<<<<<< ORIGINAL\nfunc A() int { return 1 }\n=======\nfunc A() int { return 11 }\n>>>>>>> UPDATED\n\n=== PATH: b.go ===\n<<<<<<< ORIGINAL\nfunc B() int { return 2 }\n=======\nfunc B() int { return 22 }\n>>>>>>> UPDATED\n```\n",
			map[string]string{"a.go": "modify:package a\n\nfunc A() int { return 11 }\n", "b.go": "modify:package b\n\nfunc B() int { return 22 }\n"}, "Applied 2 patches atomically to: a.go, b.go", ""},
		{"patch_many same file twice, in order", "```patch_many\n=== PATH: a.go ===\n<<<<<<< ORIGINAL\npackage a\n=======\npackage aa\n>>>>>>> UPDATED\n=== PATH: a.go ===\n<<<<<<< ORIGINAL\npackage aa\n=======\npackage aaa\n>>>>>>> UPDATED\n```\n",
			map[string]string{"a.go": "modify:package aaa\n\nfunc A() int { return 1 }\n"}, "", ""},
		{"patch_many header inside a hunk is content", "```patch_many\n=== PATH: other.txt ===\n<<<<<<< ORIGINAL\nx\n=======\n=== PATH: y ===\n>>>>>>> UPDATED\n```\n",
			map[string]string{"other.txt": "modify:=== PATH: y ===\n"}, "", ""},
		{"patch_many preamble refused", "```patch_many\nHere:\n=== PATH: a.go ===\n<<<<<<< ORIGINAL\npackage a\n=======\npackage z\n>>>>>>> UPDATED\n```\n", nil, "", "text before the first"},
		{"patch_many paths in the tag", "```patch_many a.go b.go\n<<<<<<< ORIGINAL\npackage a\n=======\npackage x\n>>>>>>> UPDATED\n<<<<<<< ORIGINAL\npackage b\n=======\npackage y\n>>>>>>> UPDATED\n```\n",
			map[string]string{"a.go": "modify:package x\n\nfunc A() int { return 1 }\n", "b.go": "modify:package y\n\nfunc B() int { return 2 }\n"}, "", ""},
		{"patch_many tag count mismatch", "```patch_many a.go b.go\n<<<<<<< ORIGINAL\npackage a\n=======\npackage x\n>>>>>>> UPDATED\n```\n", nil, "", "2 paths in the block's tag but 1 hunks"},
		{"patch_many json list", "```patch_many\n[{\"path\": \"a.go\", \"patch\": \"<<<<<<< ORIGINAL\\npackage a\\n=======\\npackage j\\n>>>>>>> UPDATED\"}]\n```\n",
			map[string]string{"a.go": "modify:package j\n\nfunc A() int { return 1 }\n"}, "", ""},
		{"patch_many all or nothing", "```patch_many\n=== PATH: a.go ===\n<<<<<<< ORIGINAL\npackage a\n=======\npackage z\n>>>>>>> UPDATED\n=== PATH: b.go ===\n<<<<<<< ORIGINAL\nnot there\n=======\ny\n>>>>>>> UPDATED\n```\n", nil, "", "file 2/2: patch b.go"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := newBatch(files)
			msgs, err := runReply(t, b, tc.reply)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want one containing %q", err, tc.err)
				}
				if len(msgs) == 0 && len(b.Changes.Effective()) != 0 {
					t.Errorf("a failed edit left changes: %v", result(b))
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tc.want != nil {
				got := result(b)
				if len(got) != len(tc.want) {
					t.Errorf("changes = %q, want %q", got, tc.want)
				}
				for p, w := range tc.want {
					if got[p] != w {
						t.Errorf("%s = %q, want %q", p, got[p], w)
					}
				}
			}
			if tc.msg != "" && !strings.Contains(strings.Join(msgs, "\n"), tc.msg) {
				t.Errorf("messages %q do not say %q", msgs, tc.msg)
			}
		})
	}
}

func TestBaseAndVersionKept(t *testing.T) {
	b := newBatch(map[string]string{"a.txt": "a\n"})
	runReply(t, b, "```save a.txt\nb\n```\n\n```save a.txt\nc\n```\n")
	eff := b.Changes.Effective()
	if len(eff) != 1 || eff[0].Base() != "a\n" || eff[0].Version != 7 || eff[0].Result() != "c\n" || eff[0].Action != edits.Modify {
		t.Errorf("change = %+v", eff)
	}
}

func TestApplyPatchTool(t *testing.T) {
	files := map[string]string{"main.go": "package main\n\nfunc main() {\n\tfmt.Println(greeting)\n}\n", "old.txt": "bye\n"}
	for _, tc := range []struct {
		name, reply string
		want        map[string]string
		msg, err    string
	}{
		{"update, add, delete, move", "```apply_patch\n*** Begin Patch\n*** Update File: main.go\n*** Move to: cmd/main.go\n@@ func main() {\n-\tfmt.Println(greeting)\n+\tlog.Print(greeting)\n*** Add File: notes.md\n+# Notes\n*** Delete File: old.txt\n*** End Patch\n```\n",
			map[string]string{"main.go": "delete:", "cmd/main.go": "create:package main\n\nfunc main() {\n\tlog.Print(greeting)\n}\n", "notes.md": "create:# Notes\n", "old.txt": "delete:"},
			"Patch applied: R main.go → cmd/main.go, A notes.md, D old.txt", ""},
		{"all or nothing", "```apply_patch\n*** Begin Patch\n*** Add File: notes.md\n+x\n*** Update File: main.go\n-\tnot there\n+\ty\n*** End Patch\n```\n", nil, "", "file 2/2: update main.go"},
		{"add over an existing file", "```apply_patch\n*** Begin Patch\n*** Add File: old.txt\n+x\n*** End Patch\n```\n", nil, "", "already exists"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := newBatch(files)
			msgs, err := runReply(t, b, tc.reply)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				if len(b.Changes.Effective()) != 0 {
					t.Errorf("a failed patch left changes: %v", result(b))
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

func TestFindSearchReplace(t *testing.T) {
	reply := "Change the greeting.\n\nhello.py\n```python\n<<<<<<< SEARCH\nprint(\"hi\")\n=======\nprint(\"hello\")\n>>>>>>> REPLACE\n```\n\n" +
		"```python\nsrc/app.py\n<<<<<<< SEARCH\nx = 1\n=======\nx = 2\n>>>>>>> REPLACE\n```\n\n" +
		"**lib/util.go**\n```go\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n```\n\n" +
		"```python\nprint('not an edit')\n```\n\n" +
		"```patch a.go\n<<<<<<< ORIGINAL\na\n=======\nb\n>>>>>>> UPDATED\n```\n"
	reg := testRegistry()
	p := parse.NewParser(parse.Options{Lookup: reg.Lookup, KeepBlocks: true})
	p.WriteString(reply)
	p.Finish()
	isTool := func(b parse.Block) bool {
		for _, u := range p.ToolUses() {
			if u.Start == b.Start {
				return true
			}
		}
		return false
	}
	got := FindSearchReplace(reply, p.Blocks(), isTool)
	if len(got) != 3 || got[0].Path != "hello.py" || got[1].Path != "src/app.py" || got[2].Path != "lib/util.go" ||
		!strings.HasPrefix(got[1].Patch, "<<<<<<< SEARCH") {
		t.Fatalf("found %+v", got)
	}
	b := newBatch(map[string]string{"hello.py": "print(\"hi\")\n"})
	if _, err := b.Patch(context.Background(), got[0].Path, got[0].Patch); err != nil {
		t.Fatal(err)
	}
	if r := result(b)["hello.py"]; r != "modify:print(\"hello\")\n" {
		t.Errorf("hello.py = %q", r)
	}
}

func TestAnchoredTools(t *testing.T) {
	file := "package main\n\nfunc main() {\n\tx := 1\n}\n"
	b := newBatch(map[string]string{"main.go": file})
	spec, _ := testRegistry().Get("view_anchored")
	view, err := b.Run(context.Background(), spec, tools.ToolUse{Tool: "view_anchored", Args: []string{"main.go"}})
	if err != nil || !strings.HasPrefix(view, "````main.go\n") {
		t.Fatalf("%v\n%s", err, view)
	}
	var anchor string
	for _, l := range strings.Split(view, "\n") {
		if a, text, ok := strings.Cut(l, "│ "); ok && text == "\tx := 1" {
			anchor = a
		}
	}
	reply := "```patch_anchored main.go\n[{\"anchor\": \"" + anchor + "\", \"op\": \"replace\", \"text\": \"\\tx := 2\", \"expected\": \"\\tx := 1\"}]\n```\n"
	msgs, err := runReply(t, b, reply)
	if err != nil || !strings.Contains(msgs[0], "Anchored patch applied to main.go (1 operation)") {
		t.Fatalf("%v %q", err, msgs)
	}
	if got := result(b)["main.go"]; got != "modify:package main\n\nfunc main() {\n\tx := 2\n}\n" {
		t.Errorf("main.go = %q", got)
	}
	// The same batch again is stale: refused with fresh anchors, batch kept.
	_, err = runReply(t, b, reply)
	if err == nil || !strings.Contains(err.Error(), "nothing changed") || !strings.Contains(err.Error(), "│ \tx := 2") {
		t.Errorf("stale batch: %v", err)
	}
	// Tool format: ops as a list in kwargs.
	b2 := newBatch(map[string]string{"main.go": file})
	spec2, _ := testRegistry().Get("patch_anchored")
	_, err = b2.Run(context.Background(), spec2, tools.ToolUse{Tool: "patch_anchored", Kwargs: map[string]any{"path": "main.go", "ops": []any{map[string]any{"anchor": anchor, "op": "delete"}}}})
	if err != nil || result(b2)["main.go"] != "modify:package main\n\nfunc main() {\n}\n" {
		t.Errorf("kwargs ops: %v %q", err, result(b2))
	}
}

// TestPathsOf: the files an edit call names, as written, for every edit
// tool that names them in its arguments; delete and move included (a
// compact turn tells a deleted file from a kept one by them, and
// WrittenBy records a move's both ends).
func TestPathsOf(t *testing.T) {
	for _, tc := range []struct {
		use  tools.ToolUse
		want []string
	}{
		{tools.ToolUse{Tool: tools.NameSave, Args: []string{"a.go"}}, []string{"a.go"}},
		{tools.ToolUse{Tool: tools.NamePatch, Kwargs: map[string]any{"path": "b.go"}}, []string{"b.go"}},
		{tools.ToolUse{Tool: tools.NameDelete, Args: []string{"old.go"}}, []string{"old.go"}},
		{tools.ToolUse{Tool: tools.NameMove, Args: []string{"notes.md", "docs/notes.md"}}, []string{"notes.md", "docs/notes.md"}},
		{tools.ToolUse{Tool: tools.NameMove, Kwargs: map[string]any{"path": "a.ts", "to": "b.ts"}}, []string{"a.ts", "b.ts"}},
		{tools.ToolUse{Tool: tools.NameDelete}, nil},
		{tools.ToolUse{Tool: tools.NameRead, Args: []string{"a.go"}}, nil},
	} {
		if got := PathsOf(tc.use); !slices.Equal(got, tc.want) {
			t.Errorf("PathsOf(%s %v %v) = %q, want %q", tc.use.Tool, tc.use.Args, tc.use.Kwargs, got, tc.want)
		}
	}
	if got := WrittenBy("/ws", tools.ToolUse{Tool: tools.NameMove, Args: []string{"a.sh", "run.sh"}}); !slices.Equal(got, []string{"a.sh", "run.sh"}) {
		t.Errorf("WrittenBy(move) = %q", got)
	}
}
