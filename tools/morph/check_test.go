package morph

import (
	"fmt"
	"strings"
	"testing"
)

const goFile = `package p

import "fmt"

func a() {
	fmt.Println("a")
}

func b() int {
	x := 1
	return x
}

func c() {
	fmt.Println("c")
}
`

// TestCheck: merges the check takes and the hallucinations it refuses,
// each as the apply model would write it.
func TestCheck(t *testing.T) {
	edit := `// ... existing code ...
func b() int {
	x := 1
	y := 2
	return x + y
}
// ... existing code ...`
	good := strings.Replace(goFile, "\tx := 1\n\treturn x\n", "\tx := 1\n\ty := 2\n\treturn x + y\n", 1)
	cases := []struct {
		name, edit, result string
		refusal            string // "" when the merge is taken
	}{
		{name: "correct merge", edit: edit, result: good},
		{name: "correct merge with a blank line added next to the piece", edit: edit, result: strings.Replace(good, "func b() int {", "\nfunc b() int {", 1)},
		{name: "insertion only", edit: "// ... existing code ...\nfunc a() {\n\tfmt.Println(\"a\")\n\tfmt.Println(\"more\")\n}\n// ...",
			result: strings.Replace(goFile, "\"a\")\n", "\"a\")\n\tfmt.Println(\"more\")\n", 1)},
		{name: "a deletion the piece brackets", edit: "// ...\nfunc b() int {\n\treturn 1\n}\n// ...",
			result: strings.Replace(goFile, "\tx := 1\n\treturn x\n", "\treturn 1\n", 1)},
		{name: "a named line re-indented", edit: "// ...\n    x := 1\n    y := 2\n// ...",
			result: strings.Replace(goFile, "\tx := 1\n", "    x := 1\n    y := 2\n", 1)},
		{name: "replaces the last lines, the edit ending without a marker", edit: "// ...\nfunc c() {\n\tfmt.Println(\"C\")\n}",
			result: strings.Replace(goFile, `"c"`, `"C"`, 1)},
		{name: "replaces the first lines, the edit beginning without a marker", edit: "package q\n\nimport \"os\"\n\nfunc a() {\n// ...",
			result: strings.Replace(goFile, "package p\n\nimport \"fmt\"", "package q\n\nimport \"os\"", 1)},
		{name: "a piece in the middle without markers keeps the rest", edit: "\tx := 2",
			result: strings.Replace(goFile, "\tx := 1\n", "\tx := 1\n\tx := 2\n", 1)},
		{name: "new first lines without context after them", edit: "package q\n// ...",
			result: strings.Replace(goFile, "package p", "package q", 1), refusal: "deletes the original's line 1"},
		{name: "a piece in the middle without markers replacing a line", edit: "\tx := 2",
			result: strings.Replace(goFile, "\tx := 1\n", "\tx := 2\n", 1), refusal: "deletes the original's line 10"},
		{name: "drops a function elsewhere", edit: edit, result: strings.Replace(good, "func c() {\n\tfmt.Println(\"c\")\n}\n", "", 1),
			refusal: "does not name"},
		{name: "drops a function before the piece", edit: edit, result: strings.Replace(good, "func a() {\n\tfmt.Println(\"a\")\n}\n", "", 1),
			refusal: "deletes the original's line 5"},
		{name: "rewrites an unrelated line", edit: edit, result: strings.Replace(good, `"c"`, `"C!"`, 1),
			refusal: "changes a line the edit does not name"},
		{name: "rewrites the import", edit: edit, result: strings.Replace(good, `import "fmt"`, `import "os"`, 1),
			refusal: "changes a line the edit does not name"},
		{name: "deletes across a marker", edit: "// ...\nfunc a() {\n// ...\n}\n\nfunc b() int {\n// ...",
			result: strings.Replace(goFile, "\tfmt.Println(\"a\")\n", "", 1), refusal: "deletes the original's line 6"},
		{name: "replaces a line next to an insertion-only piece", edit: "// ...\n\ty := 2\n// ...",
			result: strings.Replace(goFile, "\tx := 1\n", "\ty := 2\n", 1), refusal: "deletes the original's line 10"},
		{name: "copies the marker", edit: edit, result: strings.Replace(good, "func c() {\n\tfmt.Println(\"c\")\n}\n", "// ... existing code ...\n", 1),
			refusal: "is a marker"},
		{name: "leaves out part of the edit", edit: edit, result: strings.Replace(good, "\ty := 2\n", "", 1),
			refusal: "does not hold piece 1"},
		{name: "repeats the file", edit: edit, result: good + good, refusal: "refused"},
		{name: "only markers", edit: "// ...\n# ...", result: goFile, refusal: "only markers"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := Check(goFile, c.edit, c.result)
			switch {
			case c.refusal == "" && err != nil:
				t.Fatalf("refused a faithful merge: %v", err)
			case c.refusal == "":
			case err == nil:
				t.Fatalf("took a merge that should be refused (%s)", c.refusal)
			case c.refusal != "refused" && !strings.Contains(err.Error(), c.refusal):
				t.Fatalf("refusal %q does not say %q", err, c.refusal)
			}
		})
	}
}

