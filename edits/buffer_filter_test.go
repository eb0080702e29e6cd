package edits

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// randomDoc is a text of n lines drawn from a small set, so that lines
// repeat within and across chunks, with CRLF endings or none at the end
// when asked.
func randomDoc(r *rand.Rand, n int, crlf, noFinal bool) string {
	var sb strings.Builder
	for i := range n {
		switch r.IntN(6) {
		case 0:
			sb.WriteString("}")
		case 1:
			fmt.Fprintf(&sb, "\treturn x + %d", r.IntN(40))
		case 2:
			fmt.Fprintf(&sb, "func f%d(x int) int {", i)
		case 3: // blank
		case 4:
			sb.WriteString(strings.Repeat("long line ", 1+r.IntN(60)))
		default:
			fmt.Fprintf(&sb, "\tcall(%d, %q)", r.IntN(300), "s")
		}
		if i < n-1 || !noFinal {
			if crlf {
				sb.WriteString("\r")
			}
			sb.WriteString("\n")
		}
	}
	return sb.String()
}

// typeInto changes buf and text alike by a few random keystrokes and
// pastes, line breaks included.
func typeInto(t *testing.T, r *rand.Rand, buf *Buffer, text string, n int) (*Buffer, string) {
	t.Helper()
	for range n {
		start := r.IntN(len(text) + 1)
		end := start + r.IntN(min(len(text)-start, 200)+1)
		s := []string{"", "x", "\n", "}\n", "\treturn x + 1\n", strings.Repeat("pasted line\n", 1+r.IntN(500))}[r.IntN(6)]
		var err error
		if buf, err = buf.Replace(start, end, s); err != nil {
			t.Fatal(err)
		}
		text = text[:start] + s + text[end:]
	}
	return buf, text
}

// TestBufferFilterAgreesWithScan: finding a needle by the chunks' line
// filters gives what a search of the whole text gives (the key scan, and
// a plain count of whole-line matches in the joined text), on random
// documents after random edits, for needles that are there once, several
// times, across seams, or not at all.
func TestBufferFilterAgreesWithScan(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	decided := 0
	for doc := range 12 {
		text := randomDoc(r, 500+r.IntN(4000), doc%3 == 1, doc%4 == 2)
		buf := NewBuffer(text)
		buf, text = typeInto(t, r, buf, text, r.IntN(20))
		if buf.Text() != text {
			t.Fatal("the buffer lost track of the text")
		}
		lines := strings.SplitAfter(text, "\n")
		for k := range 200 {
			n := 1 + r.IntN(6)
			first := r.IntN(max(1, len(lines)-n+1))
			var ls []string
			for j := first; j < min(first+n, len(lines)); j++ {
				ls = append(ls, strings.TrimSuffix(lines[j], "\n"))
			}
			if k%9 == 4 {
				ls[r.IntN(len(ls))] += " (not in the text)"
			}
			needle := strings.Join(ls, "\n")
			if needle == "" || strings.Trim(needle, "\n") == "" {
				continue
			}
			big := 1 << 40
			fs, fok, fdecided := buf.linesByFilter(needle, &big)
			ks, kok := buf.linesByKey(needle, &big)
			want, wok := wholeLineMatch(text, needle)
			if kok != wok || kok && ks != want {
				t.Fatalf("doc %d, needle %q: the key scan gave %d, %v; want %d, %v", doc, needle, ks, kok, want, wok)
			}
			if fdecided {
				decided++
				if fok != wok || fok && fs != want {
					t.Fatalf("doc %d, needle %q: the filters gave %d, %v; want %d, %v", doc, needle, fs, fok, want, wok)
				}
			}
			us, uok := buf.uniqueLines(needle, &big)
			if uok != wok || uok && us != want {
				t.Fatalf("doc %d, needle %q: uniqueLines gave %d, %v; want %d, %v", doc, needle, us, uok, want, wok)
			}
		}
	}
	if decided == 0 {
		t.Fatal("the filters never decided: nothing was tested")
	}
}

// wholeLineMatch returns needle's place in text as whole lines when it
// has exactly one, by a plain search.
func wholeLineMatch(text, needle string) (int, bool) {
	found, at := 0, -1
	for from := 0; from <= len(text); {
		k := strings.Index(text[from:], needle)
		if k < 0 {
			break
		}
		p := from + k
		from = p + 1
		e := p + len(needle)
		if (p == 0 || text[p-1] == '\n') && (e == len(text) || text[e] == '\n') {
			found++
			at = p
		}
	}
	return at, found == 1
}

