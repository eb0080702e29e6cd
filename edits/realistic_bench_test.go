package edits

import (
	"fmt"
	"strings"
	"testing"
)

// realisticGo returns about size bytes of generated Go that looks like a
// real file: functions with a few templated bodies, so that "}", blank
// lines, "return nil" and "if err != nil {" repeat thousands of times, and
// only the function names tell places apart. (benchFile's functions differ
// in every line but two, which real code does not.)
func realisticGo(size int) string {
	var b strings.Builder
	b.WriteString("package bench\n\nimport (\n\t\"context\"\n\t\"fmt\"\n)\n\n")
	for i := 0; b.Len() < size; i++ {
		fmt.Fprintf(&b, "// load%d reads one kind of record.\nfunc load%d(ctx context.Context, path string) (*Config, error) {\n", i, i)
		switch i % 4 {
		case 0:
			b.WriteString("\tcfg, err := read(ctx, path)\n\tif err != nil {\n\t\treturn nil, err\n\t}\n\treturn cfg, nil\n")
		case 1:
			b.WriteString("\tfor _, p := range paths {\n\t\tif err := check(p); err != nil {\n\t\t\treturn nil, fmt.Errorf(\"check %s: %w\", p, err)\n\t\t}\n\t}\n\n\treturn nil, nil\n")
		case 2:
			fmt.Fprintf(&b, "\tn := count(path) + %d\n\tif n > limit {\n\t\treturn nil, errTooMany\n\t}\n\treturn &Config{N: n}, nil\n", i%17)
		default:
			b.WriteString("\treturn nil, nil\n")
		}
		b.WriteString("}\n\n")
	}
	return b.String()
}

// realisticPatches returns conflict-marker patches for f, as a model
// writes them for the patch tool: the exact lines of a function in the
// middle (one edited); the same with a blank line written as spaces and
// ORIGINAL ending with a blank line (the whitespace-relaxed tier); a block
// that is nowhere (the miss path); and 16 exact hunks spread over the
// file in one patch.
func realisticPatches(f string) (exact, relaxed, miss, sixteen string) {
	lines := strings.Split(f, "\n")
	// funcAt is the first function at or after line from (or before it,
	// near the end) whose body starts with a read and its error check.
	funcAt := func(from int) int {
		for i := from; i+5 < len(lines); i++ {
			if strings.HasPrefix(lines[i], "func ") && lines[i+2] == "\tif err != nil {" {
				return i
			}
		}
		for i := from; ; i-- {
			if strings.HasPrefix(lines[i], "func ") && lines[i+2] == "\tif err != nil {" {
				return i
			}
		}
	}
	block := func(orig, upd []string) string {
		return "<<<<<<< ORIGINAL\n" + strings.Join(orig, "\n") + "\n=======\n" + strings.Join(upd, "\n") + "\n>>>>>>> UPDATED"
	}
	edit := func(h int) ([]string, []string) {
		orig := append([]string{}, lines[h:h+5]...)
		upd := append([]string{}, orig...)
		upd[3] = "\t\treturn nil, fmt.Errorf(\"load: %w\", err)"
		return orig, upd
	}
	h := funcAt(len(lines) / 2)
	orig, upd := edit(h)
	exact = block(orig, upd)
	// "}" and the blank line before the function, the blank line written as
	// spaces, and a blank line before the divider.
	relOrig := append([]string{"}", "   ", lines[h-1]}, orig...)
	relaxed = "<<<<<<< ORIGINAL\n" + strings.Join(relOrig, "\n") + "\n\n=======\n" + strings.Join(append([]string{"}", "", lines[h-1]}, upd...), "\n") + "\n\n>>>>>>> UPDATED"
	miss = block(append(orig[:4:4], orig[4]+"X"), upd)
	var hs []string
	for k := range 16 {
		o, u := edit(funcAt((2*k + 1) * len(lines) / 32))
		hs = append(hs, block(o, u))
	}
	return exact, relaxed, miss, strings.Join(hs, "\n")
}

var realisticSizes = []int{10 << 10, 100 << 10, 1 << 20, 10 << 20}

// BenchmarkPatchRealistic is the patch tool's path (tools/edittool/patch.go:
// ParseConflict, then ApplyHunks building the new text) on generated Go
// with the repeated lines of real code, from 10 KB to 10 MB: an exact
// hunk, the whitespace-relaxed tier, a miss (whose error, with the
// nearest lines, is the product), and 16 hunks at once. Bytes per second
// should hold as the file grows; the relaxed tier should stay within 2× of
// the exact one, and 16 hunks within 1.5× of one.
func BenchmarkPatchRealistic(b *testing.B) {
	for _, size := range realisticSizes {
		f := realisticGo(size)
		exact, relaxed, miss, sixteen := realisticPatches(f)
		for _, tc := range []struct {
			name, patch string
			fails       bool
		}{
			{"exact", exact, false},
			{"relaxed", relaxed, false},
			{"miss", miss, true},
			{"16hunks", sixteen, false},
		} {
			if tc.name == "16hunks" && size < 1<<20 {
				continue
			}
			b.Run(fmt.Sprintf("%s/%s", tc.name, sizeLabel(size)), func(b *testing.B) {
				b.ReportAllocs()
				b.SetBytes(int64(len(f)))
				for b.Loop() {
					hunks, err := ParseConflict(tc.patch)
					if err != nil {
						b.Fatal(err)
					}
					if _, err := ApplyHunks(f, hunks); (err != nil) != tc.fails {
						b.Fatalf("err = %v", err)
					}
				}
			})
		}
	}
}
