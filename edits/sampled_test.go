package edits

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// uniqueAligned is the oracle of the exact fast path: the one place where
// needle stands in text as whole lines, or -1 (none, or several).
func uniqueAligned(text, needle string) int {
	d := newDoc(text)
	found := -1
	for from := 0; from <= len(text); {
		i := strings.Index(text[from:], needle)
		if i < 0 {
			break
		}
		s := from + i
		if d.alignedAt(s, needle) {
			if found >= 0 {
				return -1
			}
			found = s
		}
		from = s + 1
	}
	return found
}

// sampledStarts runs the sampled search for needles at stride (0: the
// one it chooses), its samples in parts (1 or 2, as on two cores), with a
// budget that never runs out, and returns each needle's start or -1.
func sampledStarts(text string, needles []string, stride, parts int) []int {
	d := newDoc(text)
	ns := make([]rareNeedle, len(needles))
	for i, n := range needles {
		ns[i] = rareNeedle{hunk: i, needle: n}
	}
	budget := 1 << 50
	d.scanSampledBy(ns, &budget, stride, parts)
	starts := make([]int, len(ns))
	for i, n := range ns {
		starts[i] = -1
		if n.found == 1 {
			starts[i] = n.start
		}
	}
	return starts
}

// sampledLine pads a line to make needles long enough for the sampled
// search (sampledEligible) from a few lines.
func sampledLine(s string) string { return s + " // " + strings.Repeat("x", 20) }

func TestSampledSearch(t *testing.T) {
	l := sampledLine
	var longLines []string
	for i := range 300 {
		longLines = append(longLines, l(fmt.Sprintf("\tcall(%d)", i)))
	}
	long := strings.Join(longLines, "\n") + "\n" // over maxSampledPrefix
	body := strings.Join([]string{l("func a() {"), l("\treturn 1"), "}", "", l("func b() {"), l("\treturn 2"), "}", "",
		l("func c() {"), l("\treturn 1"), "}", ""}, "\n")
	for _, tc := range []struct {
		name    string
		text    string
		needles []string
	}{
		{"hunks in any order", body, []string{l("func c() {") + "\n" + l("\treturn 1"), l("func a() {") + "\n" + l("\treturn 1")}},
		{"a hunk whose first line repeats", body, []string{"}\n\n" + l("func b() {") + "\n" + l("\treturn 2"), l("\treturn 1") + "\n}\n"}},
		{"a hunk that is in two places", body, []string{l("\treturn 1") + "\n}", l("func b() {") + "\n" + l("\treturn 2")}},
		{"overlapping candidates", strings.Repeat(l("same")+"\n", 6), []string{strings.Repeat(l("same")+"\n", 3), l("same") + "\n" + l("same")}},
		{"a hunk that misses", body, []string{l("func a() {") + "\n" + l("\treturn 3"), l("func c() {") + "\n" + l("\treturn 1")}},
		{"CRLF file", strings.ReplaceAll(body, "\n", "\r\n"), []string{l("func a() {") + "\n" + l("\treturn 1"), l("func b() {")}},
		{"first line blank", body, []string{"\n" + l("func b() {") + "\n" + l("\treturn 2"), "\n" + l("func c() {") + "\n" + l("\treturn 1")}},
		{"first line whitespace only", strings.Replace(body, "\n\n", "\n   \n", 1), []string{"   \n" + l("func b() {") + "\n" + l("\treturn 2"), "\n" + l("func b() {")}},
		{"at the start and the end without a final newline", strings.TrimSuffix(body, "\n"), []string{l("func a() {") + "\n" + l("\treturn 1"), l("func c() {") + "\n" + l("\treturn 1") + "\n}"}},
		{"the same hunk twice", body, []string{l("func b() {") + "\n" + l("\treturn 2"), l("func b() {") + "\n" + l("\treturn 2")}},
		{"a needle longer than the text", "x\n", []string{l("a") + "\n" + l("b"), l("c") + "\n" + l("d")}},
		{"hunks longer than the grams weighed", long + body + long, []string{long + l("func a() {"), l("\treturn 2") + "\n}\n\n" + long[:len(long)-1]}},
		{"a needle that is a line's tail", body, []string{"() {" + " // " + strings.Repeat("x", 20) + "\n" + l("\treturn 2"), l("func c() {")[1:] + "\n" + l("\treturn 1")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var want []int
			for _, n := range tc.needles {
				want = append(want, uniqueAligned(tc.text, n))
			}
			shortest := slices.MinFunc(tc.needles, func(a, b string) int { return len(a) - len(b) })
			longest := sampledGrams(shortest) // a needle's longest stride
			for stride := 1; stride <= longest; stride++ {
				if stride > maxStride && stride < longest {
					stride = longest
				}
				for parts := 1; parts <= 2; parts++ {
					if got := sampledStarts(tc.text, tc.needles, stride, parts); !slices.Equal(got, want) {
						t.Errorf("stride %d, %d parts: starts %v, want %v", stride, parts, got, want)
					}
				}
			}
			for parts := 1; parts <= 2; parts++ {
				if got := sampledStarts(tc.text, tc.needles, 0, parts); !slices.Equal(got, want) {
					t.Errorf("chosen stride, %d parts: starts %v, want %v", parts, got, want)
				}
			}
		})
	}
}

