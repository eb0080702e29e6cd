package policy

import (
	"fmt"
	"os"
	"path"
	"regexp"
	"strings"

	"mvdan.cc/sh/v3/pattern"
)

// Patterns are matched as bash matches them, never with Go's path.Match,
// which reads bash's `[!x]` as a class holding `!` and `x`, and
// `[[:punct:]]` as a class of `[:punct:` followed by a `]`: to bash both
// match `.`, so `ls .[!x]` lists `..` on bash before 5.2 (globskipdots).
// The translation is mvdan.cc/sh/v3/pattern's.
//
// Where a shell option of the session's bash could widen what a pattern
// matches, the widest reading is taken, since an earlier approved command
// may have set it (`shopt -s dotglob nocaseglob globstar`): on disk `*`
// also matches dotfiles, case is ignored, `**` descends into directories,
// and a pattern starting with a dot (or a bracket or escape that can be
// one) also matches `.` and `..` (bash < 5.2). What is matched that way is
// judged like any path the command reads (workspace.go); a match through
// `..` asks, as a written `..` does.

// patternOpts are the options a pattern is translated with: whole names,
// case ignored, extended operators (`@(…)`, `?(…)`, `*(…)`, `+(…)`).
const patternOpts = pattern.EntireString | pattern.NoGlobCase | pattern.ExtendedOperators

// compilePattern turns one path element of a bash pattern into a regexp.
// `!(…)` cannot be translated: it returns an error, and the caller takes
// the worst case.
func compilePattern(elem string) (*regexp.Regexp, error) {
	expr, err := pattern.Regexp(elem, patternOpts)
	if err != nil {
		return nil, err
	}
	return regexp.Compile(expr)
}

// bashMatch reports whether the pattern elem can match name, ignoring
// bash's rule that a leading dot must be matched by a dot (dotglob):
// globMatch for the common patterns, which allocates nothing, else
// mvdan.cc/sh's translation. A pattern that cannot be translated
// (`!(…)`) can match anything.
func bashMatch(elem, name string) bool {
	if m, ok := globMatch(elem, name); ok {
		return m
	}
	re, err := compilePattern(elem)
	if err != nil {
		return true
	}
	return re.MatchString(name)
}

// quotePattern escapes s so that it matches itself as a bash pattern,
// extended operators included.
func quotePattern(s string) string {
	if !strings.ContainsAny(s, `*?[]\@+!()|`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if strings.IndexByte(`*?[]\@+!()|`, s[i]) >= 0 {
			b.WriteByte('\\')
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// hasGlobMeta reports whether a pattern element holds an unescaped
// pattern character, so that bash matches it against directory entries.
func hasGlobMeta(elem string) bool {
	for i := 0; i < len(elem); i++ {
		switch elem[i] {
		case '\\':
			i++
		case '*', '?', '[':
			return true
		case '@', '+', '!':
			if i+1 < len(elem) && elem[i+1] == '(' {
				return true
			}
		}
	}
	return false
}

// unescapePattern is a pattern element without meta characters as the
// name it matches.
func unescapePattern(elem string) string {
	if !strings.Contains(elem, `\`) {
		return elem
	}
	var b strings.Builder
	for i := 0; i < len(elem); i++ {
		if elem[i] == '\\' && i+1 < len(elem) {
			i++
		}
		b.WriteByte(elem[i])
	}
	return b.String()
}

// mayMatchDots reports whether a pattern element may match `.` and `..`
// on a bash that still lists them (before 5.2): it must start with what
// can match a dot explicitly, and then match them.
func mayMatchDots(elem string) bool {
	if elem == "" || strings.IndexByte(`.[\`, elem[0]) < 0 && !extOperatorAt(elem, 0) {
		return false
	}
	return bashMatch(elem, "..") || bashMatch(elem, ".")
}

// extOperatorAt reports an extended operator (`@(`, `?(`, `*(`, `+(`,
// `!(`) at elem[i].
func extOperatorAt(elem string, i int) bool {
	return i+1 < len(elem) && elem[i+1] == '(' && strings.IndexByte("@?*+!", elem[i]) >= 0
}

// patternElems splits a pattern into its path elements: bash matches each
// against one directory's entries (a bracket never holds a slash).
func patternElems(p string) []string {
	return strings.Split(p, "/")
}

// globResult is what expanding a pattern on disk found.
type globResult struct {
	matches []string // paths matched, joined but not cleaned
	listed  []string // directories whose entries were read
	// dots reports a match through `.` or `..` matched by a pattern.
	dots bool
}

// expandGlob expands the bash pattern pat from the directory dir (clean,
// absolute), with the widest reading of bash's options (see above). It
// fails when the pattern matches more than maxGlobMatches paths. A `..`
// (written, or matched) is only reported in dots: joined lexically, it
// would hide where a symlink before it leads.
func expandGlob(dir, pat string) (globResult, error) {
	var r globResult
	cur := []string{dir}
	if strings.HasPrefix(pat, "/") {
		cur = []string{"/"}
	}
	for _, elem := range patternElems(pat) {
		if elem == "" {
			continue
		}
		if !hasGlobMeta(elem) {
			name := unescapePattern(elem)
			if name == ".." {
				r.dots = true
			}
			for i := range cur {
				cur[i] = path.Join(cur[i], name)
			}
			continue
		}
		var next []string
		if elem == "**" {
			for _, d := range cur {
				r.listed = append(r.listed, d)
				var err error
				if next, err = walkTree(d, next); err != nil {
					return r, err
				}
			}
		} else {
			dots := mayMatchDots(elem)
			for _, d := range cur {
				r.listed = append(r.listed, d)
				if dots {
					for _, name := range []string{".", ".."} {
						if bashMatch(elem, name) {
							next = append(next, path.Join(d, name))
							r.dots = r.dots || name == ".."
						}
					}
				}
				entries, err := os.ReadDir(d)
				if err != nil {
					continue // not a directory, or unreadable: nothing matches
				}
				for _, e := range entries {
					if bashMatch(elem, e.Name()) {
						next = append(next, joinName(d, e.Name()))
					}
				}
				if len(next) > maxGlobMatches {
					return r, errTooMany
				}
			}
		}
		if len(next) > maxGlobMatches {
			return r, errTooMany
		}
		cur = next
	}
	r.matches = cur
	return r, nil
}

// errTooMany is a pattern matching more paths than are checked one by one.
var errTooMany = fmt.Errorf("matches more than %d files, too many to check", maxGlobMatches)

// walkTree appends d and every path below it to out, as globstar's `**`
// may match them; symlinked directories are matched but not entered (as
// bash since 4.3), and judged where they lead like any match.
func walkTree(d string, out []string) ([]string, error) {
	out = append(out, d)
	if len(out) > maxGlobMatches {
		return out, errTooMany
	}
	entries, err := os.ReadDir(d)
	if err != nil {
		return out, nil
	}
	for _, e := range entries {
		p := joinName(d, e.Name())
		if e.IsDir() {
			if out, err = walkTree(p, out); err != nil {
				return out, err
			}
			continue
		}
		out = append(out, p)
		if len(out) > maxGlobMatches {
			return out, errTooMany
		}
	}
	return out, nil
}

// joinName is dir/name for a clean dir and a name from its listing.
func joinName(dir, name string) string {
	if dir == "/" {
		return "/" + name
	}
	return dir + "/" + name
}
