package agent

import (
	"context"
	"errors"
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

// bareCalls returns the calls a fence-less reply spells, one after the
// other ("save config.go …\nsave client.go …"; each body may sit in a
// plain fence under its words, as aider's file listings do: the real model
// wrote "save test.js", a fenced test.js, "save lib.js", a fenced lib.js),
// and a note for the model; none when the reply does not begin with one.
// A compact turn runs them together, as it runs fenced edit calls.
func bareCalls(reply string, reg *tools.Registry, req Request) ([]tools.ToolUse, string) {
	var uses []tools.ToolUse
	var openers []string
	rest := strings.TrimLeft(reply, "\n")
	for {
		use, opener, after, ok := bareCall(rest, reg, req)
		if !ok {
			break
		}
		uses, openers = append(uses, use), append(openers, opener)
		if rest = strings.TrimLeft(after, " \n"); rest == "" {
			break
		}
	}
	if len(uses) == 0 {
		return nil, ""
	}
	return uses, fencesNote(openers)
}

// bareCall reads the one fence-less call text begins with: the call, its
// opener ("save a.go"), and the text after it.
func bareCall(text string, reg *tools.Registry, req Request) (tools.ToolUse, string, string, bool) {
	first, rest, ok := strings.Cut(text, "\n")
	if !ok {
		// One line: the real model answered "delete old.go".
		words := strings.Fields(first)
		if use, ok := askedFileCall(words, reg, req); ok {
			return use, strings.Join(words, " "), "", true
		}
		return tools.ToolUse{}, "", "", false
	}
	if strings.TrimSpace(first) == "```" {
		// A bare fence first, the call's words on the next line
		// ("```\nsave hello.go\n…\n```": the 1.5B model at temperature 0).
		if first, rest, ok = strings.Cut(strings.TrimLeft(rest, "\n"), "\n"); !ok {
			return tools.ToolUse{}, "", "", false
		}
		if words := strings.Fields(first); len(words) > 1 && (words[0] == tools.NameDelete || words[0] == tools.NameMove) {
			rest = strings.TrimPrefix(strings.TrimLeft(rest, " \n"), "```") // its fence closes
		}
	}
	words := strings.Fields(first)
	if use, ok := askedFileCall(words, reg, req); ok {
		return use, strings.Join(words, " "), rest, true
	}
	if len(words) != 2 || words[0] != tools.NameSave && words[0] != tools.NamePatch {
		return tools.ToolUse{}, "", "", false
	}
	ref, ok := reg.Lookup(words[0])
	if !ok {
		return tools.ToolUse{}, "", "", false
	}
	path := words[1]
	current := currentText(req, path)
	// A file the request names and that does not exist may be created:
	// writing it loses nothing.
	creates := current == "" && ref.Name == tools.NameSave && slices.Contains(namedFiles(req), path) &&
		!slices.ContainsFunc(req.Files, func(f FileText) bool { return f.Path == path })
	if current == "" && !creates {
		return tools.ToolUse{}, "", "", false
	}
	// The body: in a plain fence right under the words, up to its close;
	// else up to the next call's words, or the end.
	var lines []string
	fenced := false
	after := ""
	at := 0
	for l := range strings.Lines(rest) {
		t := strings.TrimSpace(l)
		switch {
		case len(lines) == 0 && !fenced && strings.HasPrefix(t, "```") && !strings.Contains(t, " "):
			fenced = true // a plain or language fence opens the body
			at += len(l)
			continue
		case fenced && t == "```":
			after = rest[at+len(l):]
		case !fenced:
			if w := strings.Fields(l); len(w) == 2 && (w[0] == tools.NameSave || w[0] == tools.NamePatch) && currentText(req, w[1]) != "" {
				after = rest[at:]
			}
		}
		if after != "" {
			break
		}
		lines = append(lines, l)
		at += len(l)
	}
	body := strings.TrimRight(strings.Join(lines, ""), " \n")
	body = strings.TrimRight(strings.TrimSuffix(body, "```"), "\n")
	if ref.Name == tools.NameSave && !creates && !keepsHalf(current, body) && firstLine(strings.TrimSpace(current)) != firstLine(strings.TrimSpace(body)) {
		return tools.ToolUse{}, "", "", false
	}
	use := tools.ToolUse{Tool: ref.Name, Args: []string{path}, Content: body + "\n", Format: tools.FormatMarkdown}
	return use, words[0] + " " + path, after, true
}

// fencesNote tells the model how its fence-less calls were read. It
// teaches no fence shape in words: told "write the fences: ```save PATH
// on the first line, ``` on the last", the real model (temperature 0)
// wrote "```save ./lib.js on the first line," as its next call.
func fencesNote(openers []string) string {
	read := "a ```" + openers[0] + " block"
	if len(openers) > 1 {
		read = "```" + strings.Join(openers, ", ```") + " blocks"
	}
	return fmt.Sprintf("(Your reply had no ``` fences; it was read as %s.)\n", read)
}

// askedFileCall returns the delete or move call words spell when it is
// the very call the request asks for ("Delete old.go": delete old.go), of
// a file the request shows: the real model wrote "delete old.go" in a
// bare fence.
func askedFileCall(words []string, reg *tools.Registry, req Request) (tools.ToolUse, bool) {
	if len(words) < 2 {
		return tools.ToolUse{}, false
	}
	args := make([]string, len(words)-1)
	for i, w := range words[1:] {
		args[i] = cleanRel(w)
	}
	for _, use := range askedFileCalls(reg, req) {
		if use.Tool == words[0] && slices.Equal(use.Args, args) {
			use.Format = tools.FormatMarkdown
			return use, true
		}
	}
	return tools.ToolUse{}, false
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
	if !t.Compact || use.Tool != tools.NameSave {
		return nil
	}
	path, content := saveArgs(use)
	if path != "" && slices.Contains(state.editedPaths, path) && slices.Contains(removedAsked(state.prompt), cleanRel(path)) {
		// Asked to delete old.go, the real model wrote its delete
		// call and then, copying on, a save of old.go: the file
		// came back (and notes.md, after its move). A file the
		// request deletes or moves away is not written again.
		if _, err := t.readForModel(ctx, path, 0); err != nil {
			return fmt.Errorf("save %s: the request asks for %s to be gone from there, and this turn deleted or moved it; nothing was written. That part is done: do not save %s", path, path, path)
		}
	}
	if err := t.mergedSave(path, content, state); err != nil {
		return err
	}
	if removalWords.MatchString(state.prompt) {
		return nil
	}
	if path == "" {
		return nil
	}
	view, err := t.readWhole(ctx, path)
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
	if err := t.renamingSave(path, current, content, state); err != nil {
		return err
	}
	total := 0
	for l := range strings.Lines(current) {
		if strings.TrimSpace(l) != "" {
			total++
		}
	}
	kept := keptLines(current, content)
	switch {
	case total >= 4 && 2*keptOrEdited(current, content) < total:
		return fmt.Errorf("save %s: the content keeps less than half of the file's %d lines, so the rest would be lost; nothing was written. A save replaces the whole file: send every line of the new file — the current one, changed as asked", path, total)
	case additionWords.MatchString(state.prompt) && total-kept >= 2 && 3*(total-kept) > total:
		// Asked to add, a small model sends only what it adds; a
		// rename of a 3-line file changes two lines of three, so only
		// a request to add is held to this.
		msg := fmt.Sprintf("save %s: the request asks to add, but the content drops %d of the file's %d lines, so they would be lost; nothing was written. A save replaces the whole file: send every line of the file as it is, with what you add", path, total-kept, total)
		if added := appended(current, content); added != "" {
			// The real model, asked to add Max to mathx.go, sent Max
			// alone three times, told each time what it dropped. The
			// save it meant is offered whole, for it to send or not.
			block, _ := fileBlock(t.Registry, t.Format, path, added)
			msg += ". If what you sent is what you add, this save keeps every line and adds yours at the end:\n" + block
		}
		return errors.New(msg)
	}
	return nil
}

// appended is current with what content adds written after it: content
// without the lines it opens with that current opens with too (a package
// clause, imports), after a blank line; "" when nothing is left.
func appended(current, content string) string {
	have := strings.SplitAfter(current, "\n")
	add := strings.SplitAfter(content, "\n")
	i := 0
	for i < len(have) && i < len(add) && strings.TrimRight(have[i], "\n") == strings.TrimRight(add[i], "\n") {
		i++
	}
	rest := strings.TrimLeft(strings.Join(add[i:], ""), "\n")
	if strings.TrimSpace(rest) == "" {
		return ""
	}
	if !strings.HasSuffix(rest, "\n") {
		rest += "\n"
	}
	return strings.TrimRight(current, "\n") + "\n\n" + rest
}

// saveArgs are a save call's path and content, written in its block or
// as a native call's arguments.
func saveArgs(use tools.ToolUse) (path, content string) {
	path, _ = use.Kwargs["path"].(string)
	if len(use.Args) > 0 {
		path = use.Args[0]
	}
	content = use.Content
	if content == "" {
		content, _ = use.Kwargs["content"].(string)
	}
	return path, content
}

// mergedSave refuses a save of path whose content is path's file followed
// by another file the request shows, kept or edited in place: the real
// model, asked to rename greet in utils.py and its use in main.py, saved
// utils.py holding both files (main.py's import of utils inside utils.py),
// in 7 runs of 7. It is told which lines are the other file's, with the
// two saves to send.
func (t *Turn) mergedSave(path, content string, state *turnState) error {
	lines := strings.SplitAfter(content, "\n")
	var own string
	for _, f := range state.files {
		if f.Path == path {
			own = unnumbered(f.Text)
		}
	}
	if own == "" {
		return nil
	}
	for _, f := range state.files {
		other := unnumbered(f.Text)
		if f.Path == path || strings.TrimSpace(other) == "" {
			continue
		}
		head := firstLine(strings.TrimSpace(other))
		for k := 1; k < len(lines); k++ {
			l := strings.TrimRight(lines[k], "\n")
			if l != head && !editedLine(head, l) {
				continue
			}
			before, after := strings.Join(lines[:k], ""), strings.Join(lines[k:], "")
			if !mostlyKept(other, after) || keptOrEdited(own, before) == 0 || mostlyKept(other, before) {
				continue
			}
			mine, _ := fileBlock(t.Registry, t.Format, path, strings.TrimRight(before, "\n")+"\n")
			theirs, _ := fileBlock(t.Registry, t.Format, f.Path, after)
			return fmt.Errorf("save %s: its content ends with %s's lines (from %q on), so %s would hold both files; nothing was written. Each file has its own save block: send these two, changed as asked:\n%s\n%s", path, f.Path, head, path, mine, theirs)
		}
	}
	return nil
}

// mostlyKept reports whether text keeps, as they are or edited in place,
// at least two thirds of the non-blank lines of current (and one).
func mostlyKept(current, text string) bool {
	total := 0
	for l := range strings.Lines(current) {
		if strings.TrimSpace(l) != "" {
			total++
		}
	}
	kept := keptOrEdited(current, text)
	return kept > 0 && 3*kept >= 2*total
}

// saveCall is a save of path holding a read view's text, in the turn's
// format, as compact turns show a file (fileBlock).
func (t *Turn) saveCall(path, view string) string {
	block, _ := fileBlock(t.Registry, t.Format, path, unnumbered(view))
	return block
}

// currentText is the text of path as the request showed it (Files, Likely),
// unnumbered; "" when it showed none.
func currentText(req Request, path string) string {
	for _, f := range req.shownFiles() {
		if f.Path == path {
			return unnumbered(f.Text)
		}
	}
	return ""
}
