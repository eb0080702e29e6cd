package rag

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/agentls/agentls/internal/text"
)

// A passage is a file found and the window of its lines that best
// matches the query.
type passage struct {
	hit
	lines       []string // the file's lines; nil when it is no longer readable
	first, last int      // the window: lines[first:last]
}

// passages reads each file found and picks its best window.
func passages(root string, hits []hit, weights map[string]float64, buffers map[string]string) []passage {
	ps := make([]passage, 0, len(hits))
	for _, h := range hits {
		p := passage{hit: h}
		content, ok := []byte(buffers[h.Path]), false
		if _, open := buffers[h.Path]; open {
			ok = true
		} else {
			content, ok = readText(root, fileInfo{Path: h.Path})
		}
		if ok {
			p.lines = splitLines(content)
			p.first, p.last = bestWindow(p.lines, weights, snippetLines)
		}
		ps = append(ps, p)
	}
	return ps
}

// render writes the result: each passage with its line numbers, until
// maxResultBytes.
func render(query string, ps []passage, indexed int, how, note string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d files for %q (%s over %d files indexed)%s:\n", len(ps), query, how, indexed, note)
	for shown, p := range ps {
		var section strings.Builder
		if p.lines == nil {
			fmt.Fprintf(&section, "\n%s (score %.1f; no longer readable)\n", p.Path, p.Score)
		} else {
			fmt.Fprintf(&section, "\n%s lines %d-%d (score %.1f):\n", p.Path, p.first+1, p.last, p.Score)
			for i := p.first; i < p.last; i++ {
				line := p.lines[i]
				if len(line) > maxLineBytes {
					line = text.Clip(line, maxLineBytes) + "…"
				}
				fmt.Fprintf(&section, "%5d  %s\n", i+1, line)
			}
		}
		if b.Len()+section.Len() > maxResultBytes {
			fmt.Fprintf(&b, "\n(%d more files left out to keep this short: ask a narrower question)\n", len(ps)-shown)
			break
		}
		b.WriteString(section.String())
	}
	return b.String()
}

// splitLines splits text into lines without their endings.
func splitLines(text []byte) []string {
	text = bytes.TrimSuffix(text, []byte("\n"))
	lines := strings.Split(string(text), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "\r")
	}
	return lines
}

// bestWindow returns the lines [first, last) of the window of at most size
// lines whose query words weigh the most: each distinct word the window
// holds counts its idf, and each further occurrence a tenth of it, so a
// window holding all the words beats one repeating a single word. With no
// word anywhere (a file found by its path) it is the file's start.
func bestWindow(lines []string, weights map[string]float64, size int) (first, last int) {
	if len(lines) <= size {
		return 0, len(lines)
	}
	perLine := make([]map[string]int, len(lines))
	var tk tokenizer
	for i, l := range lines {
		tk.run([]byte(l), func(w []byte) {
			if _, ok := weights[string(w)]; ok {
				if perLine[i] == nil {
					perLine[i] = map[string]int{}
				}
				perLine[i][string(w)]++
			}
		})
	}
	counts := map[string]int{}
	score := func() float64 {
		s := 0.0
		for t, c := range counts {
			if c > 0 {
				s += weights[t] * (1 + 0.1*float64(c-1))
			}
		}
		return s
	}
	for i := 0; i < size; i++ {
		for t, c := range perLine[i] {
			counts[t] += c
		}
	}
	best, bestStart := score(), 0
	for start := 1; start+size <= len(lines); start++ {
		for t, c := range perLine[start-1] {
			counts[t] -= c
		}
		for t, c := range perLine[start+size-1] {
			counts[t] += c
		}
		if perLine[start+size-1] == nil && perLine[start-1] == nil {
			continue // same words as the window before
		}
		if s := score(); s > best {
			best, bestStart = s, start
		}
	}
	// Start the window a line before its first match, when there is room,
	// so the passage reads from its context.
	for bestStart+1 < len(lines) && perLine[bestStart] == nil && bestStart+size < len(lines) {
		bestStart++
	}
	if bestStart > 0 {
		bestStart--
	}
	return bestStart, min(bestStart+size, len(lines))
}
