package anchored

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// FuzzOps parses any ops text and applies it to any file: no panic; a
// rejection changes nothing (Apply is pure, and returns no text); a
// success keeps every line no op touched, with its line ending.
func FuzzOps(f *testing.F) {
	f.Add("a\nb\r\nc", `[{"anchor": "x", "op": "delete"}]`, 1)
	f.Add("x\n\n\n\ny\n", `[{"anchor": "x", "op": "replace", "text": "z\n", "expected": ""}]`, 2)
	f.Add("\ufeffp\nq", `{"ops": [{"anchor": "a", "end": "b", "op": "delete"}]}`, 0)
	f.Fuzz(func(t *testing.T, text, opsJSON string, pick int) {
		lines, _ := SplitLines(text)
		ops, err := ParseOps(opsJSON)
		if err != nil {
			return
		}
		// Point some ops at real anchors so successes happen too.
		if len(lines) > 0 {
			anchors := tableOf(NewTextIndex(text, Options{}), text)
			for i := range ops {
				if pick&1 == 0 {
					ops[i].Anchor = anchors.Token(int(uint(pick/2+i) % uint(anchors.Len())))
				}
				if ops[i].End != "" {
					ops[i].End = anchors.Token(anchors.Len() - 1)
				}
			}
		}
		res, err := Apply(text, ops, Options{})
		if err != nil {
			if res.Text != "" {
				t.Fatal("a rejection returned text")
			}
			return
		}
		// Lines before the first touched line are unchanged.
		firstTouched := len(lines)
		anchors := tableOf(NewTextIndex(text, Options{}), text)
		for _, op := range ops {
			tok, _ := splitOrdinal(cleanToken(op.Anchor))
			for i := range anchors.Len() {
				if strings.HasPrefix(anchors.Token(i), tok) {
					firstTouched = min(firstTouched, i)
				}
			}
		}
		// (The line just before may lose its line ending when the ops
		// delete through the end of a file that has no final newline.)
		if firstTouched > 1 && firstTouched < len(lines) {
			prefix := JoinLines(lines[:firstTouched-1], "")
			got := strings.TrimPrefix(res.Text, "\ufeff")
			if !strings.HasPrefix(got, prefix+lines[firstTouched-1].Content) {
				t.Fatalf("lines before the first touched line changed:\n%q\n→\n%q", text, got)
			}
		}
	})
}

// FuzzView checks that rendering never panics, that RenderText writes the
// view's lines (its word copies stop at the text's end and the line
// endings), that no anchor is shown twice, and that every anchor not
// marked ambiguous names its own line and
// every ambiguous one is refused, with a real hash and with one that makes
// most lines collide.
func FuzzView(f *testing.F) {
	f.Add("a\nb\na\nb\n\n\n", 1)
	f.Add("x\r\ny\rz", 6)
	f.Add(strings.Repeat("}\n\n", 30), 3)
	f.Fuzz(func(t *testing.T, text string, width int) {
		opts := Options{Width: width%8 + 1}
		if width%2 == 0 {
			opts.hashLine = func(s string) uint64 { return uint64(len(s) % 3) }
		}
		v, err := View(text, 0, 0, opts)
		if err != nil {
			t.Fatal(err)
		}
		if got, _ := RenderText(text, 0, 0, opts); got != Render(v) {
			t.Fatalf("RenderText of %q:\n%q\nthe view:\n%q", text, got, Render(v))
		}
		seen := map[string]bool{}
		for _, l := range v {
			if seen[l.Anchor] {
				t.Fatalf("anchor %q twice in %q", l.Anchor, text)
			}
			seen[l.Anchor] = true
		}
		if len(v) > 64 {
			return // each line is a whole Apply: keep the fuzzer fast
		}
		lines, bom := SplitLines(text)
		for i, l := range v {
			res, err := Apply(text, []Op{{Anchor: l.Anchor, Op: "delete"}}, opts)
			if strings.HasSuffix(l.Anchor, "?") {
				if err == nil {
					t.Fatalf("ambiguous anchor %s of line %d accepted in %q", l.Anchor, i+1, text)
				}
				continue
			}
			if err != nil {
				t.Fatalf("anchor %s of line %d refused in %q: %v", l.Anchor, i+1, text, err)
			}
			rest := slices.Delete(slices.Clone(lines), i, i+1)
			if n := len(rest); n > 0 && lines[len(lines)-1].EOL == "" {
				rest[n-1].EOL = "" // the final-newline state is kept
			}
			if want := JoinLines(rest, bom); res.Text != want {
				t.Fatalf("anchor %s of line %d in %q: got %q, want %q", l.Anchor, i+1, text, res.Text, want)
			}
		}
	})
}

// FuzzParseOpsOneDecode: the one-decode path of ParseOps gives what the
// op-by-op decode gives, ops and errors, on any input it takes.
func FuzzParseOpsOneDecode(f *testing.F) {
	for _, s := range []string{
		`[{"anchor": "x", "op": "delete"}]`,
		`[{"anchor": "x", "op": "replace", "text": "z\n", "expected": ""}]`,
		`[{"ANCHOR": "x", "Op": "delete", "extra": 1}]`,
		`[{"anchor": "x", "op": "delete"}, null]`,
		`[{"anchor": "x", "op": "delete", "anchor": "y"}]`,
		`[{"anchor": "x", "op": "insert_after", "text": "a", "end": "b"}]`,
		`["x"]`, `[]`, `[{"anchor": "x", "op": "replace", "text": null}]`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data string) {
		data = strings.TrimSpace(data)
		if strings.HasPrefix(data, "{") {
			return // the wrapper is read before either decode
		}
		got, gotErr := ParseOps(data)
		want, wantErr := parseOpsEach(data)
		if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) || !reflect.DeepEqual(got, want) {
			t.Fatalf("ParseOps(%q) = %+v, %v; op by op %+v, %v", data, got, gotErr, want, wantErr)
		}
	})
}
