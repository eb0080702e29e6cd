package anchored

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
)

// randomText returns a text of up to maxLines lines drawn mostly from a
// few repeated ones ("}", blank lines, "return err", whole repeated
// blocks), so that anchors widen, take ordinals and, with a weak hash,
// collide; its line endings, byte-order mark and final newline vary.
func randomText(rng *rand.Rand, maxLines int) string {
	common := []string{"}", "", "\treturn err", "\tif err != nil {", "\treturn nil", "x := 1", "  ", "\t}"}
	n := rng.IntN(maxLines + 1)
	eol := "\n"
	if rng.IntN(4) == 0 {
		eol = "\r\n"
	}
	var b strings.Builder
	if rng.IntN(8) == 0 {
		b.WriteString("\ufeff")
	}
	block := []string{"func f() {", "\tif err != nil {", "\t\treturn err", "\t}", "}"}
	for i := 0; i < n; i++ {
		switch k := rng.IntN(10); {
		case k < 5:
			b.WriteString(common[rng.IntN(len(common))])
		case k < 7:
			for j, l := range block {
				if j > 0 {
					b.WriteString(eol)
				}
				b.WriteString(l)
			}
			i += len(block) - 1
		default:
			fmt.Fprintf(&b, "line %d", rng.IntN(n+1))
		}
		if i < n-1 || rng.IntN(3) > 0 {
			if rng.IntN(16) == 0 {
				b.WriteString("\r\n") // a mixed ending
			} else {
				b.WriteString(eol)
			}
		}
	}
	return b.String()
}

// randomOps returns a batch of ops on view: real anchors, shortened,
// wrapped as models copy them, given ordinals, mistyped or made up;
// ranges forward and backward; right and wrong guards; sometimes two ops
// on one line; and now and then a batch big enough for the key index. A
// third of the batches name distinct lines by their anchors with true
// guards, so that big batches apply too.
func randomOps(rng *rand.Rand, view []ViewLine) []Op {
	n := 1 + rng.IntN(6)
	switch rng.IntN(10) {
	case 0:
		n = 100 + rng.IntN(100) // more than maxScannedTokens/2 ops
	case 1:
		n = 260 + rng.IntN(40) // more than maxScannedTokens tokens
	}
	token := func() (string, int) {
		if len(view) == 0 || rng.IntN(12) == 0 {
			return []string{"ZZZZZZ", "abc", "000000", "?", "│"}[rng.IntN(5)], -1
		}
		i := rng.IntN(len(view))
		a := view[i].Anchor
		switch rng.IntN(8) {
		case 0:
			if base := strings.TrimRight(a, "?"); len(base) > 4 {
				return base[:4+rng.IntN(len(base)-4)], i // shortened
			}
		case 1:
			return " " + a + "│ ", i
		case 2:
			return a + ".2", i
		case 3:
			b := []byte(a)
			b[rng.IntN(len(b))] = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"[rng.IntN(32)]
			return string(b), i // mistyped (or by chance not)
		}
		return a, i
	}
	ops := make([]Op, 0, n)
	if rng.IntN(3) == 0 && len(view) > 0 {
		// A batch that should apply: distinct lines by their anchors as
		// shown, with true guards (an ambiguous one still refuses it).
		for _, i := range rng.Perm(len(view))[:min(n, len(view))] {
			l := view[i]
			ops = append(ops, Op{Anchor: l.Anchor, Op: opNames[rng.IntN(len(opNames))], Text: str("new " + l.Text), Expected: str(l.Text)})
		}
		return ops
	}
	for range n {
		var op Op
		var line int
		op.Anchor, line = token()
		op.Op = opNames[rng.IntN(len(opNames))]
		if op.Op != "delete" || rng.IntN(4) == 0 {
			op.Text = str([]string{"", "\n", "new", "a\nb\n", "}\r\n", "x := 1"}[rng.IntN(6)])
		}
		if line >= 0 && rng.IntN(3) == 0 {
			if rng.IntN(4) == 0 {
				op.Expected = str("not the line")
			} else {
				op.Expected = str(view[line].Text)
			}
		}
		if (op.Op == "replace" || op.Op == "delete") && line >= 0 && rng.IntN(4) == 0 {
			end := min(len(view)-1, max(0, line+rng.IntN(7)-2)) // now and then before the anchor
			op.End = view[end].Anchor
			if rng.IntN(2) == 0 {
				op.EndExpected = str(view[end].Text)
			}
		}
		ops = append(ops, op)
	}
	return ops
}

