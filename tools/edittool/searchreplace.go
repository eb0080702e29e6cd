package edittool

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/agentls/agentls/edits"
	"github.com/agentls/agentls/tools/parse"
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
// The file may also be the only line of a fenced block right before (some
// models fence the file name too). A block whose file is named nowhere is
// returned with an empty Path, so that it is refused rather than silently
// not applied.
func FindSearchReplace(reply string, blocks []parse.Block, isTool func(parse.Block) bool) []SearchReplace {
	var out []SearchReplace
	prevEnd := 0
	prevPath := "" // the previous block's content, if it is one path and ends right before
	for _, b := range blocks {
		before := reply[prevEnd:b.Start]
		prevEnd = b.End
		fencedPath := prevPath
		prevPath = ""
		if isTool(b) {
			continue
		}
		if p := strings.TrimSpace(b.Content); looksLikePath(p) && !strings.Contains(p, "\n") {
			prevPath = p
		}
		lines := strings.SplitN(b.Content, "\n", 3)
		body := b.Content
		path := ""
		switch {
		case len(lines) > 0 && edits.IsOriginalMarker(lines[0]) && strings.Contains(strings.ToUpper(lines[0]), "SEARCH"):
			path = lastLinePath(before)
			if path == "" && strings.TrimSpace(before) == "" {
				path = fencedPath
			}
			if path == "" && looksLikePath(b.Lang) {
				path = b.Lang
			}
		case len(lines) > 1 && looksLikePath(strings.TrimSpace(lines[0])) && edits.IsOriginalMarker(lines[1]) && strings.Contains(strings.ToUpper(lines[1]), "SEARCH"):
			path = strings.TrimSpace(lines[0])
			body = strings.SplitN(b.Content, "\n", 2)[1]
		default:
			continue
		}
		out = append(out, SearchReplace{Path: path, Patch: body, Start: b.Start})
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

// SearchReplace applies a SEARCH/REPLACE block's hunks to path. As in
// aider, a block whose SEARCH is empty creates a file that does not exist
// (an empty SEARCH may be written as one blank line, gptme's way). On a file
// that exists, an empty SEARCH fits only an empty file: aider appends to
// it, which a model that did not know the file was there never meant.
func (b *Batch) SearchReplace(ctx context.Context, path, patch string) (string, error) {
	if path == "" {
		return "", errNoSearchReplacePath
	}
	hunks, err := edits.ParseConflict(patch)
	if err != nil {
		return "", fmt.Errorf("SEARCH/REPLACE %s: %w", path, err)
	}
	f, err := b.read(ctx, path)
	if err != nil {
		return "", fmt.Errorf("SEARCH/REPLACE %s: %w", path, err)
	}
	emptySearch := isBlankText(hunks[0].Original)
	if emptySearch && len(hunks[0].Updated) > 0 {
		// aider writes every REPLACE line with its line break, so a new or
		// empty file ends with one; gptme's empty ORIGINAL gives exactly
		// UPDATED (edits.ApplyHunks), which would leave it off.
		hunks[0].Updated = append(slices.Clip(hunks[0].Updated), "")
	}
	switch {
	case !f.exists && !emptySearch:
		return "", fmt.Errorf("SEARCH/REPLACE %s: %s does not exist; to create it, leave SEARCH empty and put the whole content in REPLACE (or check the path)", f.path, f.path)
	case !f.exists:
		result, err := edits.ApplyHunks("", hunks)
		if err != nil {
			return "", fmt.Errorf("SEARCH/REPLACE %s: %w", f.path, err)
		}
		b.write(f, result)
		return "Created " + f.path, nil
	case emptySearch && strings.TrimPrefix(f.content, bom) != "":
		return "", fmt.Errorf("SEARCH/REPLACE %s: SEARCH is empty, which creates a new file, but %s exists and is not empty; to change it, put the lines to replace in SEARCH, copied from the file (read it first)", f.path, f.path)
	case emptySearch:
		// An empty file: patched as Patch does, with the hunks read the
		// aider way.
		es, err := edits.ResolveHunks(f.content, hunks)
		if err != nil {
			return "", fmt.Errorf("SEARCH/REPLACE %s: %w", f.path, err)
		}
		if err := b.writeEdits(f, es); err != nil {
			return "", fmt.Errorf("SEARCH/REPLACE %s: %w", f.path, err)
		}
		return fmt.Sprintf("Patch applied to %s (%d %s)", f.path, len(hunks), plural(len(hunks), "hunk", "hunks")), nil
	}
	return b.Patch(ctx, path, patch)
}

// isBlankText reports whether lines hold nothing but whitespace.
func isBlankText(lines []string) bool {
	for _, l := range lines {
		if strings.TrimSpace(l) != "" {
			return false
		}
	}
	return true
}

// errNoSearchReplacePath is the message for a SEARCH/REPLACE block that
// names no file.
var errNoSearchReplacePath = errors.New("the block names no file: write the file's path alone on the line just before the opening fence")
