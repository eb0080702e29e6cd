package edits

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Unified diffs, the shape chat models answer "change this file" with most:
//
//	diff --git a/a.go b/a.go        (git's, with its extended headers:
//	index 83db48f..bf269f4 100644    index, new/deleted file mode,
//	--- a/a.go                       rename from/to, similarity index)
//	+++ b/a.go
//	@@ -1,4 +1,4 @@ func main() {
//	 context
//	-removed
//	+added
//
// and plain ones (`--- a.go` / `+++ a.go`, timestamps after the name), or
// bare `@@` hunks with no header at all, for the file the reply names
// elsewhere. ParseUnifiedDiff returns them in V4A's shape so that they
// are applied the same way: a hunk's context and '-' lines are ORIGINAL,
// its context and '+' lines UPDATED, matched by content through the same
// tiers and uniqueness rules. The `@@` line numbers are ignored, since
// models get them wrong more often than right; so are the counts, and a
// hunk ends where the next hunk or file header starts. What models drop
// is forgiven: the leading space of a blank context line, the `a/` `b/`
// prefixes of a git diff without its `diff --git` line, CRLF line ends.

// ParseUnifiedDiff reads a unified diff holding one or more files and one
// or more hunks per file. `/dev/null` (or git's "new file mode" / "deleted
// file mode") makes an Add or a Delete; a name that changes (or git's
// "rename from/to") an Update with MoveTo. An added file's Content is its
// '+' lines; a deleted file keeps its '-' lines as Hunks (with no
// UPDATED), so that the caller can check they are what the file holds.
// Hunks that come before any file header form a file with an empty Path,
// which the caller fills from what the reply names. A hunk with no context
// and no '-' line has an empty ORIGINAL: only the caller, which sees the
// file, knows whether it can be placed (only in an empty file).
func ParseUnifiedDiff(diff string) ([]V4AFile, error) {
	lines := strings.Split(diff, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "\r")
	}
	if n := len(lines); n > 0 && lines[n-1] == "" {
		lines = lines[:n-1]
	}
	p := &udParser{lines: lines}
	if err := p.parse(); err != nil {
		return nil, err
	}
	if len(p.files) == 0 {
		return nil, fmt.Errorf("the diff holds no hunk (\"@@ ... @@\" followed by ' ', '-' and '+' lines) and no file header (\"--- a.go\" / \"+++ a.go\")")
	}
	return p.files, nil
}

// udParser reads a unified diff line by line.
type udParser struct {
	lines []string
	files []V4AFile
	cur   *udFile
}

// udFile is one file section as read, before it becomes a V4AFile.
type udFile struct {
	line            int    // of its first header line (1-based)
	git             bool   // it started with "diff --git"
	gitOld, gitNew  string // the names on the "diff --git" line
	oldPath         string // from "--- ", "" when absent
	newPath         string // from "+++ "
	renameFrom      string
	renameTo        string
	created         bool // "new file mode"
	deleted         bool // "deleted file mode"
	modeOnly        bool // an "old mode"/"new mode" pair
	hunks           []udHunk
	addNoNewlineEnd bool // a "\ No newline" after the last '+' line
}

// namesFit reports whether the names of "--- "/"+++ " lines belong to
// this section: under a "diff --git" line they are its names (or
// /dev/null); otherwise they start the next file.
func (f *udFile) namesFit(oldP, newP string) bool {
	if !f.git {
		return true
	}
	fits := func(p, git, prefix string) bool {
		return p == devNull || strings.TrimPrefix(p, prefix) == strings.TrimPrefix(git, prefix)
	}
	return fits(oldP, f.gitOld, "a/") && fits(newP, f.gitNew, "b/")
}

// udHunk is one hunk as read.
type udHunk struct {
	Hunk
	changes      bool // it has a '-' or '+' line
	trailBlanks  int  // blank lines at its end that had no leading space
	lastSide     byte // ' ', '-' or '+': the side of its last line
	noNewlineNew bool // the new side's last line has no line break
	// remOld and remNew are the lines its header's counts still expect
	// on each side (0 when the header has none).
	remOld, remNew int
}

