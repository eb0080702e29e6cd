package agent

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/agentls/agentls/tools"
)

// A small model shown a file as a save call and asked to send it back
// changed (CompactMessages) sometimes sends it back without the fences:
// "save a.go" on the first line, then the new file, right to the end
// (Qwen2.5-Coder-1.5B did so for every task, even when told again with a
// fenced example). In a compact turn such a reply is read as the call it
// spells, when that is certain enough to write: the path is one of the
// request's files, and for save the text keeps at least half of that
// file's lines or begins as the file does (an edited copy, not prose); a
// patch is checked by its own ORIGINAL lines. The model is told how its
// reply was read.

// bareCall returns the call a fence-less reply spells, and a note for the
// model, or false.
func bareCall(reply string, reg *tools.Registry, req Request) (tools.ToolUse, string, bool) {
	first, rest, ok := strings.Cut(strings.TrimLeft(reply, "\n"), "\n")
	if !ok {
		return tools.ToolUse{}, "", false
	}
	if strings.TrimSpace(first) == "```" {
		// A bare fence first, the call's words on the next line
		// ("```\nsave hello.go\n…\n```": the 1.5B model at temperature 0).
		if first, rest, ok = strings.Cut(strings.TrimLeft(rest, "\n"), "\n"); !ok {
			return tools.ToolUse{}, "", false
		}
	}
	words := strings.Fields(first)
	if len(words) != 2 || words[0] != tools.NameSave && words[0] != tools.NamePatch {
		return tools.ToolUse{}, "", false
	}
	ref, ok := reg.Lookup(words[0])
	if !ok {
		return tools.ToolUse{}, "", false
	}
	path := words[1]
	current := currentText(req, path)
	// A file the request names and that does not exist may be created:
	// writing it loses nothing.
	creates := current == "" && ref.Name == tools.NameSave && slices.Contains(namedFiles(req), path) &&
		!slices.ContainsFunc(req.Files, func(f FileText) bool { return f.Path == path })
	if current == "" && !creates {
		return tools.ToolUse{}, "", false
	}
	// A reply may spell several saves one after another ("save
	// config.go …\nsave client.go …"): the first is this call; the
	// model is asked for the next after its result, as with fences.
	var lines []string
	for l := range strings.Lines(rest) {
		if w := strings.Fields(l); len(w) == 2 && (w[0] == tools.NameSave || w[0] == tools.NamePatch) && currentText(req, w[1]) != "" {
			break
		}
		lines = append(lines, l)
	}
	body := strings.TrimRight(strings.Join(lines, ""), " \n")
	body = strings.TrimRight(strings.TrimSuffix(body, "```"), "\n")
	if ref.Name == tools.NameSave && !creates && !keepsHalf(current, body) && firstLine(strings.TrimSpace(current)) != firstLine(strings.TrimSpace(body)) {
		return tools.ToolUse{}, "", false
	}
	use := tools.ToolUse{Tool: ref.Name, Args: []string{path}, Content: body + "\n", Format: tools.FormatMarkdown}
	note := fmt.Sprintf("(Your reply had no ``` fences; it was read as a ```%s %s block. Next time write the fences: ```%s %s on the first line, ``` on the last.)\n", words[0], path, words[0], path)
	return use, note, true
}

// keepsHalf reports whether text keeps at least half of the non-blank
// lines of current, in any order.
func keepsHalf(current, text string) bool {
	total := 0
	for l := range strings.Lines(current) {
		if strings.TrimSpace(l) != "" {
			total++
		}
	}
	return total > 0 && 2*keptLines(current, text) >= total
}

// keptLines counts the non-blank lines of current that text holds as
// they are.
func keptLines(current, text string) int {
	have := strings.Split(text, "\n")
	kept := 0
	for l := range strings.Lines(current) {
		l = strings.TrimRight(l, "\n")
		if strings.TrimSpace(l) != "" && slices.Contains(have, l) {
			kept++
		}
	}
	return kept
}

// keptOrEdited counts the non-blank lines of current that text holds as
// they are or edited in place: a line of text at the same indentation
// with most of the same tokens (a rename changes a word or two of most
// lines of a small file, and keeps them all). A fragment the model sent
// instead of the file, dedented or missing the lines around, keeps few.
func keptOrEdited(current, text string) int {
	have := strings.Split(text, "\n")
	kept := 0
	for l := range strings.Lines(current) {
		l = strings.TrimRight(l, "\n")
		if strings.TrimSpace(l) == "" {
			continue
		}
		if slices.Contains(have, l) || slices.ContainsFunc(have, func(h string) bool { return editedLine(l, h) }) {
			kept++
		}
	}
	return kept
}

