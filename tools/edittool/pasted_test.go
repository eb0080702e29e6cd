package edittool

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/agentls/agentls/edits"
	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/parse"
)

// TestPastedReplies applies the replies in testdata/pasted, written in the
// shapes chat models answer with (unified diffs, whole files), to a
// workspace on disk the way agentls apply does, and compares the whole
// workspace with want/. Each archive holds reply.md, the workspace under
// ws/ and the expected files under want/; its comment says what is
// expected: "edits: N", "error: TEXT" (refused, with TEXT in the message:
// then nothing may be written), "problem: TEXT" (a warning). A name ending
// in .crlf is written with CRLF line ends, one ending in .nonl without its
// final newline (the suffix dropped).
func TestPastedReplies(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("testdata", "pasted", "*.txtar"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	for _, p := range paths {
		t.Run(strings.TrimSuffix(filepath.Base(p), ".txtar"), func(t *testing.T) {
			ar, err := txtar.ParseFile(p)
			if err != nil {
				t.Fatal(err)
			}
			var wantErrs, wantProblems []string
			wantEdits := -1
			for l := range strings.Lines(string(ar.Comment)) {
				k, v, _ := strings.Cut(strings.TrimSpace(l), ": ")
				switch k {
				case "error":
					wantErrs = append(wantErrs, v)
				case "problem":
					wantProblems = append(wantProblems, v)
				case "edits":
					wantEdits, _ = strconv.Atoi(v)
				}
			}
			root := t.TempDir()
			var reply string
			ws, want := map[string]string{}, map[string]string{}
			hasWant := false
			for _, f := range ar.Files {
				name, data := fixtureFile(f)
				switch {
				case name == "reply.md":
					reply = data
				case strings.HasPrefix(name, "ws/"):
					ws[strings.TrimPrefix(name, "ws/")] = data
				case strings.HasPrefix(name, "want/"):
					want[strings.TrimPrefix(name, "want/")] = data
					hasWant = true
				default:
					t.Fatalf("unknown file %s", f.Name)
				}
			}
			for name, data := range ws {
				writeFixture(t, root, name, data)
			}
			real, _ := filepath.EvalSymlinks(root)
			b := &Batch{Root: real, Source: DiskSource{Root: real}}
			res, err := b.ApplyReply(context.Background(), reply, tools.FormatMarkdown, testRegistry())
			if err == nil {
				err = edits.ApplyToDisk(real, &b.Changes)
			}
			for _, pr := range wantProblems {
				if !hasProblem(res.Problems, pr) {
					t.Errorf("no problem saying %q: %v", pr, res.Problems)
				}
			}
			if len(wantErrs) > 0 {
				if err == nil {
					t.Fatalf("applied, want refused with %q", wantErrs)
				}
				for _, w := range wantErrs {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("error does not say %q:\n%v", w, err)
					}
				}
				if hasWant {
					t.Fatal("a refused fixture has want/ files: nothing may change")
				}
			} else if err != nil {
				t.Fatalf("refused: %v", err)
			}
			if wantEdits >= 0 && err == nil && res.Edits != wantEdits {
				t.Errorf("%d edits, want %d", res.Edits, wantEdits)
			}
			if !hasWant {
				want = ws // refused or no edit: byte-identical
			}
			got := readTree(t, root)
			for name, w := range want {
				if g, ok := got[name]; !ok {
					t.Errorf("%s: missing", name)
				} else if g != w {
					t.Errorf("%s:\n got %q\nwant %q", name, g, w)
				}
			}
			for name := range got {
				if _, ok := want[name]; !ok {
					t.Errorf("%s: should not be there", name)
				}
			}
		})
	}
}

// fixtureFile returns an archive file's name and content, with the .crlf
// and .nonl suffixes applied.
func fixtureFile(f txtar.File) (string, string) {
	name, data := f.Name, string(f.Data)
	for {
		switch {
		case strings.HasSuffix(name, ".crlf"):
			name, data = strings.TrimSuffix(name, ".crlf"), strings.ReplaceAll(data, "\n", "\r\n")
			continue
		case strings.HasSuffix(name, ".nonl"):
			name, data = strings.TrimSuffix(name, ".nonl"), strings.TrimSuffix(data, "\n")
			continue
		}
		return name, data
	}
}

