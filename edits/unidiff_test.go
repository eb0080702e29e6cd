package edits

import (
	"reflect"
	"strings"
	"testing"
	"unicode"

	"github.com/aymanbagabas/go-udiff"
)

func TestParseUnifiedDiff(t *testing.T) {
	for _, tc := range []struct {
		name, diff string
		want       []V4AFile
		err        string
	}{
		{
			name: "git with extended headers, two hunks, wrong numbers",
			diff: "diff --git a/a.go b/a.go\nindex 83db48f..bf269f4 100644\n--- a/a.go\n+++ b/a.go\n" +
				"@@ -90,3 +90,3 @@ func F() {\n x\n-y\n+Y\n@@ -1 +1 @@\n-p\n+P\n",
			want: []V4AFile{{Op: V4AUpdate, Path: "a.go", Hunks: []Hunk{
				{Original: []string{"x", "y"}, Updated: []string{"x", "Y"}, Line: 5},
				{Original: []string{"p"}, Updated: []string{"P"}, Line: 9},
			}}},
		},
		{
			name: "plain with timestamps, tab and spaces",
			diff: "--- a.go\t2024-01-01 10:00:00.000000000 +0000\n+++ a.go  2024-01-02 11:00:00 +0000\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n",
			want: []V4AFile{{Op: V4AUpdate, Path: "a.go", Hunks: []Hunk{{Original: []string{"a", "b"}, Updated: []string{"a", "c"}, Line: 3}}}},
		},
		{
			name: "a/ b/ stripped without the diff --git line",
			diff: "--- a/x/y.go\n+++ b/x/y.go\n@@ -1 +1 @@\n-1\n+2\n",
			want: []V4AFile{{Op: V4AUpdate, Path: "x/y.go", Hunks: []Hunk{{Original: []string{"1"}, Updated: []string{"2"}, Line: 3}}}},
		},
		{
			name: "a plain diff of a folder named a is kept",
			diff: "--- a/x.go\n+++ a/x.go\n@@ -1 +1 @@\n-1\n+2\n",
			want: []V4AFile{{Op: V4AUpdate, Path: "a/x.go", Hunks: []Hunk{{Original: []string{"1"}, Updated: []string{"2"}, Line: 3}}}},
		},
		{
			name: "blank context without its space, CRLF, trailing blanks dropped",
			diff: "--- a.go\r\n+++ a.go\r\n@@ -1,4 +1,4 @@\r\n a\r\n\r\n-b\r\n+c\r\n\r\n\r\n",
			want: []V4AFile{{Op: V4AUpdate, Path: "a.go", Hunks: []Hunk{{Original: []string{"a", "", "b"}, Updated: []string{"a", "", "c"}, Line: 3}}}},
		},
		{
			name: "new file from /dev/null, no newline at end",
			diff: "--- /dev/null\n+++ b/n.txt\n@@ -0,0 +1,2 @@\n+one\n+two\n\\ No newline at end of file\n",
			want: []V4AFile{{Op: V4AAdd, Path: "n.txt", Content: "one\ntwo"}},
		},
		{
			name: "git new empty file and deletion",
			diff: "diff --git a/e.txt b/e.txt\nnew file mode 100644\nindex 0000000..e69de29\n" +
				"diff --git a/d.txt b/d.txt\ndeleted file mode 100644\n--- a/d.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-gone\n",
			want: []V4AFile{
				{Op: V4AAdd, Path: "e.txt"},
				{Op: V4ADelete, Path: "d.txt", Hunks: []Hunk{{Original: []string{"gone"}, Line: 8}}},
			},
		},
		{
			name: "rename with and without changes",
			diff: "diff --git a/old.go b/new.go\nsimilarity index 100%\nrename from old.go\nrename to new.go\n" +
				"diff --git a/p.go b/q.go\nsimilarity index 90%\nrename from p.go\nrename to q.go\n--- a/p.go\n+++ b/q.go\n@@ -1 +1 @@\n-a\n+b\n",
			want: []V4AFile{
				{Op: V4AUpdate, Path: "old.go", MoveTo: "new.go"},
				{Op: V4AUpdate, Path: "p.go", MoveTo: "q.go", Hunks: []Hunk{{Original: []string{"a"}, Updated: []string{"b"}, Line: 11}}},
			},
		},
		{
			name: "---/+++ lines of another file after a pure rename start that file",
			diff: "diff --git a/x b/y\nrename from x\nrename to y\n--- /dev/null\n+++ b/z\n@@ -0,0 +1 @@\n+z\n",
			want: []V4AFile{{Op: V4AUpdate, Path: "x", MoveTo: "y"}, {Op: V4AAdd, Path: "z", Content: "z\n"}},
		},
		{
			name: "svn Index: header",
			diff: "Index: a.c\n===================================================================\n--- a.c\t(revision 1)\n+++ a.c\t(working copy)\n@@ -1 +1 @@\n-a\n+b\n",
			want: []V4AFile{{Op: V4AUpdate, Path: "a.c", Hunks: []Hunk{{Original: []string{"a"}, Updated: []string{"b"}, Line: 5}}}},
		},
		{
			name: "bare hunks name no file",
			diff: "@@ -3,2 +3,3 @@\n a\n+b\n@@\n-c\n+d\n",
			want: []V4AFile{{Op: V4AUpdate, Hunks: []Hunk{
				{Original: []string{"a"}, Updated: []string{"a", "b"}, Line: 1},
				{Original: []string{"c"}, Updated: []string{"d"}, Line: 4},
			}}},
		},
		{
			name: "a removed -- line and an added ++ line inside a hunk are not a header",
			diff: "--- a.sql\n+++ a.sql\n@@ -1,2 +1,2 @@\n select 1;\n--- old\n+++ new\n",
			want: []V4AFile{{Op: V4AUpdate, Path: "a.sql", Hunks: []Hunk{{Original: []string{"select 1;", "-- old"}, Updated: []string{"select 1;", "++ new"}, Line: 3}}}},
		},
		{
			name: "quoted git names",
			diff: "diff --git \"a/sp ace.go\" \"b/sp ace.go\"\n--- \"a/sp ace.go\"\n+++ \"b/sp ace.go\"\n@@ -1 +1 @@\n-a\n+b\n",
			want: []V4AFile{{Op: V4AUpdate, Path: "sp ace.go", Hunks: []Hunk{{Original: []string{"a"}, Updated: []string{"b"}, Line: 4}}}},
		},
		{name: "prose is not a diff", diff: "Here is the diff:\n@@ -1 +1 @@\n-a\n+b\n", err: "line 1: expected a diff header"},
		{name: "a hunk line without a prefix", diff: "--- a.go\n+++ a.go\n@@ -1 +1 @@\n-a\nb\n", err: "line 5: a hunk line starts with"},
		{name: "context in a new file", diff: "--- /dev/null\n+++ b/n.txt\n@@ -0,0 +1,2 @@\n one\n+two\n", err: "creates the file"},
		{name: "an added line in a deletion", diff: "--- a/n.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-one\n+two\n", err: "deletes the file"},
		{name: "mode change only", diff: "diff --git a/x.sh b/x.sh\nold mode 100644\nnew mode 100755\n", err: "only changes the file's mode"},
		{name: "binary", diff: "diff --git a/x.png b/x.png\nBinary files a/x.png and b/x.png differ\n", err: "binary"},
		{name: "nothing", diff: "\n\n", err: "holds no hunk"},
		{name: "context only", diff: "--- a.go\n+++ a.go\n@@ -1 +1 @@\n a\n", err: "no hunk that changes a line"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseUnifiedDiff(tc.diff)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got  %#v\nwant %#v", got, tc.want)
			}
		})
	}
}

