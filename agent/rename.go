package agent

import (
	"fmt"
	"regexp"
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

// wordRe matches name as a whole word.
func wordRe(name string) *regexp.Regexp {
	return regexp.MustCompile(`\b` + regexp.QuoteMeta(name) + `\b`)
}

// renamed is text with every whole word from written to.
func renamed(text, from, to string) string {
	return wordRe(from).ReplaceAllLiteralString(text, to)
}

// renameExtras returns the lines of current that hold no from, are not
// blank and that content no longer has: what a save made on a request to
// rename from changed besides the rename. Another name changed with it
// counts: asked to rename Person to User, the real model renamed the
// parameter p to u as well, which no one asked for (and the task's
// check refused).
func renameExtras(current, content, from string) []string {
	word := wordRe(from)
	left := map[string]int{}
	for l := range strings.Lines(content) {
		left[strings.TrimRight(l, "\r\n")]++
	}
	var extras []string
	for l := range strings.Lines(current) {
		l = strings.TrimRight(l, "\r\n")
		if left[l] > 0 {
			left[l]--
			continue
		}
		if strings.TrimSpace(l) != "" && !word.MatchString(l) {
			extras = append(extras, l)
		}
	}
	return extras
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