func writeFixture(t *testing.T, root, name, data string) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// readTree returns every file under root by its slash path.
func readTree(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		out[filepath.ToSlash(rel)] = string(data)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func hasProblem(ps []parse.Problem, text string) bool {
	for _, p := range ps {
		if strings.Contains(p.Message, text) {
			return true
		}
	}
	return false
}

// TestFindPasted: which blocks are pasted edits, and the paths each names.
func TestFindPasted(t *testing.T) {
	for _, tc := range []struct {
		name, reply string
		kind        PastedKind
		paths       []string // nil: not an edit
		skipped     bool
	}{
		{"bold", "**a.go**\n```go\npackage a\n```\n", PastedFile, []string{"a.go"}, false},
		{"backticks", "`a.go`\n```go\npackage a\n```\n", PastedFile, []string{"a.go"}, false},
		{"File: label", "File: src/a.go\n```go\npackage a\n```\n", PastedFile, []string{"src/a.go"}, false},
		{"bold label", "**File:** `src/a.go`\n```go\npackage a\n```\n", PastedFile, []string{"src/a.go"}, false},
		{"colon", "a.go:\n\n```go\npackage a\n```\n", PastedFile, []string{"a.go"}, false},
		{"heading", "## `cmd/main.go`\n```go\npackage main\n```\n", PastedFile, []string{"cmd/main.go"}, false},
		{"numbered heading", "### 2. **a.go**\n```go\npackage a\n```\n", PastedFile, []string{"a.go"}, false},
		{"title", "```go title=\"a.go\"\npackage a\n```\n", PastedFile, []string{"a.go"}, false},
		{"info path", "```a.go\npackage a\n```\n", PastedFile, []string{"a.go"}, false},
		{"lang then path", "```go a.go\npackage a\n```\n", PastedFile, []string{"a.go"}, false},
		{"lang:path", "```go:a.go\npackage a\n```\n", PastedFile, []string{"a.go"}, false},
		{"filepath comment", "```go\n// filepath: a.go\npackage a\n```\n", PastedFile, []string{"a.go"}, false},
		{"same path twice", "# a.go\n**File: a.go**\n```go title=\"a.go\"\npackage a\n```\n", PastedFile, []string{"a.go"}, false},
		{"two on one line", "`a.go`, `b.go`\n```go\npackage a\n```\n", PastedFile, []string{"a.go", "b.go"}, false},
		{"line and info differ", "**a.go**\n```go title=\"b.go\"\npackage a\n```\n", PastedFile, []string{"a.go", "b.go"}, false},
		{"Makefile", "**Makefile**\n```makefile\nall:\n```\n", PastedFile, []string{"Makefile"}, false},
		{"dotfile under bash", "`.bashrc`\n```bash\nexport A=1\n```\n", PastedFile, []string{".bashrc"}, false},
		{"sentence", "Here is the new `a.go`:\n```go\npackage a\n```\n", 0, nil, false},
		{"no path", "```go\nfmt.Println(1)\n```\n", 0, nil, false},
		{"e.g.", "e.g.:\n```go\nfmt.Println(1)\n```\n", 0, nil, false},
		{"version", "v1.2.3:\n```go\nfmt.Println(1)\n```\n", 0, nil, false},
		{"selector under go", "### `fmt.Println`\n```go\nfmt.Println(1)\n```\n", PastedFile, []string{"fmt.Println"}, true},
		{"untagged", "**a.go**\n```\npackage a\n```\n", 0, nil, false},
		{"output", "**out.log**\n```console\n$ go test\n```\n", 0, nil, false},
		{"diff", "Patch:\n```diff\n--- a/a.go\n+++ b/a.go\n@@ -1 +1 @@\n-a\n+b\n```\n", PastedDiff, []string{}, false},
		{"bare hunks under a path", "**a.go**\n```diff\n@@ -1 +1 @@\n-a\n+b\n```\n", PastedDiff, []string{"a.go"}, false},
		{"diff with path in info", "```diff a.go\n@@ -1 +1 @@\n-a\n+b\n```\n", PastedDiff, []string{"a.go"}, false},
		{"untagged git diff", "```\ndiff --git a/a.go b/a.go\n--- a/a.go\n+++ b/a.go\n```\n", PastedDiff, []string{}, false},
		{"search/replace is not this", "a.go\n```go\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n```\n", 0, nil, false},
		{"a tool call is not this", "```save a.go\npackage a\n```\n", 0, nil, false},
		{"py is a tool", "**a.py**\n```py\nprint(1)\n```\n", 0, nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			reg := testRegistry()
			p := parse.NewParser(parse.Options{Format: tools.FormatMarkdown, Lookup: reg.Lookup, KeepBlocks: true})
			p.WriteString(tc.reply)
			p.Finish()
			calls := map[int]bool{}
			for _, u := range p.ToolUses() {
				calls[u.Start] = true
			}
			got := FindPasted(tc.reply, p.Blocks(), func(b parse.Block) bool { return calls[b.Start] })
			if tc.paths == nil {
				if len(got) != 0 {
					t.Fatalf("found %+v, want no edit", got)
				}
				return
			}
			if len(got) != 1 {
				t.Fatalf("found %d, want 1: %+v", len(got), got)
			}
			g := got[0]
			if g.Kind != tc.kind || strings.Join(g.Paths, ",") != strings.Join(tc.paths, ",") || (g.Skipped != "") != tc.skipped {
				t.Errorf("got kind %d paths %q skipped %q, want kind %d paths %q skipped %v", g.Kind, g.Paths, g.Skipped, tc.kind, tc.paths, tc.skipped)
			}
		})
	}
}