func (p *udParser) parse() error {
	for i := 0; i < len(p.lines); i++ {
		l := p.lines[i]
		switch {
		case strings.HasPrefix(l, "diff --git "):
			if err := p.startFile(i); err != nil {
				return err
			}
			p.cur.git = true
			p.cur.gitOld, p.cur.gitNew = splitGitNames(strings.TrimPrefix(l, "diff --git "))
		case strings.HasPrefix(l, "diff ") || strings.HasPrefix(l, "Index: "):
			// diff -u a b, diff -r …, svn's Index: the ---/+++ lines name the files.
			if err := p.startFile(i); err != nil {
				return err
			}
		case strings.HasPrefix(l, "--- ") && i+1 < len(p.lines) && strings.HasPrefix(p.lines[i+1], "+++ ") && p.headerAt(i):
			oldP, newP := diffName(strings.TrimPrefix(l, "--- ")), diffName(strings.TrimPrefix(p.lines[i+1], "+++ "))
			if p.cur == nil || len(p.cur.hunks) > 0 || p.cur.oldPath != "" || p.cur.newPath != "" || !p.cur.namesFit(oldP, newP) {
				if err := p.startFile(i); err != nil {
					return err
				}
			}
			p.cur.oldPath, p.cur.newPath = oldP, newP
			i++
		case strings.HasPrefix(l, "@@"):
			if p.cur == nil {
				p.cur = &udFile{line: i + 1} // bare hunks: the file is named elsewhere
			}
			if strings.HasPrefix(l, "@@@") {
				return fmt.Errorf("line %d: a combined diff (\"@@@\", of a merge) cannot be applied: %q", i+1, clip(l))
			}
			h := udHunk{Hunk: Hunk{Line: i + 1}}
			if m := hunkCounts.FindStringSubmatch(l); m != nil {
				h.remOld, h.remNew = count(m[1]), count(m[2])
			}
			p.cur.hunks = append(p.cur.hunks, h)
		case p.inHunk():
			if err := p.hunkLine(i, l); err != nil {
				return err
			}
		case p.cur != nil && p.extendedHeader(l):
		case l == "" || strings.HasPrefix(l, "====="):
			// Blank lines between files; svn's "=====" under Index:.
		case strings.HasPrefix(l, "Binary files ") || l == "GIT binary patch":
			return fmt.Errorf("line %d: binary diffs cannot be applied: %q", i+1, clip(l))
		default:
			return fmt.Errorf("line %d: expected a diff header (\"diff --git\", \"--- a.go\" then \"+++ a.go\") or a hunk (\"@@ ... @@\"), found %q", i+1, clip(l))
		}
	}
	return p.finish()
}

// hunkCounts reads the line counts of a hunk header ("@@ -1,3 +1,4 @@";
// a count left out is 1).
var hunkCounts = regexp.MustCompile(`^@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@`)

func count(s string) int {
	if s == "" {
		return 1
	}
	n, _ := strconv.Atoi(s)
	return n
}

// headerAt reports whether the "--- "/"+++ " pair at line i is a file
// header rather than a removed "-- " line and an added "++ " one. Inside
// a hunk whose counts say more lines are due, only a pair followed by a
// hunk header is one; elsewhere any pair is (the counts models write are
// often wrong, so they only break this tie).
func (p *udParser) headerAt(i int) bool {
	if !p.inHunk() {
		return true
	}
	h := p.cur.hunks[len(p.cur.hunks)-1]
	if h.remOld <= 0 && h.remNew <= 0 {
		return true
	}
	return i+2 < len(p.lines) && strings.HasPrefix(p.lines[i+2], "@@")
}

// inHunk reports whether the lines read now belong to a hunk.
func (p *udParser) inHunk() bool { return p.cur != nil && len(p.cur.hunks) > 0 }

