package edits

import (
	"strings"
	"testing"
)

// TestApplyHunksTo: writing the new text into a kept buffer gives
// ApplyHunks's bytes, reuses the buffer once it is large enough, and on
// a refusal returns the buffer as it was with ApplyHunks's error.
func TestApplyHunksTo(t *testing.T) {
	text := strings.Repeat("func a() {\n\treturn 1\n}\n", 50) + "func b() {\n\treturn 2\n}\n"
	for _, tc := range []struct {
		name  string
		hunks []Hunk
	}{
		{"replace", []Hunk{{Original: []string{"func b() {", "\treturn 2"}, Updated: []string{"func b() {", "\treturn 3"}}}},
		{"delete", []Hunk{{Original: []string{"func b() {", "\treturn 2", "}"}}}},
		{"grow", []Hunk{{Original: []string{"\treturn 2"}, Updated: []string{strings.Repeat("\t// long\n", 200) + "\treturn 2"}}}},
		{"ambiguous", []Hunk{{Original: []string{"\treturn 1"}, Updated: []string{"\treturn 0"}}}},
		{"missing", []Hunk{{Original: []string{"nowhere"}, Updated: []string{"x"}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want, wantErr := ApplyHunks(text, tc.hunks)
			buf := make([]byte, 0, 4*len(text))
			got, err := ApplyHunksTo(buf[:0], text, tc.hunks)
			if (err == nil) != (wantErr == nil) || err != nil && err.Error() != wantErr.Error() {
				t.Fatalf("err = %v, want %v", err, wantErr)
			}
			if err != nil {
				if len(got) != 0 {
					t.Fatalf("a refusal wrote %d bytes", len(got))
				}
				return
			}
			if string(got) != want {
				t.Fatalf("got %q…, want ApplyHunks's %q…", got[:40], want[:40])
			}
			if len(want) <= cap(buf) && &got[0] != &buf[:1][0] {
				t.Error("a large enough buffer was not reused")
			}
		})
	}
}
