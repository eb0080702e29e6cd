package agent

import (
	"fmt"
	"strings"

	"github.com/agentls/agentls/internal/text"
)

// A small local model at a low temperature can fall into a loop and write
// the same lines over and over until the server's context is full: at 15
// tokens a second that is many minutes of a turn that will fail anyway.
// The stream is stopped once its tail repeats a few lines often enough
// that no file or answer would (runawayTimes in a row, runawayLines lines
// at least), and the model is told.
const (
	runawayMaxUnit = 20 // the most lines a repeated unit has
	runawayTimes   = 8  // repeats in a row that stop a reply
	runawayLines   = 16 // and the fewest lines they span
)

// runawayTail reports whether text, up to its last newline, ends with the
// same non-blank unit of lines repeated runawayTimes times or more in a
// row, spanning runawayLines lines at least. It returns the length of
// text up to the end of the unit's first repeat (where the reply is cut)
// and a description of the repeat for the model; keep is 0 when text
// does not end that way. It looks at the last runawayMaxUnit ×
// runawayTimes lines at most when the tail does not repeat, so a call
// per line of a growing reply costs the same at any length.
func runawayTail(text string) (keep int, what string) {
	end := strings.LastIndexByte(text, '\n')
	if end < 0 {
		return 0, ""
	}
	// starts[i] is where the i-th line from the end begins (starts[0] is
	// the last complete line's); lines are found as they are asked for.
	var starts []int
	pos := end
	have := func(i int) bool {
		for len(starts) <= i && pos > 0 {
			prev := strings.LastIndexByte(text[:pos], '\n') + 1
			starts = append(starts, prev)
			pos = prev - 1
		}
		return i < len(starts)
	}
	line := func(i int) string { // the i-th line from the end, no newline
		stop := end
		if i > 0 {
			stop = starts[i-1] - 1
		}
		return text[starts[i]:stop]
	}
	for unit := 1; unit <= runawayMaxUnit; unit++ {
		times := max(runawayTimes, (runawayLines+unit-1)/unit)
		if !have(unit*times - 1) {
			break
		}
		first := ""
		for i := unit - 1; i >= 0 && first == ""; i-- {
			first = strings.TrimSpace(line(i))
		}
		if first == "" {
			continue // blank lines
		}
		// repeats reports whether lines [from, to) repeat the unit.
		repeats := func(from, to int) bool {
			for i := from; i < to; i++ {
				if line(i) != line(i%unit) {
					return false
				}
			}
			return true
		}
		if !repeats(unit, unit*times) {
			continue
		}
		// Whole repeats further back, written before this call saw
		// them (a chunk of the stream brings several lines), are
		// repeats too.
		n := unit * times
		for have(n+unit-1) && repeats(n, n+unit) {
			n += unit
		}
		// The first of the repeats ends where the second begins.
		keep = starts[n-unit-1]
		if unit == 1 {
			return keep, fmt.Sprintf("the line %q %d times in a row", first, n)
		}
		return keep, fmt.Sprintf("the same %d lines (from %q) %d times in a row", unit, first, n/unit)
	}
	return 0, ""
}

// A repeat inside one line — a native call's arguments are JSON, a file's
// lines escaped into one string — escapes runawayTail: the tool format's
// calls ran on for minutes. runawayRun finds it by bytes.
const (
	runawayWindow = 16 << 10 // the tail runawayRun looks in
	runawayProbe  = 32       // the tail's bytes whose last earlier place gives the period
	runawayBytes  = 512      // the fewest bytes the repeats span
)

// runawayRun reports whether s ends with the same run of bytes repeated
// runawayTimes times or more in a row, spanning runawayBytes at least. It
// returns the length of s up to the end of the run's first repeat and a
// description for the model; keep is 0 when s does not end that way. Its
// cost is one search of the last runawayWindow bytes.
func runawayRun(s string) (keep int, what string) {
	n := len(s)
	if n < runawayBytes {
		return 0, ""
	}
	from := max(0, n-runawayWindow)
	at := strings.LastIndex(s[from:n-1], s[n-runawayProbe:])
	if at < 0 {
		return 0, ""
	}
	p := n - runawayProbe - (from + at) // the distance to its last place: the period, if it repeats
	if p <= 0 {
		return 0, ""
	}
	unit := s[n-p:]
	k := 1
	for (k+1)*p <= n && s[n-(k+1)*p:n-k*p] == unit {
		k++
	}
	if k < runawayTimes || k*p < runawayBytes || strings.TrimSpace(unit) == "" {
		return 0, ""
	}
	return n - (k-1)*p, fmt.Sprintf("the same %d characters (%q) %d times in a row", p, text.ShortenRunes(unit, 40, "…"), k)
}

// runawayIn checks a reply's text, which delta has just added to: by
// lines when delta ends one, and by bytes.
func runawayIn(delta, text string) (keep int, what string) {
	if delta == "" {
		return 0, ""
	}
	if strings.Contains(delta, "\n") {
		if keep, what := runawayTail(text); keep > 0 {
			return keep, what
		}
	}
	return runawayRun(text)
}