// hunkLine reads one line of the current hunk.
func (p *udParser) hunkLine(i int, l string) error {
	h := &p.cur.hunks[len(p.cur.hunks)-1]
	if l != "" && l[0] != '\\' {
		h.trailBlanks = 0
	}
	switch {
	case l == "":
		// A blank context line whose leading space the model dropped.
		h.Original = append(h.Original, "")
		h.Updated = append(h.Updated, "")
		h.trailBlanks++
		h.lastSide = ' '
		h.remOld, h.remNew = h.remOld-1, h.remNew-1
	case l[0] == ' ':
		h.Original = append(h.Original, l[1:])
		h.Updated = append(h.Updated, l[1:])
		h.lastSide = ' '
		h.remOld, h.remNew = h.remOld-1, h.remNew-1
	case l[0] == '-':
		h.Original = append(h.Original, l[1:])
		h.changes = true
		h.lastSide = '-'
		h.remOld--
	case l[0] == '+':
		h.Updated = append(h.Updated, l[1:])
		h.changes = true
		h.lastSide = '+'
		h.remNew--
	case l[0] == '\\':
		// "\ No newline at end of file": the line before ends its side
		// without a line break. The engine keeps the file's final-newline
		// state, so only an added file's content uses it.
		if h.lastSide == '+' || h.lastSide == ' ' {
			h.noNewlineNew = true
		}
	default:
		return fmt.Errorf("line %d: a hunk line starts with ' ' (unchanged), '-' (removed) or '+' (added): %q", i+1, clip(l))
	}
	return nil
}

// extendedHeader reads one of git's extended header lines.
func (p *udParser) extendedHeader(l string) bool {
	f := p.cur
	switch {
	case strings.HasPrefix(l, "index "), strings.HasPrefix(l, "similarity index "), strings.HasPrefix(l, "dissimilarity index "):
	case strings.HasPrefix(l, "new file mode"):
		f.created = true
	case strings.HasPrefix(l, "deleted file mode"):
		f.deleted = true
	case strings.HasPrefix(l, "old mode "), strings.HasPrefix(l, "new mode "):
		f.modeOnly = true
	case strings.HasPrefix(l, "rename from "):
		f.renameFrom = unquoteName(strings.TrimPrefix(l, "rename from "))
	case strings.HasPrefix(l, "rename to "):
		f.renameTo = unquoteName(strings.TrimPrefix(l, "rename to "))
	default:
		return false
	}
	return true
}

// startFile ends the current file section and starts a new one at line i.
func (p *udParser) startFile(i int) error {
	if err := p.flush(); err != nil {
		return err
	}
	p.cur = &udFile{line: i + 1}
	return nil
}

func (p *udParser) finish() error { return p.flush() }

