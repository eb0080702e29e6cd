package lsp

import (
	"fmt"
	"strings"

	"go.lsp.dev/protocol"
)

// An AI! comment is an instruction the user leaves in the code, in any
// comment syntax: "// make this concurrent AI!", "# AI! add retries",
// "-- AI! index this". It is found on the live buffer text, unsaved
// changes included, and offered as a code action that asks the agent.

// An aiComment is one instruction (AI!) or question (AI?) comment.
type aiComment struct {
	line        int // 0-based
	instruction string
	question    bool
}

// commentLeaders start a comment in the languages people write; a line
// comment or the opening of a block comment.
func commentLeaders() []string {
	return []string{"//", "#", "--", ";", "%", "/*", "<!--", "(*", "{-", "'", "rem "}
}

// findAIComments returns the AI! comments on lines from..to (0-based,
// inclusive) of text.
func findAIComments(text string, from, to int) []aiComment {
	var out []aiComment
	line := 0
	for rest := text; rest != "" && line <= to; line++ {
		l, next, _ := strings.Cut(rest, "\n")
		rest = next
		if line < from || !strings.Contains(l, "AI!") && !strings.Contains(l, "AI?") {
			continue
		}
		if instr, question, ok := aiInstruction(l); ok {
			out = append(out, aiComment{line: line, instruction: instr, question: question})
		}
	}
	return out
}

// aiInstruction returns the instruction of a line whose comment starts or
// ends with AI! (or the question, for AI?).
func aiInstruction(line string) (text string, question, ok bool) {
	for _, leader := range commentLeaders() {
		i := strings.Index(line, leader)
		if i < 0 || leader != "#" && leader != "//" && strings.TrimSpace(line[:i]) != "" && !strings.HasPrefix(leader, "/*") {
			continue // most leaders only start a comment at the start of a line
		}
		c := strings.TrimSpace(line[i+len(leader):])
		for _, closer := range []string{"*/", "-->", "*)", "-}"} {
			c = strings.TrimSpace(strings.TrimSuffix(c, closer))
		}
		marker := ""
		for _, m := range []string{"AI!", "AI?"} {
			if strings.HasPrefix(c, m) || strings.HasSuffix(c, m) {
				marker = m
			}
		}
		if marker == "" {
			continue
		}
		c = strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(c, marker), marker))
		c = strings.TrimSpace(strings.TrimRight(c, ":,.-"))
		return c, marker == "AI?", c != ""
	}
	return "", false, false
}

// aiContext is how many lines around an AI! comment the agent is shown.
const aiContext = 30

// aiCommentActions are the "Agent: …" code actions for the AI! comments
// on the lines of r.
func (s *Server) aiCommentActions(d document, r protocol.Range) []protocol.CodeAction {
	first, last, text, ok := s.rangeLines(d, r)
	if !ok {
		return nil
	}
	lines := d.buf.Lines()
	rel, err := s.relPath(d)
	if err != nil {
		return nil
	}
	var actions []protocol.CodeAction
	for _, c := range findAIComments(text, 0, last-first) {
		line := first + c.line
		around := protocol.Range{
			Start: protocol.Position{Line: uint32(max(0, line-aiContext))},
			End:   protocol.Position{Line: uint32(min(lines-1, line+aiContext+1))},
		}
		title := "Agent: " + c.instruction
		args := askArgs{Prompt: fmt.Sprintf("%s\n\n(This is the instruction of the AI! comment on line %d of %s. Do it, then remove that comment.)", c.instruction, line+1, rel), URI: d.uri, Range: &around}
		kind := protocol.RefactorRewrite
		if c.question {
			title = "Agent: answer — " + c.instruction
			args.Prompt = fmt.Sprintf("%s\n\n(This is the question of the AI? comment on line %d of %s. Answer it in a few sentences; do not change any file.)", c.instruction, line+1, rel)
			args.AnswerLine = &line
			kind = protocol.CodeActionKind("") // an answer changes nothing
		}
		actions = append(actions, protocol.CodeAction{
			Title: title, Kind: kind,
			Command: &protocol.Command{Title: title, Command: cmdAsk, Arguments: []any{args}},
		})
	}
	return actions
}

