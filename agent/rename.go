package agent

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// renameRe finds a request to rename one identifier to another: "Rename
// the function greet to welcome", "rename the interface Person to User".
// Both names are identifiers (a file's name, "a.go", is a move).
var renameRe = regexp.MustCompile("(?i)\\brename\\s+(?:the\\s+)?(?:(?:function|method|class|constant|const|variable|var|type|interface|struct|field|parameter|param|property|enum)\\s+)?`?([A-Za-z_][A-Za-z0-9_]*)`?\\s+to\\s+`?([A-Za-z_][A-Za-z0-9_]*)`?(?:[^A-Za-z0-9_.]|\\.\\s|\\.?$)")

// askedRename returns the names a request asks to rename from and to; ok
// is false when it asks for no rename of an identifier.
func askedRename(prompt string) (from, to string, ok bool) {
	m := renameRe.FindStringSubmatch(prompt)
	if m == nil || m[1] == m[2] {
		return "", "", false
	}
	return m[1], m[2], true
}

// renamed is text with every whole word from written to.
func renamed(text, from, to string) string {
	return regexp.MustCompile(`\b`+regexp.QuoteMeta(from)+`\b`).ReplaceAllLiteralString(text, to)
}

// renameExtras returns the lines of current that hold no from, are not
// blank, and that content has neither as they are nor with other names
// only (nameOnlyEdit): what a save made on a request to rename from
// changed besides the rename. A further name changed with it (the real
// model renamed the parameter p to u along with Person to User) is not
// counted: the code does what it did.
func renameExtras(current, content, from string) []string {
	word := regexp.MustCompile(`\b` + regexp.QuoteMeta(from) + `\b`)
	left := map[string]int{}
	var contentLines []string
	for l := range strings.Lines(content) {
		l = strings.TrimRight(l, "\r\n")
		left[l]++
		contentLines = append(contentLines, l)
	}
	var extras []string
	for l := range strings.Lines(current) {
		l = strings.TrimRight(l, "\r\n")
		if left[l] > 0 {
			left[l]--
			continue
		}
		if strings.TrimSpace(l) == "" || word.MatchString(l) {
			continue
		}
		if !slices.ContainsFunc(contentLines, func(c string) bool { return nameOnlyEdit(l, c) }) {
			extras = append(extras, l)
		}
	}
	return extras
}

// codeTokenRe splits a line of code into quoted strings (each one token),
// names, numbers and single other characters. A template literal's
// backquotes are single characters, so the names inside it are names.
var codeTokenRe = regexp.MustCompile(`"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|[A-Za-z_][A-Za-z0-9_]*|[0-9][A-Za-z0-9_.]*|\S`)

// nameOnlyEdit reports whether b is a with only names changed: the same
// tokens, but where both have a name.
func nameOnlyEdit(a, b string) bool {
	ta, tb := codeTokenRe.FindAllString(a, -1), codeTokenRe.FindAllString(b, -1)
	if len(ta) != len(tb) || len(ta) == 0 {
		return false
	}
	isName := func(s string) bool { c := s[0]; return c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
	for i := range ta {
		if ta[i] != tb[i] && !(isName(ta[i]) && isName(tb[i])) {
			return false
		}
	}
	return true
}

// renamingSave refuses, once for each file, a save made on a request to
// rename an identifier that also changes lines without it: asked to
// rename greet to welcome, the real model saved utils.py with its
// "Hi, " changed to "Welcome, " as well, in 8 runs of 8, and the
// program's output changed. It is offered the save that renames and
// changes nothing else; sent again, its own save is written (the request
// may ask for more than the rename).
func (t *Turn) renamingSave(path, current, content string, state *turnState) error {
	from, to, ok := askedRename(state.prompt)
	if !ok || state.renameOffered[cleanRel(path)] {
		return nil
	}
	want := renamed(current, from, to)
	if want == current || strings.TrimRight(content, "\n") == strings.TrimRight(want, "\n") {
		return nil
	}
	extras := renameExtras(current, content, from)
	if len(extras) == 0 {
		return nil
	}
	state.renameOffered[cleanRel(path)] = true
	what := fmt.Sprintf("%q", strings.TrimSpace(extras[0]))
	if len(extras) > 1 {
		what = fmt.Sprintf("%d lines (the first: %q)", len(extras), strings.TrimSpace(extras[0]))
	}
	block, _ := fileBlock(t.Registry, t.Format, path, want)
	return fmt.Errorf("save %s: the request asks to rename %s to %s, but this save also changes %s, which has no %s in it; nothing was written. This save renames %s and changes nothing else:\n%s\nSend it; or, if the request asks for that change too, send yours again", path, from, to, what, from, from, block)
}
