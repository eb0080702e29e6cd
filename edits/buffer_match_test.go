package edits

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// TestBufferResolveHunksAgrees: resolving hunks on a Buffer, chunk by
// chunk, gives what ResolveHunks gives on the joined text (the same edits,
// or an error), for hunks inside a chunk, across one or several seams,
// at the start and end of the text, repeated, missing, with CRLF lines and
// after edits of the buffer.
func TestBufferResolveHunksAgrees(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var texts []string
	{
		var sb strings.Builder
		for i := range 3000 {
			fmt.Fprintf(&sb, "func f%d(x int) int {\n\treturn x + %d\n}\n\n", i, i%17)
		}
		texts = append(texts, sb.String(), strings.TrimSuffix(sb.String(), "\n"),
			strings.ReplaceAll(sb.String(), "\n", "\r\n"), bom+sb.String(),
			strings.Repeat("same line\n", 2000)+"tail\n")
	}
	for ti, text := range texts {
		buf := NewBuffer(text)
		// A keystroke in the middle, as a user types while the agent works.
		mid := len(text) / 2
		buf, err := buf.Replace(mid, mid, "")
		if err != nil {
			t.Fatal(err)
		}
		if ti == 0 {
			if buf, err = buf.Replace(100, 100, "// typed\n"); err != nil {
				t.Fatal(err)
			}
		}
		joined := buf.Text()
		lines := strings.SplitAfter(joined, "\n")
		for k := range 300 {
			n := 1 + r.IntN(12)
			first := r.IntN(len(lines) - n + 1)
			switch k % 10 {
			case 0:
				first = 0
			case 1:
				first = len(lines) - n
			}
			// Hunks across seams: lines around a chunk boundary.
			if k%5 == 2 && len(buf.chunks) > 2 {
				seam := len(buf.chunks[1].text) + len(buf.chunks[0].text)
				first = max(0, strings.Count(joined[:seam], "\n")-r.IntN(n))
			}
			orig := make([]string, n)
			for j := range n {
				orig[j] = strings.TrimRight(lines[min(first+j, len(lines)-1)], "\r\n")
			}
			upd := append([]string{}, orig...)
			upd[r.IntN(n)] += " // edited"
			hunks := []Hunk{{Original: orig, Updated: upd}}
			if k%7 == 3 {
				hunks = append(hunks, Hunk{Original: []string{"not in the text"}, Updated: []string{"x"}})
			}
			if k%11 == 4 {
				other := strings.TrimRight(lines[r.IntN(len(lines))], "\r\n")
				hunks = append(hunks, Hunk{Original: []string{other}, Updated: []string{other + " // also"}})
			}
			want, wantErr := ResolveHunks(joined, hunks)
			got, gotErr := buf.ResolveHunks(hunks)
			if (wantErr == nil) != (gotErr == nil) || wantErr != nil && wantErr.Error() != gotErr.Error() || !reflect.DeepEqual(got, want) {
				t.Fatalf("text %d, case %d (%q…): buffer gave %v, %v; ResolveHunks gave %v, %v", ti, k, orig[0], got, gotErr, want, wantErr)
			}
		}
	}
}

// TestBufferResolveHunksDoesNotJoin: an exact hunk on a buffer changed by
// a keystroke is resolved without joining its text.
func TestBufferResolveHunksDoesNotJoin(t *testing.T) {
	var sb strings.Builder
	for i := range 5000 {
		fmt.Fprintf(&sb, "func g%d() {\n\tcall(%d)\n}\n", i, i)
	}
	buf, err := NewBuffer(sb.String()).Replace(10, 10, "x")
	if err != nil {
		t.Fatal(err)
	}
	es, err := buf.ResolveHunks([]Hunk{{Original: []string{"func g4000() {", "\tcall(4000)"}, Updated: []string{"func g4000() {", "\tcall(4001)"}}})
	if err != nil || len(es) != 1 {
		t.Fatalf("ResolveHunks: %v, %v", es, err)
	}
	if buf.joined.text != "" {
		t.Fatal("the buffer's text was joined")
	}
	if got := ApplyEdits(buf.Text(), es); !strings.Contains(got, "func g4000() {\n\tcall(4001)\n}") {
		t.Fatalf("the edit does not make the change: %v", es)
	}
}