// flush turns the current section into a V4AFile.
func (p *udParser) flush() error {
	f := p.cur
	p.cur = nil
	if f == nil {
		return nil
	}
	oldP, newP := f.oldPath, f.newPath
	if oldP == "" && newP == "" && f.git {
		oldP, newP = f.gitOld, f.gitNew
		if f.created {
			oldP = devNull
		}
		if f.deleted {
			newP = devNull
		}
	}
	if f.git || hasPrefixOrNull(oldP, "a/") && hasPrefixOrNull(newP, "b/") && (oldP != devNull || newP != devNull) {
		oldP, newP = strings.TrimPrefix(oldP, "a/"), strings.TrimPrefix(newP, "b/")
	}
	if f.renameFrom != "" {
		oldP = f.renameFrom
	}
	if f.renameTo != "" {
		newP = f.renameTo
	}
	where := fmt.Sprintf("the diff at line %d", f.line)
	if name := firstNonNull(newP, oldP); name != "" {
		where = "the diff for " + name
	}
	var hunks []Hunk
	for _, h := range f.hunks {
		if !h.changes {
			continue // context only: it changes nothing
		}
		if h.trailBlanks > 0 {
			// Blank lines after the last change, without their leading
			// space, are the gap before the next file as often as
			// context: context is optional, so they are left out.
			h.Original = h.Original[:len(h.Original)-h.trailBlanks]
			h.Updated = h.Updated[:len(h.Updated)-h.trailBlanks]
		}
		hunks = append(hunks, h.Hunk)
		f.addNoNewlineEnd = h.noNewlineNew
	}
	switch {
	case oldP == devNull && newP == devNull:
		return fmt.Errorf("%s: both names are /dev/null", where)
	case oldP == devNull || f.created && oldP == newP:
		v := V4AFile{Op: V4AAdd, Path: newP}
		var lines []string
		for i, h := range hunks {
			if len(h.Original) > 0 {
				return fmt.Errorf("%s: it creates the file (/dev/null before it), but hunk %d has unchanged or '-' lines; a new file's lines all start with '+'", where, i+1)
			}
			lines = append(lines, h.Updated...)
		}
		if len(lines) > 0 {
			v.Content = strings.Join(lines, "\n")
			if !f.addNoNewlineEnd {
				v.Content += "\n"
			}
		}
		p.files = append(p.files, v)
	case newP == devNull || f.deleted && oldP == newP:
		for i, h := range hunks {
			if len(h.Updated) > 0 {
				return fmt.Errorf("%s: it deletes the file (/dev/null after it), but hunk %d has unchanged or '+' lines; a deleted file's lines all start with '-'", where, i+1)
			}
		}
		p.files = append(p.files, V4AFile{Op: V4ADelete, Path: oldP, Hunks: hunks})
	default:
		v := V4AFile{Op: V4AUpdate, Path: oldP, Hunks: hunks}
		if newP != "" && oldP != "" && newP != oldP {
			v.MoveTo = newP
		}
		if v.Path == "" {
			v.Path = newP
		}
		if len(v.Hunks) == 0 && v.MoveTo == "" {
			if f.modeOnly {
				return fmt.Errorf("%s: it only changes the file's mode, which is not applied; leave it out", where)
			}
			return fmt.Errorf("%s: it has no hunk that changes a line (no '-' or '+' line)", where)
		}
		p.files = append(p.files, v)
	}
	return nil
}

const devNull = "/dev/null"

func hasPrefixOrNull(p, prefix string) bool { return p == devNull || strings.HasPrefix(p, prefix) }

func firstNonNull(ps ...string) string {
	for _, p := range ps {
		if p != "" && p != devNull {
			return p
		}
	}
	return ""
}

// diffTimestamp is the date diff -u writes after a name, when a model
// separates it with spaces instead of a tab.
var diffTimestamp = regexp.MustCompile(`\s+(\d{4}-\d\d-\d\d[ T]\d\d?:\d\d|(Mon|Tue|Wed|Thu|Fri|Sat|Sun) [A-Z][a-z]{2} +\d).*$`)

// diffName returns the file name of a "--- " or "+++ " line: without the
// timestamp after it, unquoted.
func diffName(s string) string {
	if i := strings.IndexByte(s, '\t'); i >= 0 {
		s = s[:i]
	}
	s = diffTimestamp.ReplaceAllString(s, "")
	return unquoteName(strings.TrimSpace(s))
}

// unquoteName undoes git's C-style quoting of a name with unusual bytes.
func unquoteName(s string) string {
	s = strings.TrimSpace(s)
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		if u, err := strconv.Unquote(s); err == nil {
			return u
		}
	}
	return s
}

// splitGitNames splits the names of a "diff --git a/x b/x" line, which
// are used only when no ---/+++ lines follow (a pure rename, an empty new
// file). Unquoted names with spaces are split where both halves name the
// same file, else before the last " b/".
func splitGitNames(s string) (string, string) {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, `"`) {
		if end := strings.Index(s[1:], `"`); end >= 0 {
			return unquoteName(s[:end+2]), unquoteName(s[end+2:])
		}
	}
	if n := len(s); n%2 == 1 {
		a, b := s[:n/2], s[n/2+1:]
		if s[n/2] == ' ' && strings.TrimPrefix(a, "a/") == strings.TrimPrefix(b, "b/") {
			return a, b
		}
	}
	if i := strings.LastIndex(s, " b/"); i >= 0 {
		return s[:i], s[i+1:]
	}
	a, b, _ := strings.Cut(s, " ")
	return a, b
}