// viewsOptions are the anchorings the kept tables are checked under: the
// default, narrow anchors (lengthened often), wide ones (past the 12
// characters of a table's tops), and a weak hash that makes different
// lines collide (ambiguous anchors).
func viewsOptions() []Options {
	weak := func(s string) uint64 { return uint64(len(s) % 3) }
	return []Options{{}, {Width: 2}, {Width: 14}, {hashLine: weak}, {Width: 3, hashLine: weak}}
}

// TestViewsApplyKeptIsApply: on random texts with repeated lines, a batch
// applied through the table a view kept gives what Apply gives afresh,
// result and error, byte for byte, batch after batch on the same kept
// table (an apply may build the table's key index), on a copy of the text
// (compared in full) as on the string viewed.
func TestViewsApplyKeptIsApply(t *testing.T) {
	iterations := 400
	if testing.Short() {
		iterations = 60
	}
	kept, refused := 0, 0
	for seed := range iterations {
		rng := rand.New(rand.NewPCG(uint64(seed), 28))
		text := randomText(rng, 1+rng.IntN(300))
		for _, opts := range viewsOptions() {
			var v Views
			from, to := 0, 0
			if rng.IntN(4) == 0 {
				from, to = 1+rng.IntN(5), rng.IntN(10) // a part of the file: the table is the whole file's
			}
			if _, err := v.Render("f.go", text, from, to, opts); err != nil {
				continue // a range past the end: nothing is kept (TestViewsKeepOnlyWhatWasShown)
			}
			view, err := View(text, 0, 0, opts)
			if err != nil {
				t.Fatal(err)
			}
			for batch := range 4 {
				ops := randomOps(rng, view)
				same := text
				if batch%2 == 1 {
					same = strings.Clone(text)
				}
				got, ok, gotErr := v.ApplyKept("f.go", same, ops, opts)
				if !ok {
					t.Fatalf("seed %d, %+v: the text viewed was not resolved through its kept table", seed, opts)
				}
				want, wantErr := Apply(text, ops, opts)
				if got.Text != want.Text || fmt.Sprint(got.Notes) != fmt.Sprint(want.Notes) || fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
					t.Fatalf("seed %d, %+v, batch %d (%d ops) on %q:\nkept:  %q, %v\nfresh: %q, %v", seed, opts, batch, len(ops), text, got.Text, gotErr, want.Text, wantErr)
				}
				kept++
				if gotErr != nil {
					refused++
				}
			}
		}
	}
	t.Logf("%d batches, %d refused", kept, refused)
	if refused == 0 || refused == kept {
		t.Errorf("%d of %d batches refused: the batches test only one side", refused, kept)
	}
}

// TestViewsNeverResolveStale: a text other than the one viewed (a line
// changed, the same lines under another key, another width) is not
// resolved through the kept table: ApplyKept leaves it to the caller, and
// the fresh Apply refuses the op whose line changed.
func TestViewsNeverResolveStale(t *testing.T) {
	text := goLike(2_000, 2_000)
	lines := strings.Split(text, "\n")
	const at = 1_000
	lines[at] += " // changed"
	changed := strings.Join(lines, "\n")
	view, err := View(text, 0, 0, Options{})
	if err != nil {
		t.Fatal(err)
	}
	stale := []Op{{Anchor: view[at].Anchor, Op: "delete"}}
	var v Views
	if _, err := v.Render("f.go", text, 0, 0, Options{}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, key, text string
		opts            Options
	}{
		{"changed line", "f.go", changed, Options{}},
		{"one byte fewer", "f.go", text[:len(text)-1], Options{}},
		{"another document", "g.go", text, Options{}},
		{"another width", "f.go", text, Options{Width: 8}},
	} {
		if _, ok, err := v.ApplyKept(tc.key, tc.text, stale, tc.opts); ok {
			t.Errorf("%s: resolved through the kept table of another text (error %v)", tc.name, err)
		}
	}
	if _, err := Apply(changed, stale, Options{}); err == nil || !strings.Contains(err.Error(), errNoLine.Error()) {
		t.Errorf("the fresh apply took the anchor of the changed line: %v", err)
	}
	// The view of the text is still kept, and resolves its own anchors.
	if res, ok, err := v.ApplyKept("f.go", strings.Clone(text), stale, Options{}); !ok || err != nil || strings.Count(res.Text, "\n") != strings.Count(text, "\n")-1 {
		t.Errorf("the kept view no longer applies to its own text: ok %v, %v", ok, err)
	}
	// A new view of the changed text replaces the old table.
	if _, err := v.Render("f.go", changed, 0, 0, Options{}); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := v.ApplyKept("f.go", text, stale, Options{}); ok {
		t.Error("the text of an earlier view was resolved through the newer view's table")
	}
}

