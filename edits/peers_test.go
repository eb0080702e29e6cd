package edits

import (
	"strings"
	"testing"
)

// Edit blocks as models write them for the peers' formats (gptme's patch,
// aider's SEARCH/REPLACE), where agentls used to refuse or change bytes the
// peer keeps: each case is one retry a user no longer pays for, or a
// refusal that now says exactly what to fix. The cases are written from
// reading the peers' test suites and documentation, not copied from them.

// TestPeerPatchTexts parses and applies whole patch texts, as the patch
// tool does.
func TestPeerPatchTexts(t *testing.T) {
	const twoHunks = "<<<<<<< ORIGINAL\na\n=======\nA\n>>>>>>> UPDATED\n"
	for _, tc := range []struct {
		name, file, patch string
		want, err         string
	}{
		// Prose between or after hunks: a model explains its next hunk, or
		// signs off. gptme drops it; it holds no marker-like line, so it
		// cannot be a hunk we would lose.
		{"prose between hunks is ignored", "a\nb\nc\n",
			twoHunks + "Now the second change:\n<<<<<<< ORIGINAL\nc\n=======\nC\n>>>>>>> UPDATED\n", "A\nb\nC\n", ""},
		{"prose after the last hunk is ignored", "a\nb\n", twoHunks + "\nThat renames a to A.\n", "A\nb\n", ""},
		// Stray text that holds a marker-like line is a broken hunk (a
		// misspelled or missing ORIGINAL marker): refusing is the only way
		// not to drop it silently.
		{"a hunk with a misspelled marker between hunks is refused", "a\nb\nc\n",
			twoHunks + "<<<<<<< ORIGNAL\nb\n=======\nB\n>>>>>>> UPDATED\n<<<<<<< ORIGINAL\nc\n=======\nC\n>>>>>>> UPDATED\n", "",
			"line 6: text between hunks 1 and 2 has a marker-like line \"<<<<<<< ORIGNAL\""},
		{"a hunk without its ORIGINAL marker after the last hunk is refused", "a\nb\n",
			twoHunks + "b\n=======\nB\n>>>>>>> UPDATED\n", "", "line 7: text after the last hunk has a marker-like line \"=======\""},
		{"text before the first hunk is still refused", "a\n", "Here is the patch:\n" + twoHunks, "", "line 1: expected \"<<<<<<< ORIGINAL\""},

		// A word after the closing marker on its line.
		{"a word after >>>>>>> UPDATED", "a\nb\n", "<<<<<<< ORIGINAL\na\n=======\nA\n>>>>>>> UPDATED (1 of 1)\n", "A\nb\n", ""},
		{"words after >>>>>>> REPLACE", "a\nb\n", "<<<<<<< SEARCH\nb\n=======\nB\n>>>>>>> REPLACE end of edit\n", "a\nB\n", ""},

		// gptme's reading of a blank line before a marker: ORIGINAL (and
		// UPDATED) end with a newline. It is taken only when the blank line
		// is not in the file and the shorter ORIGINAL matches one place.
		{"blank line before the divider read as a final newline", "a\nb\nc\n",
			"<<<<<<< ORIGINAL\nb\n\n=======\nB\n\n>>>>>>> UPDATED\n", "a\nB\nc\n", ""},
		{"blank line before the divider, none before the end marker", "a\nb\nc\n",
			"<<<<<<< ORIGINAL\nb\n\n=======\nB\n>>>>>>> UPDATED\n", "a\nB\nc\n", ""},
		{"blank line before the divider that is in the file is a line", "a\nb\n\nc\n",
			"<<<<<<< ORIGINAL\nb\n\n=======\nB\n>>>>>>> UPDATED\n", "a\nB\nc\n", ""},
		{"blank line before the divider, shorter ORIGINAL ambiguous", "b\nx\nb\n",
			"<<<<<<< ORIGINAL\nb\n\n=======\nB\n>>>>>>> UPDATED\n", "", "matches 2 places (lines 1, 3"},

		// An empty ORIGINAL on an empty file, also written gptme's way (a
		// blank line, since gptme's divider needs a newline before it).
		// The file becomes exactly UPDATED, as in gptme ("" replaced by
		// "package a"): a final newline only when UPDATED ends with a blank
		// line.
		{"empty ORIGINAL on an empty file", "", "<<<<<<< ORIGINAL\n=======\npackage a\n>>>>>>> UPDATED\n", "package a", ""},
		{"blank ORIGINAL on an empty file", "", "<<<<<<< ORIGINAL\n\n=======\npackage a\n>>>>>>> UPDATED\n", "package a", ""},
		{"blank ORIGINAL on an empty file with a BOM", bom, "<<<<<<< ORIGINAL\n\n=======\npackage a\n>>>>>>> UPDATED\n", bom + "package a", ""},
		{"empty ORIGINAL on an empty file, UPDATED with its final newline", "", "<<<<<<< ORIGINAL\n=======\npackage a\n\nfunc F() {}\n\n>>>>>>> UPDATED\n", "package a\n\nfunc F() {}\n", ""},
		// A closing marker with text glued to it: gptme splits at
		// "\n>>>>>>> UPDATED" and drops the rest of the line.
		{"closing marker with text glued on", "a\n", "<<<<<<< ORIGINAL\na\n=======\nb\n>>>>>>> UPDATEDXYZ\n", "b\n", ""},
		{"closing marker with the closing fence glued on", "a\n", "<<<<<<< ORIGINAL\na\n=======\nb\n>>>>>>> UPDATED```\n", "b\n", ""},
		{"REPLACE marker with text glued on", "a\n", "<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACEhunk\n", "b\n", ""},
		{"blank ORIGINAL on a file is still refused", "x\n", "<<<<<<< ORIGINAL\n\n=======\npackage a\n>>>>>>> UPDATED\n", "", "only blank lines"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseAndApply(tc.file, tc.patch)
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

func parseAndApply(file, patch string) (string, error) {
	hunks, err := ParseConflict(patch)
	if err != nil {
		return "", err
	}
	return ApplyHunks(file, hunks)
}

// TestContextKeepsItsBytes checks that a line the edit does not touch is
// copied from the file, also when the model wrote it differently in
// ORIGINAL and UPDATED (a whitespace-only line emptied in UPDATED only).
func TestContextKeepsItsBytes(t *testing.T) {
	for _, tc := range []struct {
		name, file string
		h          Hunk
		want       string
	}{
		{"whitespace-only line emptied in UPDATED only", "a\n    \nb\n", hunk("a\n    \nb", "a\n\nB"), "a\n    \nB\n"},
		{"whitespace-only line written empty in both", "a\n\t\nb\n", hunk("a\n\nb", "a\n\nB"), "a\n\t\nB\n"},
		{"whitespace-only line re-indented in UPDATED only", "def f():\n    x = 1\n    \n    return x\n", hunk("def f():\n    x = 1\n    \n    return x", "def f():\n    x = 2\n        \n    return x"),
			"def f():\n    x = 2\n    \n    return x\n"},
		{"file and UPDATED indent a blank line ORIGINAL left empty", "def f():\n    a()\n    \n    b()\n", hunk("def f():\n    a()\n\n    b()", "def f():\n    a()\n    \n    c()"),
			"def f():\n    a()\n    \n    c()\n"},
		{"ORIGINAL indents a blank line file and UPDATED leave empty", "def f():\n    a()\n\n    b()\n", hunk("def f():\n    a()\n    \n    b()", "def f():\n    a()\n\n    c()"),
			"def f():\n    a()\n\n    c()\n"},
		{"an added blank line is still added", "a\n  \nb\n", hunk("a\n  \nb", "a\n  \n\nb"), "a\n  \n\nb\n"},
		{"a removed blank line is still removed", "a\n  \n\nb\n", hunk("a\n  \n\nb", "a\n\nb"), "a\n  \nb\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ApplyHunks(tc.file, []Hunk{tc.h})
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
		})
	}
}

// TestMinimalEditsSeeWhitespaceOnlyLines is the other side of
// TestContextKeepsItsBytes: a diff of two texts (the editor's edits, undo)
// must see a whitespace-only line change, which a hunk's context ignores.
func TestMinimalEditsSeeWhitespaceOnlyLines(t *testing.T) {
	for _, tc := range []struct{ from, to string }{
		{"a\n    \nb\n", "a\n\nb\n"},
		{"a\n\nb\n", "a\n\t\nb\n"},
		{"x\n\n## Agent\n", "x\n  \n\n## Agent\n"},
	} {
		if got := ApplyEdits(tc.from, MinimalEdits(tc.from, tc.to)); got != tc.to {
			t.Errorf("MinimalEdits(%q, %q) applied gives %q", tc.from, tc.to, got)
		}
	}
}