// tokenRe splits a line into words and single other characters.
var tokenRe = regexp.MustCompile(`[A-Za-z0-9_]+|[^\sA-Za-z0-9_]`)

// editedLine reports whether b is a in place with some words changed: the
// same indentation, and at least 70% of their tokens in common, in order.
func editedLine(a, b string) bool {
	indent := func(s string) string { return s[:len(s)-len(strings.TrimLeft(s, " \t"))] }
	if indent(a) != indent(b) || strings.TrimSpace(b) == "" {
		return false
	}
	ta, tb := tokenRe.FindAllString(a, -1), tokenRe.FindAllString(b, -1)
	if len(ta) == 0 || len(tb) == 0 || 10*min(len(ta), len(tb)) < 7*max(len(ta), len(tb)) {
		return false
	}
	// The longest common subsequence of tokens, one row at a time.
	row := make([]int, len(tb)+1)
	for _, x := range ta {
		prev := 0
		for j, y := range tb {
			cur := row[j+1]
			if x == y {
				row[j+1] = prev + 1
			} else {
				row[j+1] = max(row[j+1], row[j])
			}
			prev = cur
		}
	}
	return 20*row[len(tb)] >= 7*(len(ta)+len(tb))
}

// additionWords are words of requests that add to a file.
var additionWords = regexp.MustCompile(`(?i)\b(add|append|insert|implement)\b`)

// removalWords are words of requests that may well shrink a file.
var removalWords = regexp.MustCompile(`(?i)\b(delete|remove|drop|strip|shorten|clear|empty|truncate|replace|rewrite|trim)\b`)

// shrinkingSave refuses, in a compact turn, a save that would keep less
// than half of an existing file's lines on a request that asks for no
// removal: a small model asked for the whole new file sends back the few
// lines it changed (Qwen2.5-Coder-1.5B saved a 4-line fragment over
// count.py's function, and only the new function over a 3-line math.ts
// it was asked to add to), and the save would lose the rest. A save over
// an existing file the model has not seen this turn (not shown with the
// request, not read, not written) is refused once with the file's
// content: what it would write is a guess.
func (t *Turn) shrinkingSave(ctx context.Context, use tools.ToolUse, state *turnState) error {
	if !t.Compact || use.Tool != tools.NameSave || removalWords.MatchString(state.prompt) {
		return nil
	}
	path := ""
	if len(use.Args) > 0 {
		path = use.Args[0]
	}
	spec, ok := t.Registry.Get(tools.NameRead)
	if path == "" || !ok || !spec.Runnable() {
		return nil
	}
	view, err := spec.Run(ctx, tools.ToolUse{Tool: tools.NameRead, Args: []string{path}})
	if err != nil || isListing(view) {
		return nil // a new file, or one save will refuse itself
	}
	current := unnumbered(view)
	if !state.shown[cleanRel(path)] {
		// Written over without being seen: the real model saved a
		// version.go it had only seen named in a listing, its own
		// guess of a program in place of the file. It is shown the
		// file, once, as the save to send back changed.
		state.show(path)
		return fmt.Errorf("save %s: the file exists and you have not seen it, so a save would replace what it holds with a guess; nothing was written. Its current content, as a save call would write it:\n%s\nSend it back changed as asked", path, t.saveCall(path, clipView(view, maxContextBytes)))
	}
	total := 0
	for l := range strings.Lines(current) {
		if strings.TrimSpace(l) != "" {
			total++
		}
	}
	kept := keptLines(current, use.Content)
	switch {
	case total >= 4 && 2*keptOrEdited(current, use.Content) < total:
		return fmt.Errorf("save %s: the content keeps less than half of the file's %d lines, so the rest would be lost; nothing was written. A save replaces the whole file: send every line of the new file — the current one, changed as asked", path, total)
	case additionWords.MatchString(state.prompt) && total-kept >= 2 && 3*(total-kept) > total:
		// Asked to add, a small model sends only what it adds; a
		// rename of a 3-line file changes two lines of three, so only
		// a request to add is held to this.
		return fmt.Errorf("save %s: the request asks to add, but the content drops %d of the file's %d lines, so they would be lost; nothing was written. A save replaces the whole file: send every line of the file as it is, with what you add", path, total-kept, total)
	}
	return nil
}

// saveCall is a save of path holding a read view's text, in the turn's
// format, as compact turns show a file (fileBlock).
func (t *Turn) saveCall(path, view string) string {
	block, _ := fileBlock(t.Registry, t.Format, path, unnumbered(view))
	return block
}

// currentText is the text of path as the request showed it (Request.Files),
// unnumbered; "" when it showed none.
func currentText(req Request, path string) string {
	for _, f := range req.Files {
		if f.Path == path {
			return unnumbered(f.Text)
		}
	}
	return ""
}
