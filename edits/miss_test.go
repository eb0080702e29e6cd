package edits

import (
	"fmt"
	"strings"
	"testing"
)

// maxErrorBytes bounds every not-found error below: the region shown is
// at most maxShownLines lines of at most maxShownLineBytes, plus words.
const maxErrorBytes = 12 << 10

// TestMissOnHugeFile sends the hunks that made the miss path quadratic
// (a near-miss of 200,000 lines took 110 s and answered with all of them)
// against files of 100,000 lines: each is refused with a bounded message
// that still shows the nearest lines with their numbers and says what to
// do. The benchmarks (BenchmarkMiss) show the time is linear; here go
// test's timeout is the only clock.
func TestMissOnHugeFile(t *testing.T) {
	const n = 100_000
	text, lines := benchLines(n)
	near := append([]string{}, lines...)
	near[n/2+1] += " // changed"
	every := make([]string, n)
	for i, l := range lines {
		every[i] = l + "X"
	}
	long := strings.Repeat("z", 1<<20)
	withLong := strings.Join(lines[:10], "\n") + "\n" + long + "\n" + strings.Join(lines[10:], "\n") + "\n"
	same := strings.Repeat("\treturn nil\n", n)
	half := strings.Split(strings.Repeat("\treturn nil\n", n/2), "\n")[:n/2]
	for _, tc := range []struct {
		name, text string
		h          Hunk
		want       []string
	}{
		{"near-miss of the whole file", text, Hunk{Original: near, Updated: []string{"x"}},
			[]string{"99999 of the 100000 lines of ORIGINAL are in the file as they are", "ORIGINAL's line 50002, the first that is not file line 50002 as it is", "50002\tfunc handle6250(", "Patch only the lines that change"}},
		{"no line as it is", text, Hunk{Original: every, Updated: []string{"x"}},
			[]string{"No line of ORIGINAL is in the file as it is; the most similar is line", "around the most similar line", "Patch only the lines that change"}},
		{"a few lines not there", text, Hunk{Original: []string{"func nowhere() {", "\treturn nil", "}"}, Updated: []string{"x"}},
			[]string{"The nearest lines are", "Copy ORIGINAL from the current text above"}},
		{"a line of a megabyte", withLong, Hunk{Original: []string{lines[9], long + "!", lines[10]}, Updated: []string{"x"}},
			[]string{"more bytes on this line", "Copy ORIGINAL from the current text above"}},
		{"placeholders differ, a megabyte long", text, Hunk{Original: []string{lines[1], "// ..." + long, lines[6]}, Updated: []string{lines[1], "# ..." + long, lines[6]}},
			[]string{"placeholder 1 is \"// ...zzz", "more bytes on this line", "use the same placeholder line at the same place in both"}},
		{"repetitive file, long window", same, Hunk{Original: append(append([]string{}, half...), "\treturn err"), Updated: []string{"x"}},
			[]string{"of the 50001 lines of ORIGINAL are in the file as they are", "Patch only the lines that change"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ApplyHunks(tc.text, []Hunk{tc.h})
			if err == nil {
				t.Fatal("applied")
			}
			msg := err.Error()
			if len(msg) > maxErrorBytes {
				t.Errorf("the error is %d bytes; want at most %d:\n%.3000s", len(msg), maxErrorBytes, msg)
			}
			if n := strings.Count(msg, "\n"); n > maxShownLines+4 {
				t.Errorf("the error has %d lines; want at most %d", n, maxShownLines+4)
			}
			for _, w := range tc.want {
				if !strings.Contains(msg, w) {
					t.Errorf("the error does not say %q:\n%.3000s", w, msg)
				}
			}
		})
	}
}

// TestRepetitiveFileMatches checks the hunks that made candidates ×
// windows quadratic in a file of 100,000 equal lines: each window matches
// for a long stretch. They resolve as they should, in linear time.
func TestRepetitiveFileMatches(t *testing.T) {
	const n = 100_000
	tabs := strings.Repeat("\tx\n", n)
	spaces := func(k int, last string) []string {
		h := make([]string, k, k+1)
		for i := range h {
			h[i] = "    x"
		}
		if last != "" {
			h = append(h, last)
		}
		return h
	}
	for _, tc := range []struct {
		name string
		h    Hunk
		want string // in the error; "" when it applies
		tail string // the end of the result
	}{
		{"exact, everywhere", Hunk{Original: strings.Split(strings.Repeat("\tx\n", n/2), "\n")[:n/2], Updated: []string{"y"}},
			"ORIGINAL matches 50001 places (lines 1-50000, 2-50001, 3-50002, 4-50003, 5-50004, and 49996 more, compared exactly)", ""},
		{"indented, everywhere", Hunk{Original: spaces(n/2, ""), Updated: []string{"    y"}},
			"ORIGINAL matches 50001 places (lines 1-50000, 2-50001", ""},
		{"indented, at the end", Hunk{Original: spaces(n/2, ""), Updated: []string{"    y"}, AtEOF: true},
			"", "\tx\n\ty\n"},
		{"indented, then a line that is nowhere", Hunk{Original: spaces(n/2, "    z"), Updated: []string{"    y"}},
			"of the 50001 lines of ORIGINAL are in the file as they are", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := ApplyHunks(tabs, []Hunk{tc.h})
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				if !strings.HasSuffix(out, tc.tail) || strings.Count(out, "\n") != n/2+1 {
					t.Errorf("result ends %q with %d lines", out[max(0, len(out)-20):], strings.Count(out, "\n"))
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %.2000v\nwant %q", err, tc.want)
			}
			if len(err.Error()) > maxErrorBytes {
				t.Errorf("the error is %d bytes", len(err.Error()))
			}
		})
	}
}