// rangeLines returns the whole lines r touches (first and last, 0-based,
// clamped to the document) and their text: a slice of the buffer, never
// the whole document.
func (s *Server) rangeLines(d document, r protocol.Range) (first, last int, text string, ok bool) {
	s.mu.Lock()
	enc := s.encoding
	s.mu.Unlock()
	first, last = int(r.Start.Line), int(r.End.Line)
	lines := d.buf.Lines()
	if first >= lines {
		return 0, 0, "", false
	}
	last = min(last, lines-1)
	lo, err := d.buf.Offset(first, 0, enc)
	if err != nil {
		return 0, 0, "", false
	}
	hi := d.buf.Len()
	if last+1 < lines {
		if hi, err = d.buf.Offset(last+1, 0, enc); err != nil {
			return 0, 0, "", false
		}
	}
	text, err = d.buf.Slice(lo, hi)
	return first, last, text, err == nil
}

// askActions offer "Ask agent: <request>" on a selection that holds a
// plain comment (not an AI! one, which has its own action): the comment is
// the request, the selection the code it is about. An editor plugin asks
// with its own input box instead (agentls.ask).
func (s *Server) askActions(d document, r protocol.Range) []protocol.CodeAction {
	if r.Start == r.End {
		return nil
	}
	first, last, text, ok := s.rangeLines(d, r)
	if !ok || len(findAIComments(text, 0, last-first)) > 0 {
		return nil
	}
	request, line := selectionComment(text, d.language == "markdown")
	if request == "" {
		return nil
	}
	rel, err := s.relPath(d)
	if err != nil {
		return nil
	}
	title := "Ask agent: " + clip(request, 60, "…")
	args := askArgs{Prompt: fmt.Sprintf("%s\n\n(This is the request in the comment on line %d of %s; the selection is the code it is about. Leave the comment unless it asks otherwise.)", request, first+line+1, rel), URI: d.uri, Range: &r}
	return []protocol.CodeAction{{Title: title, Kind: protocol.RefactorRewrite,
		Command: &protocol.Command{Title: title, Command: cmdAsk, Arguments: []any{args}}}}
}

// selectionComment returns the first run of whole-line comments in text,
// their leaders removed and lines joined, and the line it starts on. In
// Markdown only <!-- --> is a comment ("#" is a heading).
func selectionComment(text string, markdown bool) (string, int) {
	var parts []string
	start := -1
	for i, l := range strings.Split(text, "\n") {
		c, ok := lineComment(l, markdown)
		if !ok {
			if start >= 0 {
				break
			}
			continue
		}
		if start < 0 {
			start = i
		}
		if c != "" {
			parts = append(parts, c)
		}
	}
	return strings.Join(parts, " "), start
}

// lineComment returns the text of a line that is only a comment.
func lineComment(line string, markdown bool) (string, bool) {
	t := strings.TrimSpace(line)
	for _, leader := range commentLeaders() {
		switch {
		case !strings.HasPrefix(t, leader):
			continue
		case markdown && leader != "<!--":
			continue
		case leader == "'" || leader == "%":
			continue // they start too many things that are not comments
		case leader == "#" && len(t) > 1 && t[1] != ' ' && t[1] != '#':
			continue // #include, #!/bin/sh, #[derive]: not comments
		}
		c := strings.TrimSpace(t[len(leader):])
		for _, closer := range []string{"*/", "-->", "*)", "-}"} {
			c = strings.TrimSpace(strings.TrimSuffix(c, closer))
		}
		return strings.TrimLeft(c, "/#*- "), true
	}
	return "", false
}
