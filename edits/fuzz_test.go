package edits

import (
	"strings"
	"testing"
)

// FuzzApplyHunks checks, for any text and patch, that parsing and applying
// never panic, that every change replaces whole lines of the text (so no
// byte outside the matched lines changes), and that a result differs from
// the text only inside those lines.
func FuzzApplyHunks(f *testing.F) {
	seeds := [][2]string{
		{"a\nb\nc\n", "<<<<<<< ORIGINAL\nb\n=======\nB\n>>>>>>> UPDATED"},
		{"a\r\nb\r\n", "<<<<<<< ORIGINAL\nb\n=======\nx\ny\n>>>>>>> UPDATED"},
		{"def f():\n    a\n    b\n", "<<<<<<< ORIGINAL\ndef f():\n    # ...\n    b\n=======\ndef g():\n    # ...\n    c\n>>>>>>> UPDATED"},
		{"\tif x {\n\t\treturn\n\t}\n", "<<<<<<< ORIGINAL\n    if x {\n        return\n=======\n    if y {\n        return\n>>>>>>> UPDATED"},
		{"x\n}\ny\n}\n", "<<<<<<< ORIGINAL\n}\n=======\n>>>>>>> UPDATED"},
		{"a\nb", "<<<<<<< ORIGINAL\nb\n=======\n>>>>>>> UPDATED\n<<<<<<< ORIGINAL\na\n=======\nA\n>>>>>>> UPDATED"},
		{"\ufeffs := \u201cq\u201d\n", "<<<<<<< ORIGINAL\ns := \"q\"\n=======\ns := 1\n>>>>>>> UPDATED"},
	}
	for _, s := range seeds {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, text, patch string) {
		hunks, err := ParseConflict(patch)
		if err != nil {
			return
		}
		out, err := ApplyHunks(text, hunks)
		if err != nil {
			return
		}
		// Every replacement spans whole lines of the text.
		body := strings.TrimPrefix(text, bom)
		for i, h := range hunks {
			reps, err := resolveOne(newDoc(body), h, i+1, len(hunks))
			if err != nil {
				continue // hunks that build on earlier ones
			}
			for _, r := range reps {
				startOK := r.start == 0 || body[r.start-1] == '\n' ||
					// deleting the last lines also deletes the line ending before them
					r.repl == "" && r.end == len(body) && (body[r.start] == '\n' || body[r.start] == '\r')
				endOK := r.end == len(body) || body[r.end] == '\n' || body[r.end] == '\r' || body[r.end-1] == '\n'
				if !startOK || !endOK {
					t.Fatalf("hunk %d replaces %q, not whole lines, in %q", i+1, body[r.start:r.end], body)
				}
			}
		}
		// The changed region, trimmed of what text and out share at both
		// ends, must lie within whole lines of text that some hunk matched:
		// check at least that text outside it is out's, byte for byte.
		p := 0
		for p < len(text) && p < len(out) && text[p] == out[p] {
			p++
		}
		s := 0
		for s < len(text)-p && s < len(out)-p && text[len(text)-1-s] == out[len(out)-1-s] {
			s++
		}
		// Widen to whole lines of text: the replaced lines' start and end.
		ls := strings.LastIndexByte(text[:p], '\n') + 1
		le := len(text) - s
		if i := strings.IndexByte(text[le:], '\n'); i >= 0 {
			le += i
		} else {
			le = len(text)
		}
		if text[:ls] != out[:min(ls, len(out))] {
			t.Fatalf("bytes before the changed lines changed:\ntext %q\nout  %q", text, out)
		}
		if tail := text[le:]; !strings.HasSuffix(out, tail) {
			t.Fatalf("bytes after the changed lines changed:\ntext %q\nout  %q", text, out)
		}
		for _, h := range hunks {
			for _, u := range h.Updated {
				if isPlaceholder(u) && !strings.Contains(text, strings.TrimSpace(u)) && strings.Contains(out, u) {
					t.Fatalf("placeholder %q written:\n%q", u, out)
				}
			}
		}
	})
}

// FuzzParseConflict checks that parsing never panics and that every hunk
// line comes from the patch.
func FuzzParseConflict(f *testing.F) {
	f.Add("<<<<<<< ORIGINAL\na\n=======\nb\n>>>>>>> UPDATED")
	f.Add("<<<<<<<< SEARCH>\na\n=====\n=======\nb\n>>>>>>> REPLACE\r\n")
	f.Add("```\n<<<<<<< ORIGINAL\n<<<<<<< HEAD\n=======\n=======\n>>>>>>> UPDATED\n```")
	f.Fuzz(func(t *testing.T, patch string) {
		hunks, err := ParseConflict(patch)
		if err != nil {
			return
		}
		for _, h := range hunks {
			for _, l := range append(append([]string{}, h.Original...), h.Updated...) {
				if !strings.Contains(patch, l) {
					t.Fatalf("line %q is not in the patch", l)
				}
			}
		}
	})
}