// TestViewsKeepOnlyWhatWasShown: a view that failed (a range past the
// end) keeps no table; a nil Views keeps nothing and renders as
// RenderText does.
func TestViewsKeepOnlyWhatWasShown(t *testing.T) {
	text := "a\nb\nc\n"
	ops := []Op{{Anchor: anchorOf(t, text, "b"), Op: "delete"}}
	var v Views
	if _, err := v.Render("f.go", text, 0, 0, Options{}); err != nil {
		t.Fatal(err)
	}
	if _, err := v.Render("f.go", text, 9, 0, Options{}); err == nil {
		t.Fatal("a range past the end was rendered")
	}
	if _, ok, _ := v.ApplyKept("f.go", text, ops, Options{}); ok {
		t.Error("the table of a failed view was kept")
	}
	var none *Views
	got, err := none.Render("f.go", text, 0, 0, Options{})
	if want, _ := RenderText(text, 0, 0, Options{}); err != nil || got != want {
		t.Errorf("a nil Views rendered %q, %v; want %q", got, err, want)
	}
	if _, ok, _ := none.ApplyKept("f.go", text, ops, Options{}); ok {
		t.Error("a nil Views applied through a table")
	}
}

// TestViewsBounds: the last keptViews documents viewed are kept, an older
// one dropped, a view again makes a document the most recent, and old
// views go when the texts kept pass the bound on their bytes (the newest
// stays).
func TestViewsBounds(t *testing.T) {
	var v Views
	text := "a\nb\n"
	ops := []Op{{Anchor: anchorOf(t, text, "a"), Op: "delete"}}
	isKept := func(key string) bool {
		_, ok, _ := v.ApplyKept(key, text, ops, Options{})
		return ok
	}
	for i := range keptViews {
		v.Render(fmt.Sprint(i), text, 0, 0, Options{})
	}
	v.Render("0", text, 0, 0, Options{}) // "0" is the most recent again
	v.Render("new", text, 0, 0, Options{})
	if !isKept("0") || isKept("1") || !isKept("new") || !isKept("2") {
		t.Errorf("after %d views and one again: kept %v", keptViews+2, v.keys())
	}
	v.maxBytes = 64
	big := strings.Repeat("x\n", 30) // 60 bytes
	v.Render("big", big, 0, 0, Options{})
	if got := v.keys(); len(got) != 2 || got[0] != "new" || got[1] != "big" {
		t.Errorf("60 bytes more, bound 64: kept %v, want new and big", got)
	}
	v.Render("big2", big+"y\n", 0, 0, Options{})
	if got := v.keys(); len(got) != 1 || got[0] != "big2" {
		t.Errorf("past the bound: kept %v, want only the newest", got)
	}
}

func (v *Views) keys() []string {
	v.mu.Lock()
	defer v.mu.Unlock()
	var keys []string
	for _, kv := range v.kept {
		keys = append(keys, kv.key)
	}
	return keys
}

// TestViewsConcurrent: views and batches on a few documents at once, each
// document's text changing between two versions, never resolve a batch
// against another version's table: every result is the fresh Apply's on
// the text it was given. (Run with -race.)
func TestViewsConcurrent(t *testing.T) {
	type version struct {
		text string
		ops  []Op
		want string // Apply's result, or its error
	}
	outcome := func(res Result, err error) string {
		if err != nil {
			return "error: " + err.Error()
		}
		return res.Text
	}
	docs := make([][2]version, 3)
	for d := range docs {
		rng := rand.New(rand.NewPCG(uint64(d), 7))
		base := goLike(200+50*d, 200)
		for k := range 2 {
			text := base
			if k == 1 {
				text = strings.Replace(base, "\treturn nil", "\treturn errors.New(\"x\")", 1)
			}
			// Ops made on the other version's view: stale here in part.
			view, _ := View(base, 0, 0, Options{})
			ops := randomOps(rng, view)
			res, err := Apply(text, ops, Options{})
			docs[d][k] = version{text: text, ops: ops, want: outcome(res, err)}
		}
	}
	var v Views
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 40 {
				d := (g + i) % len(docs)
				key := fmt.Sprint("doc", d)
				ver := docs[d][(g+i/3)%2]
				if i%3 == 0 {
					if _, err := v.Render(key, ver.text, 0, 0, Options{}); err != nil {
						t.Error(err)
						return
					}
					continue
				}
				text := strings.Clone(ver.text)
				res, ok, err := v.ApplyKept(key, text, ver.ops, Options{})
				if !ok {
					res, err = Apply(text, ver.ops, Options{})
				}
				if got := outcome(res, err); got != ver.want {
					t.Errorf("doc %d (kept %v): got %.80q, want %.80q", d, ok, got, ver.want)
					return
				}
			}
		})
	}
	wg.Wait()
}
