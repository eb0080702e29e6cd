package edits

import (
	"errors"
	"strings"
	"testing"
)

// hunk builds a one-hunk patch from ORIGINAL and UPDATED texts.
func hunk(orig, upd string) Hunk {
	return Hunk{Original: splitContent(orig), Updated: splitContent(upd)}
}

func TestApplyHunks(t *testing.T) {
	for _, tc := range []struct {
		name  string
		file  string
		hunks []Hunk
		want  string
		err   string
	}{
		{"exact", "a\nb\nc\n", []Hunk{hunk("b", "B")}, "a\nB\nc\n", ""},
		{"several lines", "a\nb\nc\nd\n", []Hunk{hunk("b\nc", "x\ny\nz")}, "a\nx\ny\nz\nd\n", ""},
		{"whole lines only", "\tx := 10\n", []Hunk{hunk("\tx := 1", "\tx := 2")}, "", "not found"},
		{"ambiguous", "}\nx\n}\n", []Hunk{hunk("}", "};")}, "", "matches 2 places (lines 1, 3, compared exactly)"},
		{"crlf file, lf patch", "a\r\nb\r\nc\r\n", []Hunk{hunk("b", "B1\nB2")}, "a\r\nB1\r\nB2\r\nc\r\n", ""},
		{"crlf patch, lf file", "a\nb\nc\n", []Hunk{hunk("b\r\n", "B\r\n")}, "a\nB\nc\n", ""},
		{"mixed eol kept", "a\r\nb\nc\r\n", []Hunk{hunk("c", "C")}, "a\r\nb\nC\r\n", ""},
		{"no final newline kept", "a\nb", []Hunk{hunk("b", "B\nC")}, "a\nB\nC", ""},
		{"delete lines", "a\nb\nc\n", []Hunk{hunk("b", "")}, "a\nc\n", ""},
		{"delete last line without newline", "a\nb", []Hunk{hunk("b", "")}, "a", ""},
		{"delete only line", "a\n", []Hunk{hunk("a", "")}, "", ""},
		{"bom kept", "\ufeffpackage a\n\nvar x = 1\n", []Hunk{hunk("package a", "package b")}, "\ufeffpackage b\n\nvar x = 1\n", ""},
		{"trailing whitespace tier keeps context bytes", "a  \nb\n", []Hunk{hunk("a\nb", "a\nB")}, "a  \nB\n", ""},
		{"whitespace-only lines", "a\n   \nb\n", []Hunk{hunk("a\n\nb", "a\n\nB")}, "a\n   \nB\n", ""},
		{"indent shift re-based", "def f():\n    if x:\n        return 1\n", []Hunk{hunk("if x:\n    return 1", "if x:\n    return 2\nreturn 3")},
			"def f():\n    if x:\n        return 2\n    return 3\n", ""},
		{"spaces for tabs re-based onto tabs", "func f() {\n\tif x {\n\t\treturn\n\t}\n}\n", []Hunk{hunk("    if x {\n        return\n    }", "    if x {\n        log()\n        return\n    }")},
			"func f() {\n\tif x {\n\t\tlog()\n\t\treturn\n\t}\n}\n", ""},
		{"unicode punctuation, file typography kept", "s := \u201chi\u201d // a \u2014 b\nx := 1\n", []Hunk{hunk("s := \"hi\" // a - b\nx := 1", "s := \"hi\" // a - b\nx := 2")},
			"s := \u201chi\u201d // a \u2014 b\nx := 2\n", ""},
		{"placeholders piecewise", "def f():\n    a = 1\n    b = 2\n    return a\n", []Hunk{hunk("def f():\n    # ...\n    return a", "def g():\n    # ...\n    return b")},
			"def g():\n    a = 1\n    b = 2\n    return b\n", ""},
		{"different placeholders refused", "a\n    ...\nb\nc\n", []Hunk{hunk("a\n// ...\nb\nc", "a\nx\n// ... existing code ...")}, "", "placeholder 1 is \"// ...\" in ORIGINAL but \"// ... existing code ...\""},
		{"placeholder only in UPDATED refused", "a\nb\nc\n", []Hunk{hunk("a\nb\nc", "a\n// ...\nc")}, "", "placeholder is never written"},
		{"real placeholder-like line", "x = 1\n# ...\ny = 2\n", []Hunk{hunk("x = 1\n# ...", "x = 3\n# ...")}, "x = 3\n# ...\ny = 2\n", ""},
		{"already applied", "a\nB\nc\n", []Hunk{hunk("b", "B")}, "", "already applied"},
		{"already applied beats a loose look-alike", "if x {\n\tf()\n\tg()\n}\n\tif x {\n\t\tf()\n\t}\n", []Hunk{hunk("if x {\n\tf()\n}", "if x {\n\tf()\n\tg()\n}")}, "", "already applied"},
		{"nearest lines shown", "func a() {\n\treturn 1\n}\n", []Hunk{hunk("func a() {\n\treturn 2\n}", "func a() {\n\treturn 3\n}")}, "", "2 of the 3 lines of ORIGINAL are in the file as they are. The nearest lines are 1-3:\n1\tfunc a() {\n2\t\treturn 1\n3\t}"},
		{"nothing like it", "a\n", []Hunk{hunk("zzz", "y")}, "", "No line of ORIGINAL is in the file"},
		{"hunks out of order", "a\nb\nc\n", []Hunk{hunk("c", "C"), hunk("a", "A")}, "A\nb\nC\n", ""},
		{"overlapping hunks", "a\nb\nc\n", []Hunk{hunk("a\nb", "x"), hunk("b\nc", "y")}, "", "overlaps the lines of hunk 1"},
		{"hunks sharing a blank line overlap", "a\n\nb\n", []Hunk{hunk("a\n\n", "A\n\n"), hunk("\nb", "\nB")}, "", "overlaps the lines of hunk 1"},
		{"second hunk builds on the first", "a\nb\n", []Hunk{hunk("a", "x"), hunk("x\nb", "x\ny")}, "x\ny\n", ""},
		{"no change", "a\n", []Hunk{hunk("a", "a")}, "", "does not change"},
		// Exactly UPDATED, as gptme writes it: no final newline UPDATED did
		// not hold.
		{"empty ORIGINAL on an empty file", "", []Hunk{hunk("", "package a")}, "package a", ""},
		{"empty ORIGINAL on an empty file, UPDATED ends with a blank line", "", []Hunk{{Updated: []string{"package a", ""}}}, "package a\n", ""},
		{"empty ORIGINAL on a file", "x\n", []Hunk{hunk("", "package a")}, "", "ORIGINAL is empty"},
		{"blank ORIGINAL", "a\n\nb\n", []Hunk{hunk("\n", "c")}, "", "only blank lines"},
		{"hunk number in multi-hunk errors", "a\nb\n", []Hunk{hunk("a", "A"), hunk("zz", "y")}, "", "hunk 2/2: ORIGINAL was not found"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ApplyHunks(tc.file, tc.hunks)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v\nwant one containing %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
		})
	}
}

