package main

import (
	"strings"
	"time"

	"github.com/agentls/agentls/edits"
)

type speedRow struct {
	what  string
	size  int
	hunks int
	per   time.Duration
}

// measureSpeed times exact applies on corpus files by size tier (10 MB is
// sorted corpus files concatenated) and by hunk count, and pathological
// inputs. Times are reported, never judged: they depend on the machine.
func measureSpeed(c *corpus) []speedRow {
	var rows []speedRow
	r := &rng{s: 42}
	var big strings.Builder
	for _, f := range c.files {
		if big.Len() >= 10<<20 {
			break
		}
		_, text, err := c.pick(r, f.size, f.size+1)
		if err == nil {
			big.WriteString("// ---- " + f.path + " ----\n" + text)
		}
	}
	tiers := []struct {
		lo, hi int64
	}{{1 << 10, 2 << 10}, {10 << 10, 20 << 10}, {100 << 10, 200 << 10}, {1 << 20, 3 << 20}}
	for _, t := range tiers {
		_, text, err := c.pick(r, t.lo, t.hi)
		if err != nil {
			continue
		}
		rows = append(rows, timeHunks(r, "natural file", text, 1))
	}
	rows = append(rows, timeHunks(r, "concatenated files", big.String(), 1))
	for _, k := range []int{16, 256} {
		rows = append(rows, timeHunks(r, "concatenated files", big.String(), k))
	}
	// Pathological: 100,000 identical lines and a one-line hunk (ambiguous
	// at every tier), and a hunk that is nowhere (the miss path).
	same := strings.Repeat("\t}\n", 100_000)
	rows = append(rows, timeOne("100k identical lines, ambiguous hunk", same, []edits.Hunk{{Original: []string{"\t}"}, Updated: []string{"}"}}}))
	rows = append(rows, timeOne("miss in 10 MB", big.String(), []edits.Hunk{{Original: []string{"func nowhere() {", "\treturn 42", "}"}, Updated: []string{"x"}}}))
	return rows
}

func timeHunks(r *rng, what, text string, k int) speedRow {
	lines, _ := splitFile(text)
	var hunks []edits.Hunk
	used := map[int]bool{}
	for tries := 0; len(hunks) < k && tries < k*50; tries++ {
		e, ok := genEdit(r, lines)
		if !ok {
			break
		}
		clash := false
		for i := e.first - 1; i <= e.first+e.n; i++ {
			clash = clash || used[i]
		}
		if clash {
			continue
		}
		for i := e.first - 1; i <= e.first+e.n; i++ {
			used[i] = true
		}
		hunks = append(hunks, edits.Hunk{Original: e.orig, Updated: e.upd})
	}
	row := timeOne(what, text, hunks)
	row.hunks = len(hunks)
	return row
}

func timeOne(what, text string, hunks []edits.Hunk) speedRow {
	n := 0
	start := time.Now()
	for time.Since(start) < 300*time.Millisecond || n < 3 {
		edits.ApplyHunks(text, hunks)
		n++
	}
	return speedRow{what: what, size: len(text), hunks: len(hunks), per: time.Since(start) / time.Duration(n)}
}
