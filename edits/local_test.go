package edits

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestLocalPathAgrees resolves hunks both ways, by the local path (the
// text not yet split) and by the general way (the text split first), and
// requires the same replacements or the same error: on whitespace drift,
// tabs written as spaces, blank lines with spaces, CRLF files, typographic
// quotes, a last line without a newline, an ORIGINAL ending with a blank
// line, edits already applied, and blocks that occur twice.
func TestLocalPathAgrees(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var base []string
	for i := range 60 {
		base = append(base, fmt.Sprintf("func f%d() error {", i), "\tx := \"v\"", fmt.Sprintf("\tif err := step(%d); err != nil {", i), "\t\treturn err", "\t}", "", "\treturn nil", "}", "")
	}
	perturb := []func([]string) []string{
		func(o []string) []string { return o },
		func(o []string) []string { return mapLines(o, func(l string) string { return l + "  " }) },
		func(o []string) []string {
			return mapLines(o, func(l string) string { return strings.ReplaceAll(l, "\t", "    ") })
		},
		func(o []string) []string { return mapLines(o, func(l string) string { return "\t" + l }) },
		func(o []string) []string {
			return mapLines(o, func(l string) string {
				if l == "" {
					return "   "
				}
				return l
			})
		},
		func(o []string) []string { return append(o, "") },
		func(o []string) []string {
			return mapLines(o, func(l string) string { return strings.ReplaceAll(l, "\"v\"", "\u201cv\u201d") })
		},
	}
	settled := 0
	for k := range 400 {
		lines := append([]string{}, base...)
		if k%5 == 0 { // a block that occurs twice
			lines = append(lines, base[9:18]...)
		}
		text := strings.Join(lines, "\n") + "\n"
		switch k % 4 {
		case 1:
			text = strings.ReplaceAll(text, "\n", "\r\n")
		case 2:
			text = strings.TrimSuffix(text, "\n")
		}
		at := r.IntN(len(lines) - 6)
		n := 2 + r.IntN(5)
		orig := perturb[r.IntN(len(perturb))](append([]string{}, lines[at:at+n]...))
		upd := append([]string{}, orig...)
		upd[r.IntN(len(upd))] += " // edited"
		if k%7 == 0 {
			upd = append([]string{}, lines[at:at+n]...) // UPDATED is the file's lines: already applied
		}
		h := Hunk{Original: orig, Updated: upd}
		if _, st := newDoc(text).resolveLocal(h, 1, 1); st == localApplied {
			settled++
		}
		local, errL := resolveHunk(newDoc(text), h, 1, 1, true)
		split := newDoc(text)
		split.all()
		general, errG := resolveHunk(split, h, 1, 1, true)
		if fmt.Sprint(errL) != fmt.Sprint(errG) || fmt.Sprint(local) != fmt.Sprint(general) {
			t.Fatalf("case %d, ORIGINAL %q at line %d:\nlocal   %v %v\ngeneral %v %v", k, orig, at+1, local, errL, general, errG)
		}
	}
	if settled < 100 {
		t.Errorf("the local path settled %d of 400 cases: the comparison hardly tests it", settled)
	}
}

func mapLines(ls []string, f func(string) string) []string {
	for i := range ls {
		ls[i] = f(ls[i])
	}
	return ls
}