func TestNoChangeIsErrNoChange(t *testing.T) {
	if _, err := ApplyHunks("a\n", []Hunk{hunk("a", "a")}); !errors.Is(err, ErrNoChange) {
		t.Errorf("err = %v", err)
	}
}

func TestParseConflict(t *testing.T) {
	for _, tc := range []struct {
		name, patch string
		want        []Hunk
		err         string
	}{
		{"one hunk", "<<<<<<< ORIGINAL\na\n=======\nb\n>>>>>>> UPDATED", []Hunk{{Original: []string{"a"}, Updated: []string{"b"}, Line: 1}}, ""},
		{"two hunks and blank lines", "<<<<<<< ORIGINAL\na\n=======\nb\n>>>>>>> UPDATED\n\n<<<<<<< ORIGINAL\nc\n=======\n>>>>>>> UPDATED\n",
			[]Hunk{{Original: []string{"a"}, Updated: []string{"b"}, Line: 1}, {Original: []string{"c"}, Updated: []string{}, Line: 7}}, ""},
		{"empty original", "<<<<<<< ORIGINAL\n=======\nx\n>>>>>>> UPDATED", []Hunk{{Original: []string{}, Updated: []string{"x"}, Line: 1}}, ""},
		{"marker noise", "<<<<<<<< SEARCH>\na\n=======  \nb\n>>>>>>> REPLACE  \r\n", []Hunk{{Original: []string{"a"}, Updated: []string{"b"}, Line: 1}}, ""},
		{"crlf", "<<<<<<< ORIGINAL\r\na\r\n=======\r\nb\r\n>>>>>>> UPDATED\r\n", []Hunk{{Original: []string{"a"}, Updated: []string{"b"}, Line: 1}}, ""},
		{"fences around hunks ignored", "```\n<<<<<<< ORIGINAL\na\n=======\nb\n>>>>>>> UPDATED\n```", []Hunk{{Original: []string{"a"}, Updated: []string{"b"}, Line: 2}}, ""},
		{"git conflict markers are content", "<<<<<<< ORIGINAL\n<<<<<<< HEAD\nx\n>>>>>>> main\n=======\ny\n>>>>>>> UPDATED",
			[]Hunk{{Original: []string{"<<<<<<< HEAD", "x", ">>>>>>> main"}, Updated: []string{"y"}, Line: 1}}, ""},
		{"rst underline of another length is content", "<<<<<<< ORIGINAL\nTitle\n=====\n=======\nHeading\n=====\n>>>>>>> UPDATED",
			[]Hunk{{Original: []string{"Title", "====="}, Updated: []string{"Heading", "====="}, Line: 1}}, ""},
		{"seven-equals rule", "<<<<<<< ORIGINAL\na\n=======\nb\n=======\nc\n>>>>>>> UPDATED", nil, "2 \"=======\" lines (lines 3, 5)"},
		{"missing divider", "<<<<<<< ORIGINAL\na\n>>>>>>> UPDATED", nil, "missing the \"=======\""},
		{"missing updated marker", "<<<<<<< ORIGINAL\na\n=======\nb", nil, "missing \">>>>>>> UPDATED\""},
		{"text before", "here:\n<<<<<<< ORIGINAL\na\n=======\nb\n>>>>>>> UPDATED", nil, "line 1: expected \"<<<<<<< ORIGINAL\""},
		{"prose after the hunks is ignored", "<<<<<<< ORIGINAL\na\n=======\nb\n>>>>>>> UPDATED\nnow:\n", []Hunk{{Original: []string{"a"}, Updated: []string{"b"}, Line: 1}}, ""},
		{"a stray divider after the hunks", "<<<<<<< ORIGINAL\na\n=======\nb\n>>>>>>> UPDATED\n=======\n", nil, "line 6: text after the last hunk has a marker-like line"},
		{"words after the closing marker", "<<<<<<< ORIGINAL\na\n=======\nb\n>>>>>>> UPDATED hunk 1\n", []Hunk{{Original: []string{"a"}, Updated: []string{"b"}, Line: 1}}, ""},
		{"text glued to the closing marker", "<<<<<<< ORIGINAL\na\n=======\nb\n>>>>>>> UPDATEDXYZ\n", []Hunk{{Original: []string{"a"}, Updated: []string{"b"}, Line: 1}}, ""},
		{"the closing fence glued to the marker", "<<<<<<< ORIGINAL\na\n=======\nb\n>>>>>>> UPDATED```", []Hunk{{Original: []string{"a"}, Updated: []string{"b"}, Line: 1}}, ""},
		{"a lower-case word glued on is content", "<<<<<<< ORIGINAL\na\n=======\n>>>>>>> updatedxyz\n>>>>>>> UPDATED\n", []Hunk{{Original: []string{"a"}, Updated: []string{">>>>>>> updatedxyz"}, Line: 1}}, ""},
		{"a quoted line is content", "<<<<<<< ORIGINAL\na\n=======\n>>>>>>> updated the docs\n>>>>>>> UPDATED\n", []Hunk{{Original: []string{"a"}, Updated: []string{">>>>>>> updated the docs"}, Line: 1}}, ""},
		{"empty", "", nil, "no hunks"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseConflict(tc.patch)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want one containing %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("got %d hunks %+v, want %d", len(got), got, len(tc.want))
			}
			for i := range got {
				if strings.Join(got[i].Original, "|") != strings.Join(tc.want[i].Original, "|") || strings.Join(got[i].Updated, "|") != strings.Join(tc.want[i].Updated, "|") || got[i].Line != tc.want[i].Line {
					t.Errorf("hunk %d = %+v, want %+v", i, got[i], tc.want[i])
				}
			}
		})
	}
}

func TestExactPathInMixedEOL(t *testing.T) {
	// A CRLF line before the match, deleted at the end of the file.
	got, err := ApplyHunks("a\r\nb\nc", []Hunk{hunk("b\nc", "")})
	if err != nil || got != "a" {
		t.Errorf("got %q, %v", got, err)
	}
	got, err = ApplyHunks("x\r\ny\nz\n", []Hunk{hunk("y", "Y")})
	if err != nil || got != "x\r\nY\nz\n" {
		t.Errorf("got %q, %v", got, err)
	}
}