// randomLines makes n lines drawn from a few, so that lines repeat, some
// blank or only spaces, with "\r\n" endings if crlf.
func randomLines(r *rand.Rand, n int, crlf bool) []string {
	pool := []string{"}", "", "   ", "\treturn nil", "\tif err != nil {", "\t\treturn err", "\t}"}
	var lines []string
	for i := range n {
		switch k := r.IntN(10); {
		case k < 6:
			lines = append(lines, pool[r.IntN(len(pool))])
		case k < 8:
			lines = append(lines, fmt.Sprintf("func f%d(x int) error {", i)) // once in the text
		default:
			lines = append(lines, fmt.Sprintf("\tx%d := call(ctx, %d)", i%7, r.IntN(4)))
		}
	}
	if crlf {
		for i := range lines {
			lines[i] += "\r"
		}
	}
	return lines
}

// TestSampledSearchRandom compares the sampled search with the oracle and
// with the rare-byte scan it replaces on many random texts (repeated
// lines, blank ones, CRLF) and needles (taken from the text, edited to
// miss, repeated), at every stride kind.
func TestSampledSearchRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 4))
	for iter := range 400 {
		lines := randomLines(r, 20+r.IntN(200), r.IntN(8) == 0)
		text := strings.Join(lines, "\n")
		if r.IntN(2) == 0 {
			text += "\n"
		}
		var needles []string
		for range 2 + r.IntN(6) {
			at := r.IntN(len(lines))
			n := min(len(lines)-at, 1+r.IntN(6))
			ls := slices.Clone(lines[at : at+n])
			for i := range ls {
				ls[i] = strings.TrimSuffix(ls[i], "\r")
			}
			if r.IntN(5) == 0 {
				ls[r.IntN(len(ls))] += " // changed"
			}
			needle := strings.Join(ls, "\n")
			if len(needle) < minSampledNeedle {
				needle = strings.Join(append([]string{needle}, lines[at+n:min(len(lines), at+n+8)]...), "\n")
			}
			if len(needle) >= minSampledNeedle {
				needles = append(needles, needle)
			}
		}
		if len(needles) < 2 {
			continue
		}
		var want []int
		for _, n := range needles {
			want = append(want, uniqueAligned(text, n))
		}
		shortest := slices.MinFunc(needles, func(a, b string) int { return len(a) - len(b) })
		stride := []int{0, 1, 7, sampledGrams(shortest)}[iter%4]
		for parts := 1; parts <= 2; parts++ {
			if got := sampledStarts(text, needles, stride, parts); !slices.Equal(got, want) {
				t.Fatalf("iteration %d, stride %d, %d parts: starts %v, want %v\ntext %q\nneedles %q", iter, stride, parts, got, want, text, needles)
			}
		}
		rare := make([]int, len(needles))
		ns := make([]rareNeedle, len(needles))
		for i, n := range needles {
			rare[i], ns[i] = -1, rareNeedle{hunk: i, needle: n}
		}
		budget := 1 << 50
		newDoc(text).scanRare(ns, rare, &budget)
		if !slices.Equal(rare, want) {
			t.Fatalf("iteration %d: the rare-byte scan finds %v, want %v", iter, rare, want)
		}
	}
}

