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
