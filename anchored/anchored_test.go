package anchored

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func str(s string) *string { return &s }

// anchorOf returns the anchor of the first line with content c.
func anchorOf(t *testing.T, text, c string) string {
	t.Helper()
	v, err := View(text, 0, 0, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range v {
		if l.Text == c {
			return l.Anchor
		}
	}
	t.Fatalf("no line %q", c)
	return ""
}

const goFile = "package main\n\nfunc main() {\n\tx := 1\n\tfmt.Println(x)\n}\n"

func TestViewFormat(t *testing.T) {
	v, err := View(goFile, 0, 0, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(v) != 6 || v[3].Text != "\tx := 1" || v[3].Line != 4 || len(v[3].Anchor) != DefaultWidth {
		t.Fatalf("view = %+v", v)
	}
	for _, l := range v {
		if strings.ContainsAny(l.Anchor, "ilou") {
			t.Errorf("anchor %q uses a confusable letter", l.Anchor)
		}
	}
	out := Render(v)
	if !strings.Contains(out, v[3].Anchor+"│ \tx := 1\n") {
		t.Errorf("render:\n%s", out)
	}
	if got := Render(nil); got != "(empty file)\n" {
		t.Errorf("empty: %q", got)
	}
	r, _ := View(goFile, 3, 4, Options{})
	if len(r) != 2 || r[0].Line != 3 || r[0].Anchor != v[2].Anchor {
		t.Errorf("range view = %+v", r)
	}
}

func TestDrift(t *testing.T) {
	a := anchorOf(t, goFile, "\tx := 1")
	// 100 lines inserted above, and some removed below: the anchor holds.
	drifted := strings.Replace(goFile, "package main\n", "package main\n"+strings.Repeat("// filler\n", 100), 1)
	drifted = strings.Replace(drifted, "}\n", "}\n\nfunc other() {}\n", 1)
	res, err := Apply(drifted, []Op{{Anchor: a, Op: "replace", Text: str("\tx := 2")}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Text, "\tx := 2\n\tfmt.Println(x)") || strings.Contains(res.Text, "x := 1") {
		t.Errorf("result:\n%s", res.Text)
	}
}

func TestStaleNeighbour(t *testing.T) {
	a := anchorOf(t, goFile, "\tx := 1")
	changed := strings.Replace(goFile, "\tfmt.Println(x)", "\tlog.Println(x)", 1)
	_, err := Apply(changed, []Op{{Anchor: a, Op: "replace", Text: str("\tx := 2")}}, Options{})
	rej, ok := err.(*Rejection)
	if !ok || !strings.Contains(rej.Error(), "no line has this anchor") {
		t.Fatalf("err = %v", err)
	}
	// The rejection shows fresh anchors: retrying with them works.
	fresh := anchorOf(t, changed, "\tx := 1")
	if !strings.Contains(rej.View, fresh+"│ \tx := 1") {
		// a stale op without a guard gives no location; the file is short
		// enough to be shown whole
		t.Errorf("view does not show the fresh anchor %s:\n%s", fresh, rej.View)
	}
	// No rescue: a stale anchor is refused even when its expected text
	// still names exactly one line (that line may be a look-alike, or the
	// edit may already be applied).
	if _, err := Apply(changed, []Op{{Anchor: a, Op: "replace", Text: str("\tx := 2"), Expected: str("\tx := 1")}}, Options{}); err == nil {
		t.Error("a stale anchor was accepted because of its guard")
	}
}

func TestDuplicateLines(t *testing.T) {
	text := "func a() {\n\treturn\n}\n\nfunc b() {\n\treturn\n}\n\n\n\n"
	v, _ := View(text, 0, 0, Options{})
	seen := map[string]int{}
	for _, l := range v {
		if prev, dup := seen[l.Anchor]; dup {
			t.Errorf("lines %d and %d share anchor %s", prev, l.Line, l.Anchor)
		}
		seen[l.Anchor] = l.Line
	}
	// The two "\treturn" lines differ by their neighbours ("func a() {"
	// and "func b() {"), so each has its own anchor.
	second := v[5].Anchor // the second "\treturn"
	res, err := Apply(text, []Op{{Anchor: second, Op: "replace", Text: str("\treturn nil")}}, Options{})
	if err != nil || res.Text != strings.Replace(text, "func b() {\n\treturn\n", "func b() {\n\treturn nil\n", 1) {
		t.Errorf("%v\n%s", err, res.Text)
	}
}

func TestRepeatedLinesWidenTheirContext(t *testing.T) {
	text := "x\na\na\na\na\ny\n"
	v, _ := View(text, 0, 0, Options{})
	// Lines 3 and 4 are both (a, a, a): a wider context tells them apart,
	// without ordinals.
	if v[2].Anchor == v[3].Anchor || strings.Contains(v[2].Anchor+v[3].Anchor, ".") {
		t.Errorf("anchors %s and %s", v[2].Anchor, v[3].Anchor)
	}
	res, err := Apply(text, []Op{{Anchor: v[3].Anchor, Op: "delete"}}, Options{})
	if err != nil || res.Text != "x\na\na\na\ny\n" {
		t.Errorf("%v %q", err, res.Text)
	}
}

func TestOrdinalsOnlyForLongRuns(t *testing.T) {
	text := "start\n" + strings.Repeat("same\n", 40) + "end\n"
	v, _ := View(text, 0, 0, Options{})
	ordinals := 0
	for _, l := range v {
		if strings.Contains(l.Anchor, ".") {
			ordinals++
		}
	}
	if ordinals == 0 {
		t.Error("lines alike across 17 lines got no ordinals")
	}
	seen := map[string]bool{}
	for _, l := range v {
		if seen[l.Anchor] {
			t.Fatalf("anchor %s twice", l.Anchor)
		}
		seen[l.Anchor] = true
	}
}

// TestEditElsewhereDoesNotShiftRepeatedAnchors: after one of several
// identical blocks is edited, an anchor from the old view must not name a
// different copy (radius-1 ordinals did, and the copy passed the guard).
func TestEditElsewhereDoesNotShiftRepeatedAnchors(t *testing.T) {
	block := "\tif err != nil {\n\t\treturn err\n\t}\n"
	text := "func f() {\n" + block + block + block + "}\n"
	v, _ := View(text, 0, 0, Options{})
	third := v[7].Anchor // the "\t\treturn err" of the third block
	// Edit the first block, then use the old anchor of the third.
	edited := strings.Replace(text, "\t\treturn err\n", "\t\treturn fmt.Errorf(\"f: %w\", err)\n", 1)
	res, err := Apply(edited, []Op{{Anchor: third, Op: "replace", Text: str("\t\treturn nil"), Expected: str("\t\treturn err")}}, Options{})
	if err == nil {
		// Accepted: then it must be the third block that changed.
		want := strings.Replace(edited, block+"}\n", "\tif err != nil {\n\t\treturn nil\n\t}\n}\n", 1)
		if res.Text != want {
			t.Errorf("the old anchor of the third block changed another line:\n%s", res.Text)
		}
	}
}

// TestCollisionsForcedByWidth renders with 1-character anchors: most
// lines then share a prefix with a different line, and every anchor must
// still name exactly one line.
func TestCollisionsForcedByWidth(t *testing.T) {
	var b strings.Builder
	for i := range 300 {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	text := b.String()
	opts := Options{Width: 1}
	v, _ := View(text, 0, 0, opts)
	seen := map[string]bool{}
	for _, l := range v {
		if seen[l.Anchor] {
			t.Fatalf("anchor %s used twice", l.Anchor)
		}
		seen[l.Anchor] = true
	}
	longest := 0
	for _, l := range v {
		longest = max(longest, len(l.Anchor))
	}
	if longest < 2 {
		t.Errorf("no anchor was lengthened")
	}
	// A 1-character token that several lines start with is refused.
	short := v[10].Anchor[:1]
	_, err := Apply(text, []Op{{Anchor: short, Op: "delete"}}, opts)
	if err == nil {
		t.Error("an ambiguous short anchor was accepted")
	}
	res, err := Apply(text, []Op{{Anchor: v[10].Anchor, Op: "delete"}}, opts)
	if err != nil || strings.Contains(res.Text, "line 10\n") || !strings.Contains(res.Text, "line 100\n") {
		t.Errorf("%v", err)
	}
}

// TestHashCollisionNeverGuessed uses a line hash that collides for every
// line of the same length: lines far from the ends then share their whole
// digest at every radius though their contents differ, and must be marked
// and refused, not resolved by position. Lines near an end have a context
// of their own, and keep anchors that name them.
func TestHashCollisionNeverGuessed(t *testing.T) {
	opts := Options{hashLine: func(s string) uint64 { return uint64(len(s)) }}
	var b strings.Builder
	for i := range 30 {
		fmt.Fprintf(&b, "%c%c\n", 'a'+i%26, 'a'+i/26)
	}
	text := b.String()
	v, _ := View(text, 0, 0, opts)
	if strings.HasSuffix(v[0].Anchor, "?") || !strings.HasSuffix(v[15].Anchor, "?") {
		t.Fatalf("colliding lines not marked: %+v", v)
	}
	_, err := Apply(text, []Op{{Anchor: strings.TrimSuffix(v[15].Anchor, "?"), Op: "delete"}}, opts)
	if err == nil || !strings.Contains(err.Error(), "more than one line") {
		t.Errorf("a colliding anchor was accepted: %v", err)
	}
	if _, err := Apply(text, []Op{{Anchor: v[0].Anchor, Op: "delete", Expected: str("aa")}}, opts); err != nil {
		t.Errorf("a line near the start, its context its own: %v", err)
	}
}

func TestEOLAndBOM(t *testing.T) {
	for _, tc := range []struct {
		name, text, line string
		op               Op
		want             string
	}{
		{"crlf kept", "a\r\nb\r\nc\r\n", "b", Op{Op: "replace", Text: str("B1\nB2")}, "a\r\nB1\r\nB2\r\nc\r\n"},
		{"mixed eol: only the changed line", "a\nb\r\nc\n", "b", Op{Op: "replace", Text: str("B")}, "a\nB\r\nc\n"},
		{"no final newline", "a\nb", "b", Op{Op: "insert_after", Text: str("c")}, "a\nb\nc"},
		{"delete the last line", "a\nb", "b", Op{Op: "delete"}, "a"},
		{"bom kept", "\ufeffa\nb\n", "a", Op{Op: "insert_before", Text: str("x")}, "\ufeffx\na\nb\n"},
		{"replace with empty text deletes", "a\nb\nc\n", "b", Op{Op: "replace", Text: str("")}, "a\nc\n"},
		{"replace with a newline leaves an empty line", "a\nb\nc\n", "b", Op{Op: "replace", Text: str("\n")}, "a\n\nc\n"},
		{"delete every line", "x\n", "x", Op{Op: "delete"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			op := tc.op
			op.Anchor = anchorOf(t, tc.text, tc.line)
			res, err := Apply(tc.text, []Op{op}, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if res.Text != tc.want {
				t.Errorf("got %q, want %q", res.Text, tc.want)
			}
		})
	}
}

func TestRanges(t *testing.T) {
	text := "a\nb\nc\nd\ne\n"
	b, d := anchorOf(t, text, "b"), anchorOf(t, text, "d")
	res, err := Apply(text, []Op{{Anchor: b, End: d, Op: "replace", Text: str("X")}}, Options{})
	if err != nil || res.Text != "a\nX\ne\n" {
		t.Errorf("%v %q", err, res.Text)
	}
	res, err = Apply(text, []Op{{Anchor: b, End: d, Op: "delete", EndExpected: str("d")}}, Options{})
	if err != nil || res.Text != "a\ne\n" {
		t.Errorf("%v %q", err, res.Text)
	}
	if _, err := Apply(text, []Op{{Anchor: d, End: b, Op: "delete"}}, Options{}); err == nil || !strings.Contains(err.Error(), "is before the anchor") {
		t.Errorf("reversed range: %v", err)
	}
}

func TestRejections(t *testing.T) {
	text := "a\nb\nc\nd\n"
	a, b, c := anchorOf(t, text, "a"), anchorOf(t, text, "b"), anchorOf(t, text, "c")
	for _, tc := range []struct {
		name string
		ops  []Op
		want string
	}{
		{"unknown anchor", []Op{{Anchor: "zzzzzz", Op: "delete"}}, "no line has this anchor"},
		{"failed guard", []Op{{Anchor: b, Op: "replace", Text: str("x"), Expected: str("B")}}, "is \"b\", not the expected \"B\""},
		{"two ops on one line", []Op{{Anchor: b, Op: "delete"}, {Anchor: b, Op: "insert_after", Text: str("x")}}, "both change line 2"},
		{"range over another op", []Op{{Anchor: a, End: c, Op: "delete"}, {Anchor: b, Op: "replace", Text: str("x")}}, "both change line 2"},
		{"one bad op refuses all", []Op{{Anchor: a, Op: "replace", Text: str("A")}, {Anchor: "nope00", Op: "delete"}}, "operation 2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Apply(text, tc.ops, Options{})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q (result %q)", err, tc.want, res.Text)
			}
			if !strings.Contains(err.Error(), "nothing changed") || !strings.Contains(err.Error(), "│") {
				t.Errorf("the rejection does not say nothing changed or show anchors:\n%v", err)
			}
		})
	}
}

func TestRejectionShowsOnlyTheRegion(t *testing.T) {
	var b strings.Builder
	for i := range 10000 {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	text := b.String()
	a := anchorOf(t, text, "line 5000")
	_, err := Apply(text, []Op{{Anchor: a, Op: "replace", Text: str("x"), Expected: str("wrong")}}, Options{})
	rej := err.(*Rejection)
	if n := strings.Count(rej.View, "\n"); n > 12 || !strings.Contains(rej.View, "line 5000") {
		t.Errorf("view has %d lines:\n%s", n, rej.View)
	}
}

func TestParseOps(t *testing.T) {
	ops, err := ParseOps(`[{"anchor": "k3x9ab", "op": "replace", "text": "x", "expected": "y"}, {"anchor": "a", "end": "b", "op": "delete"}]`)
	if err != nil || len(ops) != 2 || *ops[0].Text != "x" || ops[1].End != "b" {
		t.Fatalf("%+v %v", ops, err)
	}
	if ops, err := ParseOps(`{"ops": [{"anchor": "a", "op": "delete"}]}`); err != nil || len(ops) != 1 {
		t.Errorf("wrapped: %v", err)
	}
	for _, tc := range []struct{ in, want string }{
		{`not json`, "not a JSON list"},
		{`[]`, "no operations"},
		{`[1]`, "operation 1 must be a JSON object"},
		{`[{"op": "delete"}]`, "missing \"anchor\""},
		{`[{"anchor": "a", "op": "move"}]`, "expected one of"},
		{`[{"anchor": "a", "op": "replace"}]`, "replace needs \"text\""},
		{`[{"anchor": "a", "op": "insert_after", "text": "x", "end": "b"}]`, "for replace and delete only"},
	} {
		if _, err := ParseOps(tc.in); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseOps(%s) = %v, want %q", tc.in, err, tc.want)
		}
	}
}

func TestIncrementalIndexMatchesFresh(t *testing.T) {
	text := "a\nb\nc\nd\ne\n"
	ix := NewTextIndex(text, Options{})
	// Replace "c" by two lines, then delete "a".
	ix.Update(2, 1, []string{"c1", "c2"})
	ix.Update(0, 1, nil)
	after := "b\nc1\nc2\nd\ne\n"
	fresh := NewTextIndex(after, Options{})
	got, want := tableOf(ix, after), tableOf(fresh, after)
	for i := range want.Len() {
		if got.Token(i) != want.Token(i) {
			t.Errorf("line %d: incremental %s, fresh %s", i+1, got.Token(i), want.Token(i))
		}
	}
}

// TestEveryAnchorNamesItsLine renders random texts of few distinct lines
// (long runs, repeated contexts), with short anchors, long ones (past 12
// characters the table keeps whole digests) and a line hash that collides
// for most lines: every anchor not marked ambiguous must
// name exactly its own line, and every ambiguous one must be refused.
func TestEveryAnchorNamesItsLine(t *testing.T) {
	weak := func(s string) uint64 { return uint64(len(s) % 3) }
	r := rand.New(rand.NewPCG(1, 2))
	for trial := range 40 {
		var b strings.Builder
		for range 1 + r.IntN(80) {
			fmt.Fprintf(&b, "l%d\n", r.IntN(1+r.IntN(4)))
		}
		text := b.String()
		for _, opts := range []Options{{}, {Width: 1}, {Width: 14}, {Width: 2, hashLine: weak}, {Width: 13, hashLine: weak}, {hashLine: weak}} {
			v, err := View(text, 0, 0, opts)
			if err != nil {
				t.Fatal(err)
			}
			lines, _ := SplitLines(text)
			for i, l := range v {
				res, err := Apply(text, []Op{{Anchor: l.Anchor, Op: "delete"}}, opts)
				if strings.HasSuffix(l.Anchor, "?") {
					if err == nil {
						t.Fatalf("trial %d %+v: ambiguous anchor %s of line %d accepted", trial, opts, l.Anchor, i+1)
					}
					continue
				}
				want := JoinLines(slices.Delete(slices.Clone(lines), i, i+1), "")
				if err != nil || res.Text != want {
					t.Fatalf("trial %d %+v: anchor %s of line %d: %v\n%q\nwant %q", trial, opts, l.Anchor, i+1, err, res.Text, want)
				}
			}
		}
	}
}

// TestKeptHashes: anchors computed from hashes the caller kept up to date
// (NewTextIndex, then Update per change) are those of a fresh view; an
// index of another text's length is not used.
func TestKeptHashes(t *testing.T) {
	text := "\ufeffpackage p\n\nfunc f() {\n}\n\nfunc g() {\n}\n"
	ix := NewTextIndex(text, Options{})
	// Line 4 "}" becomes two lines, and line 1 goes.
	ix.Update(3, 1, []string{"\treturn", "}"})
	ix.Update(0, 1, nil)
	after := "\ufeff\nfunc f() {\n\treturn\n}\n\nfunc g() {\n}\n"
	kept := ix.Clone()
	ix.Update(0, 1, []string{"changed after the clone"})
	want, _ := RenderText(after, 0, 0, Options{})
	got, _ := RenderText(after, 0, 0, Options{Hashes: kept})
	if got != want {
		t.Errorf("with kept hashes:\n%s\nfresh:\n%s", got, want)
	}
	// An index of another text is not used: another length, or the
	// same length and other lines.
	for _, other := range []string{text + "x\n", strings.Replace(after, "return", "panic()", 1)} {
		if got, _ := RenderText(other, 0, 0, Options{Hashes: kept}); got != mustRender(t, other) {
			t.Errorf("an index of another text was used:\n%s", got)
		}
	}
	v, _ := View(after, 0, 0, Options{})
	res, err := Apply(after, []Op{{Anchor: v[2].Anchor, Op: "delete", Expected: str("\treturn")}}, Options{Hashes: kept})
	if err != nil || res.Text != "\ufeff\nfunc f() {\n}\n\nfunc g() {\n}\n" {
		t.Errorf("apply with kept hashes: %v %q", err, res.Text)
	}
}

func mustRender(t *testing.T, text string) string {
	t.Helper()
	s, err := RenderText(text, 0, 0, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// tableOf builds the anchor table of text from the hashes in ix, as they
// are: a test of an index kept up to date must not fall back on fresh
// hashes.
func tableOf(ix *Index, text string) *Table {
	var lines lineSet
	lines.split(text)
	t := &Table{}
	ix.build(t, lines.content, true)
	return t
}

func TestLineContents(t *testing.T) {
	for _, tc := range []struct {
		text    string
		atStart bool
		want    []string
	}{
		{"", true, []string{}},
		{"a\r\nb\nc\r", true, []string{"a", "b", "c\r"}},
		{"\ufeffa\n", true, []string{"a"}},
		{"\ufeffa\n", false, []string{"\ufeffa"}},
		{"\ufeff", true, []string{}},
		{"\ufeff", false, []string{"\ufeff"}},
		{"\n\n", true, []string{"", ""}},
	} {
		if got := LineContents(tc.text, tc.atStart); !slices.Equal(got, tc.want) {
			t.Errorf("LineContents(%q, %v) = %q, want %q", tc.text, tc.atStart, got, tc.want)
		}
	}
}