// TestBufferResolveHunksAfterTyping: Buffer.ResolveHunks gives what
// ResolveHunks gives on the joined text, after random typing, for random
// hunks (and pairs of them).
func TestBufferResolveHunksAfterTyping(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for doc := range 8 {
		text := randomDoc(r, 1000+r.IntN(3000), doc%3 == 2, doc%2 == 1)
		buf := NewBuffer(text)
		for round := range 10 {
			buf, text = typeInto(t, r, buf, text, 1+r.IntN(3))
			lines := strings.SplitAfter(text, "\n")
			for k := range 20 {
				var hunks []Hunk
				for range 1 + r.IntN(2) {
					n := 1 + r.IntN(5)
					first := r.IntN(max(1, len(lines)-n+1))
					var orig []string
					for j := first; j < min(first+n, len(lines)); j++ {
						orig = append(orig, strings.TrimRight(lines[j], "\r\n"))
					}
					upd := append([]string{}, orig...)
					upd[r.IntN(len(upd))] += " // edited"
					hunks = append(hunks, Hunk{Original: orig, Updated: upd})
				}
				want, wantErr := ResolveHunks(text, hunks)
				got, gotErr := buf.ResolveHunks(hunks)
				if (wantErr == nil) != (gotErr == nil) || wantErr != nil && wantErr.Error() != gotErr.Error() || !reflect.DeepEqual(got, want) {
					t.Fatalf("doc %d, round %d, case %d (%q): buffer gave %v, %v; ResolveHunks gave %v, %v", doc, round, k, hunks[0].Original, got, gotErr, want, wantErr)
				}
			}
		}
	}
}

// FuzzBufferResolveHunks: on any text, changed by one edit, a hunk made
// of some of its lines resolves on the buffer as on the joined text.
func FuzzBufferResolveHunks(f *testing.F) {
	f.Add(strings.Repeat("a\nb\nc\n", 1500), 100, 3, "x\n", 2000, 3)
	f.Add(strings.Repeat("line\r\n", 1500)+"end", 0, 0, "", 1499, 2)
	f.Add(strings.Repeat("func f() {\n\treturn 1\n}\n", 400)+"unique\n"+strings.Repeat("x\n", 200), 4000, 1, "\n", 1200, 2)
	f.Add("only\nthree\nlines", 5, 1, "\n", 1, 1)
	f.Fuzz(func(t *testing.T, text string, at, cut int, typed string, first, n int) {
		if len(text) > 1<<14 || len(typed) > 1<<12 {
			return
		}
		at = int(uint(at) % uint(len(text)+1))
		end := at + int(uint(cut)%uint(len(text)-at+1))
		buf, err := NewBuffer(text).Replace(at, end, typed)
		if err != nil {
			t.Fatal(err)
		}
		text = text[:at] + typed + text[end:]
		lines := strings.SplitAfter(text, "\n")
		first = int(uint(first) % uint(len(lines)))
		n = 1 + int(uint(n)%8)
		var orig []string
		for j := first; j < min(first+n, len(lines)); j++ {
			orig = append(orig, strings.TrimRight(lines[j], "\r\n"))
		}
		upd := append([]string{"// added"}, orig...)
		hunks := []Hunk{{Original: orig, Updated: upd}}
		want, wantErr := ResolveHunks(text, hunks)
		got, gotErr := buf.ResolveHunks(hunks)
		if (wantErr == nil) != (gotErr == nil) || wantErr != nil && wantErr.Error() != gotErr.Error() || !reflect.DeepEqual(got, want) {
			t.Fatalf("hunk %q: buffer gave %v, %v; ResolveHunks gave %v, %v", orig, got, gotErr, want, wantErr)
		}
	})
}

// TestLineStarts: a Mapper's line starts are those a byte by byte scan
// finds, with and without "\r" in the text.
func TestLineStarts(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for range 2000 {
		b := make([]byte, r.IntN(200))
		for i := range b {
			b[i] = "ab\n\r"[r.IntN(4)]
			if r.IntN(3) > 0 && b[i] == '\r' {
				b[i] = 'c' // most texts have no "\r" at all
			}
		}
		text := string(b)
		want := []int{0}
		for i := 0; i < len(text); i++ {
			switch {
			case text[i] == '\r' && i+1 < len(text) && text[i+1] == '\n':
				i++
				want = append(want, i+1)
			case text[i] == '\r' || text[i] == '\n':
				want = append(want, i+1)
			}
		}
		if got := NewMapper(text).lineStarts; !reflect.DeepEqual(got, want) {
			t.Fatalf("%q: line starts %v, want %v", text, got, want)
		}
	}
}