func TestIsMarker(t *testing.T) {
	for line, want := range map[string]bool{
		"// ... existing code ...": true, "  # ...": true, "<!-- ... -->": true, "/* ... */": true, "-- ...": true,
		"...": false, "x := 1 // ...": false, "// note": false, "": false,
	} {
		if got := IsMarker(line); got != want {
			t.Errorf("IsMarker(%q) = %v, want %v", line, got, want)
		}
	}
}

// BenchmarkCheck: a one-function edit of files of growing size; the
// check is linear in the file (the region aligned is the function).
func BenchmarkCheck(b *testing.B) {
	for _, n := range []int{100, 1000, 10000, 100000} {
		var orig strings.Builder
		for i := range n {
			fmt.Fprintf(&orig, "func f%d() int {\n\treturn %d\n}\n\n", i, i)
		}
		o := orig.String()
		mid := n / 2
		edit := fmt.Sprintf("// ... existing code ...\nfunc f%d() int {\n\tx := 1\n\treturn x + %d\n}\n// ... existing code ...", mid, mid)
		res := strings.Replace(o, fmt.Sprintf("func f%d() int {\n\treturn %d\n", mid, mid), fmt.Sprintf("func f%d() int {\n\tx := 1\n\treturn x + %d\n", mid, mid), 1)
		if err := Check(o, edit, res); err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("functions=%d/bytes=%d", n, len(o)), func(b *testing.B) {
			b.SetBytes(int64(len(o)))
			for b.Loop() {
				Check(o, edit, res)
			}
		})
	}
}

// FuzzCheck: any original, edit and merged text are checked without a
// panic, and a merge the check takes keeps the original's first and last
// lines unless the edit shows them.
func FuzzCheck(f *testing.F) {
	f.Add(goFile, "// ...\nfunc b() int {\n\tx := 1\n\ty := 2\n\treturn x\n}\n// ...", strings.Replace(goFile, "\tx := 1\n", "\tx := 1\n\ty := 2\n", 1))
	f.Add("a\nb\nc\n", "// ...\nb\nB\n// ...", "a\nb\nB\nc\n")
	f.Add("a\n}\n}\n", "# ...\n}\nx\n}", "a\n}\nx\n}\n")
	f.Add("", "// ...", "")
	f.Fuzz(func(t *testing.T, original, edit, result string) {
		if Check(original, edit, result) != nil {
			return
		}
		o, r := splitLines(original), splitLines(result)
		shown := map[string]bool{}
		for _, l := range splitLines(edit) {
			shown[strings.TrimSpace(l)] = true
		}
		if len(o) > 0 && len(r) > 0 && startsWithMarker(edit) && o[0] != r[0] && !shown[strings.TrimSpace(r[0])] && strings.TrimSpace(r[0]) != "" {
			t.Errorf("took a merge whose first line %q is neither the original's %q nor in the edit", r[0], o[0])
		}
	})
}
