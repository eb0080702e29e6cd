package edits

import (
	"fmt"
	"strings"
	"testing"
)

// naiveExactStart is the exact fast path's contract, the slow way: the
// one place needle stands as whole lines, or -1.
func naiveExactStart(text, needle string) int {
	found := -1
	for from := 0; ; {
		k := strings.Index(text[from:], needle)
		if k < 0 {
			return found
		}
		s := from + k
		from = s + 1
		e := s + len(needle)
		if (s == 0 || text[s-1] == '\n') && (e == len(text) || text[e] == '\n') {
			if found >= 0 {
				return -1
			}
			found = s
		}
	}
}

// TestExactStartsRareBytes checks the exact fast path's search by rare
// bytes against the naive search, on texts made to trip it: the rare byte
// on a line other than the longest, needles sharing their rare byte, a
// needle twice (not unique), a needle standing across a scan block's end,
// a needle that is only part of a line, and texts large enough that byte
// frequencies are sampled, where the sample misses the one place the rare
// byte is common.
func TestExactStartsRareBytes(t *testing.T) {
	var big strings.Builder
	for i := 0; big.Len() < 600<<10; i++ {
		fmt.Fprintf(&big, "func f%d(ctx context.Context) error {\n\tif err := step(ctx, %d); err != nil {\n\t\treturn err\n\t}\n\treturn nil\n}\n\n", i, i)
	}
	bigText := big.String()
	// Around the second sample's gap, many lines with the rare '#'.
	mid := len(bigText) / 2
	mid += strings.IndexByte(bigText[mid:], '\n') + 1
	hashes := strings.Repeat("\t// ## ## ## ##\n", 2000)
	sampledMiss := bigText[:mid] + hashes + "\t// #only\n" + bigText[mid:]
	crossing := strings.Repeat("x\n", scanBlock/2-3) + "func across() {\n\treturn Q\n}\n" + strings.Repeat("y\n", 100)
	for _, tc := range []struct {
		name  string
		text  string
		hunks [][]string
	}{
		{"rare byte on a short line", "a := alpha\nb := beta\nQ\nc := gamma\n", [][]string{{"b := beta", "Q", "c := gamma"}}},
		{"needles sharing their rare byte", "Z1 one\nZ2 two\nZ3 three\n", [][]string{{"Z1 one"}, {"Z3 three"}}},
		{"a needle twice", "K\nk\nK\n", [][]string{{"K"}}},
		{"part of a line only", "xK y\n", [][]string{{"K y"}}},
		{"across a scan block", crossing, [][]string{{"func across() {", "\treturn Q", "}"}}},
		{"sampled frequencies", bigText, [][]string{{"func f100(ctx context.Context) error {", "\tif err := step(ctx, 100); err != nil {"}, {"func f9000(ctx context.Context) error {"}}},
		{"sampled frequencies miss a dense region", sampledMiss, [][]string{{"\t// #only"}, {"\t// ## ## ## ##"}}},
		{"many hunks", bigText, func() [][]string {
			var hs [][]string
			for i := range byteScanHunks {
				hs = append(hs, []string{fmt.Sprintf("\tif err := step(ctx, %d); err != nil {", i*300+7)})
			}
			return hs
		}()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var hunks []Hunk
			for _, o := range tc.hunks {
				hunks = append(hunks, Hunk{Original: o, Updated: []string{"changed"}})
			}
			got := newDoc(tc.text).exactStarts(hunks)
			for i, o := range tc.hunks {
				if want := naiveExactStart(tc.text, strings.Join(o, "\n")); got[i] != want {
					t.Errorf("hunk %d (%q): start %d, want %d", i+1, o[0], got[i], want)
				}
			}
		})
	}
}

// TestCandidatesByRun checks that searching the text for a literal stretch
// of the pivot's key finds the same lines as comparing every line's key:
// lines whose key matches only once Unicode punctuation and spaces are
// folded, CRLF lines, several hits on one line, hits on lines that are
// longer or out of range.
func TestCandidatesByRun(t *testing.T) {
	text := "\tmsg := \u201chello\u201d\r\n" + // typographic quotes, CRLF
		"\tmsg := \"hello\"\n" +
		"msg := \"hello\" // msg := \"hello\"\n" + // the run twice, a longer line
		"\u00a0msg\u00a0:= \"hello\"\n" + // no-break spaces
		"x\n" +
		"\t\tmsg := \"hello\"   \n"
	d := newDoc(text)
	d.all()
	want := tierPunctuation.key("msg := \"hello\"")
	run := literalRun(want)
	for _, r := range []struct{ lo, hi int }{{0, 5}, {1, 4}, {3, 3}} {
		var scan []int
		for i := r.lo; i <= r.hi; i++ {
			if tierPunctuation.key(d.content(i)) == want {
				scan = append(scan, i)
			}
		}
		got := d.candidatesByRun(want, run, r.lo, r.hi)
		if fmt.Sprint(got) != fmt.Sprint(scan) {
			t.Errorf("lines %d-%d: by run %q %v, by every line %v", r.lo, r.hi, run, got, scan)
		}
	}
	for _, tc := range []struct{ key, run string }{
		{"if err != nil {", "err"},
		{"x := a.b.c", ":="},
		{"return fmt.Errorf(\"handle: %w\", err)", "Errorf("},
		{"...", ""},
	} {
		if got := literalRun(tc.key); got != tc.run {
			t.Errorf("literalRun(%q) = %q, want %q", tc.key, got, tc.run)
		}
	}
}

// TestFinalNewlineReadingAlreadyApplied: a hunk that adds a line after
// ORIGINAL, ORIGINAL ending with a blank line (gptme's final newline),
// sent again after it was applied, must not add the line a second time:
// without the blank line ORIGINAL is still in the file, but so is UPDATED
// around it (editbench's S4 found flag/example_test.go edited twice).
func TestFinalNewlineReadingAlreadyApplied(t *testing.T) {
	applied := "// Copyright\n// header\n\npackage flag_test\nadded()\n\nimport (\n\t\"fmt\"\n)\n"
	h := Hunk{
		Original: []string{"// header", "", "package flag_test", ""},
		Updated:  []string{"// header", "", "package flag_test", "added()", ""},
	}
	out, err := ApplyHunks(applied, []Hunk{h})
	if err == nil {
		t.Fatalf("applied again:\n%s", out)
	}
	if !strings.Contains(err.Error(), "already applied") {
		t.Errorf("err = %v, want an already-applied refusal", err)
	}
	// Before the edit, the same hunk applies (the final-newline reading).
	before := strings.Replace(applied, "added()\n", "", 1)
	if got, err := ApplyHunks(before, []Hunk{h}); err != nil || got != applied {
		t.Errorf("on the file before the edit: %q, %v", got, err)
	}
}