// TestManyHunksAndPiecesOnALargeFile sends thousands of hunks, and
// thousands of placeholder pieces, that each need the general matcher
// (trailing whitespace) against one large text: the lines are indexed
// once, not scanned per hunk.
func TestManyHunksAndPiecesOnALargeFile(t *testing.T) {
	text, lines := benchLines(100_000)
	var hunks []Hunk
	var orig, upd []string
	for i := 1; i < len(lines)-8; i += 40 {
		h := Hunk{Original: []string{lines[i] + " ", lines[i+1]}, Updated: []string{lines[i], lines[i+1], "\t// checked"}}
		hunks = append(hunks, h)
		orig = append(orig, lines[i]+" ", "// ...")
		upd = append(upd, lines[i]+" // seen", "// ...")
	}
	out, err := ApplyHunks(text, hunks)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(out, "\t// checked\n"); got != len(hunks) {
		t.Errorf("%d of %d hunks applied", got, len(hunks))
	}
	out, err = ApplyHunks(text, []Hunk{{Original: orig[:len(orig)-1], Updated: upd[:len(upd)-1]}})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(out, " // seen\n"); got != len(hunks) {
		t.Errorf("%d of %d pieces applied", got, len(hunks))
	}
}

// TestSequentialFallbackIsBounded sends thousands of hunks, one of them
// not in the file, against a large file: applying them one after the
// other (which a hunk building on an earlier one needs) would cost a pass
// over the file per hunk, so it is not tried, and the error is the
// missing hunk's.
func TestSequentialFallbackIsBounded(t *testing.T) {
	text, lines := benchLines(100_000)
	var hunks []Hunk
	for i := 1; i < len(lines)-8; i += 40 {
		hunks = append(hunks, Hunk{Original: []string{lines[i]}, Updated: []string{lines[i] + " // seen"}})
	}
	hunks = append(hunks, Hunk{Original: []string{"func nowhere() {"}, Updated: []string{"func somewhere() {"}})
	_, err := ApplyHunks(text, hunks)
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("hunk %d/%d: ORIGINAL was not found", len(hunks), len(hunks))) {
		t.Fatalf("err = %.1000v", err)
	}
}

// FuzzFindAll checks the linear matcher against the candidate check it
// stands in for when a budget runs out: for any text and ORIGINAL, at
// every tier, both find the same windows (and indentation shifts).
func FuzzFindAll(f *testing.F) {
	f.Add("a\nb\na\nb\na\n", "a\nb\na")
	f.Add("\tx\n\tx\n\tx\n  x\n", "    x\n    x")
	f.Add("x\n\ny \n\nx\n\ny\n", "x\n \ny")
	f.Add("\u201cq\u201d\n\"q\"\n", "\"q\"")
	f.Fuzz(func(t *testing.T, text, original string) {
		orig := splitContent(original)
		d := newDoc(text)
		lines := d.all()
		if len(orig) == 0 || len(orig) > len(lines) || allBlank(orig) {
			return
		}
		pivot := 0
		for i, l := range orig {
			if !isBlankLine(l) {
				pivot = i
				break
			}
		}
		cands := d.candidates(tierPunctuation.key(orig[pivot]), pivot, len(lines)-len(orig)+pivot)
		for tr := tierExact; tr < numTiers; tr++ {
			budget := 1 << 40
			want, ok := d.findAt(tr, orig, nil, pivot, cands, &budget)
			if !ok {
				t.Fatal("the budget ran out")
			}
			got := d.findAll(tr, orig, nil, &budget)
			if len(got) != len(want) {
				t.Fatalf("tier %v: findAll found %d windows, the candidates %d", tr, len(got), len(want))
			}
			for i := range got {
				g, w := got[i], want[i]
				if g.first != w.first || g.n != w.n || (g.indent == nil) != (w.indent == nil) || g.indent != nil && *g.indent != *w.indent {
					t.Fatalf("tier %v: window %d is %+v, want %+v", tr, i, g, w)
				}
			}
		}
	})
}