// TestUnifiedDiffRoundTrip applies diffs that udiff makes, with their line
// numbers made wrong, by content: the result is the new text.
func TestUnifiedDiffRoundTrip(t *testing.T) {
	old := "package p\n\nimport \"fmt\"\n\nfunc A() {\n\tfmt.Println(1)\n}\n\nfunc B() {\n\tfmt.Println(2)\n}\n\nfunc C() {}\n"
	new := strings.Replace(strings.Replace(old, "Println(1)", "Println(10)", 1), "func C() {}", "func C() { A() }", 1)
	diff := udiff.Unified("a/p.go", "b/p.go", old, new)
	diff = strings.ReplaceAll(diff, "@@ -", "@@ -7") // wrong numbers
	files, err := ParseUnifiedDiff(diff)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 1 || files[0].Path != "p.go" {
		t.Fatalf("files = %+v", files)
	}
	got, err := ApplyHunks(old, files[0].Hunks)
	if err != nil {
		t.Fatal(err)
	}
	if got != new {
		t.Errorf("got %q\nwant %q", got, new)
	}
}

// FuzzParseUnifiedDiff reads any text as a diff without panicking, and
// what it returns keeps its contract; and a diff made of two texts, read
// back and applied to the first, gives the second or is refused — never
// another text.
func FuzzParseUnifiedDiff(f *testing.F) {
	f.Add("diff --git a/a.go b/a.go\n--- a/a.go\n+++ b/a.go\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n", "a\nb\nc\n")
	f.Add("--- /dev/null\n+++ b/n\n@@ -0,0 +1 @@\n+x\n\\ No newline at end of file\n", "x\n-- y\nz\n")
	f.Add("@@ -1 +1 @@\n-a\n+b\n\ndiff --git a/x b/y\nrename from x\nrename to y\n", "\n\n\n")
	f.Add("--- a\n+++ b\n@@ -1,3 +1,3 @@\n--- c\n+++ d\n@@ x\n", "one\ntwo\nthree\nfour\nfive\nsix\nseven\n")
	f.Fuzz(func(t *testing.T, diff, text string) {
		files, err := ParseUnifiedDiff(diff)
		if err == nil {
			if len(files) == 0 {
				t.Fatal("no error and no file")
			}
			for _, v := range files {
				switch v.Op {
				case V4AAdd:
					if len(v.Hunks) > 0 || v.MoveTo != "" {
						t.Fatalf("an add with hunks or a move: %+v", v)
					}
				case V4ADelete:
					for _, h := range v.Hunks {
						if len(h.Updated) > 0 {
							t.Fatalf("a delete with UPDATED lines: %+v", v)
						}
					}
				case V4AUpdate:
					if len(v.Hunks) == 0 && v.MoveTo == "" {
						t.Fatalf("an update that changes nothing: %+v", v)
					}
				}
			}
		}
		// Round trip: text, and text with its lines shuffled, as old and new.
		if strings.Contains(text, "\r") || text == "" {
			return
		}
		lines := strings.SplitAfter(text, "\n")
		for i := 0; i+1 < len(lines); i += 2 {
			lines[i], lines[i+1] = lines[i+1], lines[i]
		}
		newText := strings.Join(lines, "")
		if !strings.HasSuffix(newText, "\n") || !strings.HasSuffix(text, "\n") || newText == text {
			return // final-newline changes are kept as the file has them
		}
		d := udiff.Unified("a/f", "b/f", text, newText)
		files, err = ParseUnifiedDiff(d)
		if err != nil {
			t.Fatalf("a diff udiff made is not read: %v\n%s", err, d)
		}
		if len(files) != 1 || files[0].Path != "f" || files[0].Op != V4AUpdate {
			t.Fatalf("files = %+v\n%s", files, d)
		}
		// The engine writes a whitespace-only line of UPDATED that is not
		// paired with one of the file as blank: compared without trailing
		// whitespace.
		if got, err := ApplyHunks(text, files[0].Hunks); err == nil && trimLineEnds(got) != trimLineEnds(newText) {
			t.Fatalf("applied wrong:\n got %q\nwant %q\ndiff:\n%s", got, newText, d)
		}
	})
}

func trimLineEnds(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRightFunc(l, unicode.IsSpace)
	}
	return strings.Join(lines, "\n")
}
