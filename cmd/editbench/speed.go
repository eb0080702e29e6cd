package main

import (
	"fmt"
	"runtime"
	"slices"
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
// An apply that fails where it should succeed (or the other way round) is
// an error, not a row: its time would be the error path's.
func measureSpeed(c *corpus) ([]speedRow, error) {
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
		row, err := timeHunks(r, "natural file", text, 1)
		if err != nil {
			return nil, err
		}
		rows = append(rows, row)
	}
	for _, k := range []int{1, 16, 256} {
		row, err := timeHunks(r, "concatenated files", big.String(), k)
		if err != nil {
			return nil, err
		}
		rows = append(rows, row)
	}
	// Pathological: 100,000 identical lines and a one-line hunk (ambiguous
	// at every tier), and a hunk that is nowhere (the miss path).
	same := strings.Repeat("\t}\n", 100_000)
	for _, p := range []struct {
		what, text string
		h          edits.Hunk
	}{
		{"100k identical lines, ambiguous hunk", same, edits.Hunk{Original: []string{"\t}"}, Updated: []string{"}"}}},
		{"miss in 10 MB", big.String(), edits.Hunk{Original: []string{"func nowhere() {", "\treturn 42", "}"}, Updated: []string{"x"}}},
	} {
		row, err := timeOne(p.what, p.text, []edits.Hunk{p.h}, true)
		if err != nil {
			return nil, err
		}
		rows = append(rows, row)
	}
	return rows, nil
}

// timeHunks times k hunks drawn from text, each of which resolves alone
// (a drawn edit whose lines repeat elsewhere in text, as licence headers
// do in concatenated files, is drawn again) and none overlapping.
func timeHunks(r *rng, what, text string, k int) (speedRow, error) {
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
		h := edits.Hunk{Original: e.orig, Updated: e.upd}
		if clash {
			continue
		}
		if _, err := edits.ResolveHunks(text, []edits.Hunk{h}); err != nil {
			continue
		}
		for i := e.first - 1; i <= e.first+e.n; i++ {
			used[i] = true
		}
		hunks = append(hunks, h)
	}
	return timeOne(what, text, hunks, false)
}

// timeOne times applying hunks to text, which must fail if wantErr and
// succeed otherwise.
func timeOne(what, text string, hunks []edits.Hunk, wantErr bool) (speedRow, error) {
	if _, err := edits.ApplyHunks(text, hunks); (err != nil) != wantErr {
		if err == nil {
			return speedRow{}, fmt.Errorf("speed row %q: %d hunks applied to %d bytes, which should have been refused", what, len(hunks), len(text))
		}
		return speedRow{}, fmt.Errorf("speed row %q: %d hunks on %d bytes failed, so its time would be the error path's: %w", what, len(hunks), len(text), err)
	}
	// The median call: on a loaded machine a mean counts other processes'
	// time slices, and the collections editbench's own heap (the corpus,
	// the cases) makes the applies pay for.
	runtime.GC()
	var ts []time.Duration
	for start := time.Now(); time.Since(start) < 300*time.Millisecond || len(ts) < 3; {
		t := time.Now()
		edits.ApplyHunks(text, hunks)
		ts = append(ts, time.Since(t))
	}
	slices.Sort(ts)
	return speedRow{what: what, size: len(text), hunks: len(hunks), per: ts[len(ts)/2]}, nil
}