func TestPastedFiles(t *testing.T) {
	for _, tc := range []struct {
		p    Pasted
		want []string
	}{
		{Pasted{Kind: PastedFile, Paths: []string{"a.go"}}, []string{"a.go"}},
		{Pasted{Kind: PastedFile, Paths: []string{"a.go", "b.go"}}, nil},
		{Pasted{Kind: PastedFile, Paths: []string{"a.log"}, Skipped: "x"}, nil},
		{Pasted{Kind: PastedDiff, Body: "diff --git a/x b/y\nrename from x\nrename to y\n--- /dev/null\n+++ b/z\n@@ -0,0 +1 @@\n+z\n"}, []string{"x", "y", "z"}},
		{Pasted{Kind: PastedDiff, Paths: []string{"a.go"}, Body: "@@ -1 +1 @@\n-a\n+b\n"}, []string{"a.go"}},
		{Pasted{Kind: PastedDiff, Body: "@@ -1 +1 @@\n-a\n+b\n"}, nil},
		{Pasted{Kind: PastedDiff, Body: "not a diff"}, nil},
	} {
		if got := tc.p.Files(); strings.Join(got, ",") != strings.Join(tc.want, ",") {
			t.Errorf("%+v: Files() = %q, want %q", tc.p, got, tc.want)
		}
	}
}

// TestProposePasted: in a turn's workspace, a pasted diff is proposed and
// applied; a whole file that configures what runs is refused when nobody
// can be asked, and nothing changes.
func TestProposePasted(t *testing.T) {
	ctx := context.Background()
	ws := &memWorkspace{files: map[string]string{"a.go": "package a\n\nconst A = 1\n"}, nobody: true}
	reply := "**a.go**\n```diff\n@@ -3 +3 @@\n-const A = 1\n+const A = 2\n```\n\n`.vscode/settings.json`\n```json\n{}\n```\n"
	reg := testRegistry()
	p := parse.NewParser(parse.Options{Format: tools.FormatMarkdown, Lookup: reg.Lookup, KeepBlocks: true})
	p.WriteString(reply)
	p.Finish()
	found := FindPasted(reply, p.Blocks(), func(parse.Block) bool { return false })
	if len(found) != 2 {
		t.Fatalf("found %+v", found)
	}
	msg, err := ProposePasted(ctx, ws, found[0])
	if err != nil || !strings.Contains(msg, "M a.go") || ws.files["a.go"] != "package a\n\nconst A = 2\n" {
		t.Fatalf("diff: %q, %v, a.go = %q", msg, err, ws.files["a.go"])
	}
	if _, err := ProposePasted(ctx, ws, found[1]); err == nil || !strings.Contains(err.Error(), ".vscode/settings.json") {
		t.Fatalf("protected file: err = %v", err)
	}
	if _, ok := ws.files[".vscode/settings.json"]; ok || ws.proposed != 1 {
		t.Fatalf("the protected file was written (%d proposals)", ws.proposed)
	}
}