// TestSampledPatchAgrees applies patches of several hunks to texts large
// enough for the sampled search and checks the result against applying
// the hunks one at a time (each found by the one-hunk scan): the same
// text, or an error for the same hunk.
func TestSampledPatchAgrees(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 9))
	for iter := range 12 {
		crlf := iter%4 == 3
		lines := randomLines(r, 40_000, crlf)
		text := strings.Join(lines, "\n") + "\n"
		if len(text) < sampledText {
			t.Fatalf("text of %d bytes is too small for the sampled search", len(text))
		}
		// Hunks from a function's line (each is once in the text), at
		// places apart, in a shuffled order; some miss.
		var hunks []Hunk
		for _, at := range r.Perm(len(lines) / 100)[:2+r.IntN(20)] {
			at *= 100
			for !strings.HasPrefix(lines[at], "func ") {
				at++
			}
			orig := slices.Clone(lines[at : at+4+r.IntN(4)])
			for i := range orig {
				orig[i] = strings.TrimSuffix(orig[i], "\r")
			}
			if r.IntN(8) == 0 {
				orig[0] += " // not in the file"
			}
			upd := slices.Clone(orig)
			upd[len(upd)/2] += " // edited"
			hunks = append(hunks, Hunk{Original: orig, Updated: upd})
		}
		if got, old := newDoc(text).exactStartsBy(hunks, true), newDoc(text).exactStartsBy(hunks, false); !slices.Equal(got, old) {
			t.Fatalf("iteration %d: the sampled search finds %v, the rare-byte scan %v", iter, got, old)
		}
		got, err := ApplyHunks(text, hunks)
		want, wantErr := text, error(nil)
		failed := 0
		for i, h := range hunks {
			next, err := ApplyHunks(want, []Hunk{h})
			if err != nil {
				wantErr, failed = err, i+1
				break
			}
			want = next
		}
		switch {
		case wantErr == nil && err != nil:
			t.Fatalf("iteration %d: %v; one hunk at a time applies", iter, err)
		case wantErr != nil && err == nil:
			t.Fatalf("iteration %d: applied; one hunk at a time fails at hunk %d: %v", iter, failed, wantErr)
		case wantErr != nil:
			if !strings.HasPrefix(err.Error(), fmt.Sprintf("hunk %d/%d:", failed, len(hunks))) {
				t.Fatalf("iteration %d: %v; one hunk at a time fails at hunk %d", iter, err, failed)
			}
		case got != want:
			t.Fatalf("iteration %d: the patch's text differs from applying its hunks one at a time", iter)
		}
	}
}

// TestSampledSearchRepetitiveText is the sampled search on a text of one
// line repeated (every sample holds a gram of the repeated hunk, and the
// budget ends its checks): the unique hunk is still found, the repeated
// one is left to the general way, which names its places.
func TestSampledSearchRepetitiveText(t *testing.T) {
	rep := strings.Repeat("\tcount := count + 1 // the same line\n", 10_000)
	unique := "func unique() {\n\treturn \"a block that is once in the text\"\n}\n"
	text := rep + unique + rep
	if len(text) < sampledText {
		t.Fatalf("text of %d bytes is too small for the sampled search", len(text))
	}
	repeated := strings.Split(strings.TrimSuffix(strings.Repeat("\tcount := count + 1 // the same line\n", 3), "\n"), "\n")
	hunks := []Hunk{
		{Original: strings.Split(strings.TrimSuffix(unique, "\n"), "\n"), Updated: []string{"func unique() {}"}},
		{Original: repeated, Updated: []string{"\tcount++"}},
	}
	got, old := newDoc(text).exactStartsBy(hunks, true), newDoc(text).exactStartsBy(hunks, false)
	if want := []int{len(rep), -1}; !slices.Equal(got, want) || !slices.Equal(old, want) {
		t.Fatalf("sampled search finds %v, the rare-byte scan %v, want %v", got, old, want)
	}
	_, err := ApplyHunks(text, hunks)
	if err == nil || !strings.HasPrefix(err.Error(), "hunk 2/2: ORIGINAL matches 19996 places") {
		t.Fatalf("err = %v, want hunk 2 refused as matching 19996 places", err)
	}
}
