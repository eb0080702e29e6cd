package diagnose

import (
	"regexp"
	"strings"

	"github.com/agentls/agentls/internal/text"
)

// maxLineLen bounds a line handed to the parsers. errorformat reads with a
// bufio.Scanner that silently stops at its 64 KiB token limit, which would
// lose every diagnostic after one long line (minified JavaScript, a JSON
// blob); no diagnostic needs more than the first few KiB of a line.
const maxLineLen = 4096

// output is a command's output made ready for parsing: escape sequences
// and carriage-return overdraws removed, lines cut to maxLineLen, and
// split where make changes directory.
type output struct {
	lines    []string
	segments []segment
}

// A segment is a run of lines whose relative paths are relative to dir
// ("" for the command's own directory), as `make -C` or recursive make
// announce with "Entering directory".
type segment struct {
	dir        string
	start, end int // lines[start:end]
}

var makeDirectory = regexp.MustCompile(`^\S*make(?:\[\d+\])?: (Entering|Leaving) directory [‘'"` + "`" + `](.*)[’'"]$`)

func splitOutput(text string) output {
	raw := strings.Split(text, "\n")
	if n := len(raw); n > 0 && raw[n-1] == "" {
		raw = raw[:n-1]
	}
	out := output{lines: make([]string, 0, len(raw))}
	var dirs []string // make's directory stack
	start := 0
	cut := func(next int) {
		if next > start {
			dir := ""
			if len(dirs) > 0 {
				dir = dirs[len(dirs)-1]
			}
			out.segments = append(out.segments, segment{dir: dir, start: start, end: next})
		}
		start = next
	}
	for _, line := range raw {
		line = cleanLine(line)
		if entering, dir, ok := makeChangesDirectory(line); ok {
			cut(len(out.lines))
			if entering {
				dirs = append(dirs, dir)
			} else if len(dirs) > 0 {
				dirs = dirs[:len(dirs)-1]
			}
		}
		out.lines = append(out.lines, line)
	}
	cut(len(out.lines))
	return out
}

// makeChangesDirectory reads make's "Entering directory 'x'" and "Leaving
// directory 'x'" lines.
func makeChangesDirectory(line string) (entering bool, dir string, ok bool) {
	if !strings.Contains(line, " directory ") { // keeps the regexp off ordinary lines
		return false, "", false
	}
	m := makeDirectory.FindStringSubmatch(line)
	if m == nil {
		return false, "", false
	}
	return m[1] == "Entering", m[2], true
}

// cleanLine returns what a terminal would show of line: the text after
// its last carriage return (progress bars redraw the line; a CRLF line
// ending leaves an empty tail, so trailing ones are dropped first),
// without escape sequences (colours, gcc's OSC 8 hyperlinks), and cut to
// maxLineLen.
func cleanLine(line string) string {
	line = strings.TrimRight(line, "\r")
	if i := strings.LastIndexByte(line, '\r'); i >= 0 {
		line = line[i+1:]
	}
	if strings.IndexByte(line, 0x1b) >= 0 {
		line = text.StripEscapes(line)
	}
	if len(line) > maxLineLen {
		line = line[:maxLineLen]
	}
	return line
}

// text returns the lines of seg joined for an errorformat scanner.
func (o output) text(seg segment) string {
	return strings.Join(o.lines[seg.start:seg.end], "\n")
}
