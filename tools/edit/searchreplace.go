package edit

import (
	"strings"

	"github.com/agentls/agentls/edits"
	"github.com/agentls/agentls/tools"
)

// A SearchReplace is an aider-style edit: a fenced block of SEARCH/REPLACE
// hunks (the conflict-marker format with <<<<<<< SEARCH and >>>>>>>
// REPLACE), for the file named on the line before the block, on the
// block's first line, or in its language tag:
//
//	path/to/file.py
//	```python
//	<<<<<<< SEARCH
//	…
//	=======
//	…
//	>>>>>>> REPLACE
//	```
type SearchReplace struct {
	Path  string
	Patch string
	Start int // the block's offset in the reply
}

// FindSearchReplace returns the SEARCH/REPLACE blocks among a reply's
// fenced blocks that are not tool calls (a ```patch block is run as patch).
func FindSearchReplace(reply string, blocks []tools.Block, isTool func(tools.Block) bool) []SearchReplace {
	var out []SearchReplace
	prevEnd := 0
	for _, b := range blocks {
		before := reply[prevEnd:b.Start]
		prevEnd = b.End
		if isTool(b) {
			continue
		}
		lines := strings.SplitN(b.Content, "\n", 3)
		body := b.Content
		path := ""
		switch {
		case len(lines) > 0 && edits.IsOriginalMarker(lines[0]) && strings.Contains(strings.ToUpper(lines[0]), "SEARCH"):
			path = lastLinePath(before)
			if path == "" && looksLikePath(b.Lang) {
				path = b.Lang
			}
		case len(lines) > 1 && looksLikePath(strings.TrimSpace(lines[0])) && edits.IsOriginalMarker(lines[1]) && strings.Contains(strings.ToUpper(lines[1]), "SEARCH"):
			path = strings.TrimSpace(lines[0])
			body = strings.SplitN(b.Content, "\n", 2)[1]
		default:
			continue
		}
		if path != "" {
			out = append(out, SearchReplace{Path: path, Patch: body, Start: b.Start})
		}
	}
	return out
}

// lastLinePath returns the last non-blank line of text if it names a file,
// without the decoration models add (`a.go`, **a.go**, a.go:).
func lastLinePath(text string) string {
	lines := strings.Split(strings.TrimRight(text, " \t\r\n"), "\n")
	p := strings.Trim(strings.TrimSpace(lines[len(lines)-1]), "`*:#")
	p = strings.TrimSpace(p)
	if looksLikePath(p) {
		return p
	}
	return ""
}

// looksLikePath reports whether s could be a file path: one word with a
// dot or a slash in it.
func looksLikePath(s string) bool {
	return s != "" && len(s) < 256 && !strings.ContainsAny(s, " \t") && strings.ContainsAny(s, "./")
}
