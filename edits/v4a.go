package edits

import (
	"fmt"
	"strings"
)

// OpenAI's apply_patch format ("V4A"), which GPT models are trained on:
//
//	*** Begin Patch
//	*** Add File: path        then every line prefixed with "+"
//	*** Delete File: path
//	*** Update File: path
//	*** Move to: new/path     (optional)
//	@@ func main() {          (optional scope lines, stackable)
//	 context line
//	-removed line
//	+added line
//	*** End of File           (optional: the chunk ends at the end of the file)
//	*** End Patch
//
// Chunks become Hunks for the same matcher as every other format: context
// and removed lines are ORIGINAL, context and added lines UPDATED, so the
// same tiers, uniqueness checks and byte-exactness apply. The parser is
// lenient where models are sloppy (markers with extra spaces, a heredoc
// wrapper, a missing "*** End Patch", a first chunk without "@@", blank
// lines without their " " prefix).

// A V4AOp is what a V4A file section does.
type V4AOp int

const (
	V4AUpdate V4AOp = iota
	V4AAdd
	V4ADelete
)

// A V4AFile is one file section of a V4A patch.
type V4AFile struct {
	Op      V4AOp
	Path    string
	MoveTo  string // for an update that also renames the file
	Hunks   []Hunk // for an update
	Content string // for an add
}

// ParseV4A reads a V4A patch.
func ParseV4A(patch string) ([]V4AFile, error) {
	lines := splitContent(strings.TrimSpace(patch))
	// A heredoc wrapper: apply_patch <<'EOF' ... EOF.
	if len(lines) > 0 && strings.Contains(lines[0], "<<") && !strings.HasPrefix(strings.TrimSpace(lines[0]), "***") {
		lines = lines[1:]
		if n := len(lines); n > 0 && !strings.HasPrefix(strings.TrimSpace(lines[n-1]), "***") {
			lines = lines[:n-1]
		}
	}
	i := 0
	for i < len(lines) && strings.TrimSpace(lines[i]) == "" {
		i++
	}
	if i >= len(lines) || v4aMarker(lines[i]) != "begin patch" {
		return nil, fmt.Errorf("line %d: a patch starts with \"*** Begin Patch\"", i+1)
	}
	i++
	var files []V4AFile
	for i < len(lines) {
		l := lines[i]
		m := v4aMarker(l)
		switch {
		case m == "end patch":
			return checkV4A(files)
		case strings.HasPrefix(m, "add file:"):
			f := V4AFile{Op: V4AAdd, Path: markerArg(l)}
			var b strings.Builder
			for i++; i < len(lines) && v4aMarker(lines[i]) == ""; i++ {
				if !strings.HasPrefix(lines[i], "+") {
					return nil, fmt.Errorf("line %d: every line of an added file starts with \"+\": %q", i+1, clip(lines[i]))
				}
				b.WriteString(lines[i][1:] + "\n")
			}
			f.Content = b.String()
			files = append(files, f)
			continue
		case strings.HasPrefix(m, "delete file:"):
			files = append(files, V4AFile{Op: V4ADelete, Path: markerArg(l)})
			i++
			continue
		case strings.HasPrefix(m, "update file:"):
			f := V4AFile{Op: V4AUpdate, Path: markerArg(l)}
			i++
			if i < len(lines) && strings.HasPrefix(v4aMarker(lines[i]), "move to:") {
				f.MoveTo = markerArg(lines[i])
				i++
			}
			hunks, next, err := parseV4AChunks(lines, i)
			if err != nil {
				return nil, fmt.Errorf("update %s: %w", f.Path, err)
			}
			f.Hunks, i = hunks, next
			files = append(files, f)
			continue
		case strings.TrimSpace(l) == "":
			i++
			continue
		}
		return nil, fmt.Errorf("line %d: expected a file header (\"*** Update File: path\", \"*** Add File: path\", \"*** Delete File: path\") or \"*** End Patch\", found %q", i+1, clip(l))
	}
	return checkV4A(files) // a missing "*** End Patch" is forgiven
}

func checkV4A(files []V4AFile) ([]V4AFile, error) {
	if len(files) == 0 {
		return nil, fmt.Errorf("the patch changes no file")
	}
	for _, f := range files {
		if f.Path == "" {
			return nil, fmt.Errorf("a file header has no path")
		}
		if f.Op == V4AUpdate && len(f.Hunks) == 0 && f.MoveTo == "" {
			return nil, fmt.Errorf("update %s: no changes", f.Path)
		}
	}
	return files, nil
}

// parseV4AChunks reads an update's chunks from lines[i:], up to the next
// file header or the end.
func parseV4AChunks(lines []string, i int) ([]Hunk, int, error) {
	var hunks []Hunk
	var cur *Hunk
	changes := false // cur has a "-" or "+" line
	flush := func() {
		if cur != nil && changes {
			if len(cur.Original) == 0 && len(cur.Scope) == 0 {
				cur.AtEOF = true // a bare addition goes at the end, as Codex puts it
			}
			hunks = append(hunks, *cur)
		}
		cur, changes = nil, false
	}
	for ; i < len(lines); i++ {
		l := lines[i]
		m := v4aMarker(l)
		switch {
		case m == "end of file":
			if cur != nil {
				cur.AtEOF = true
			}
			flush()
			continue
		case m != "":
			flush()
			return hunks, i, nil
		case strings.HasPrefix(l, "@@"):
			// A scope line starts a new chunk, unless it stacks on a chunk
			// that has no lines yet.
			if cur != nil && (len(cur.Original) > 0 || len(cur.Updated) > 0) {
				flush()
			}
			if cur == nil {
				cur = &Hunk{Line: i + 1}
			}
			if scope := strings.TrimSpace(l[2:]); scope != "" {
				cur.Scope = append(cur.Scope, scope)
			}
			continue
		}
		if cur == nil {
			cur = &Hunk{Line: i + 1}
		}
		switch {
		case strings.HasPrefix(l, "+"):
			cur.Updated = append(cur.Updated, l[1:])
			changes = true
		case strings.HasPrefix(l, "-"):
			cur.Original = append(cur.Original, l[1:])
			changes = true
		case strings.HasPrefix(l, " "):
			cur.Original = append(cur.Original, l[1:])
			cur.Updated = append(cur.Updated, l[1:])
		case l == "":
			cur.Original = append(cur.Original, "")
			cur.Updated = append(cur.Updated, "")
		default:
			return nil, i, fmt.Errorf("line %d: a change line starts with \" \", \"-\" or \"+\": %q", i+1, clip(l))
		}
	}
	flush()
	return hunks, i, nil
}

// v4aMarker returns the lower-cased text of a "*** ..." line, or "".
func v4aMarker(l string) string {
	t := strings.TrimSpace(l)
	if !strings.HasPrefix(t, "***") {
		return ""
	}
	return strings.ToLower(strings.Join(strings.Fields(strings.TrimLeft(t, "*")), " "))
}

// markerArg returns the path after a "*** Xxx File:" marker.
func markerArg(l string) string {
	_, arg, _ := strings.Cut(l, ":")
	return strings.TrimSpace(arg)
}
