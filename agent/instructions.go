package agent

import "strings"

// Instructions in comments: an AI! comment is an instruction the user
// leaves in the code, in any comment syntax ("// make this concurrent
// AI!", "# AI! add retries", "-- AI! index this"), an AI? comment a
// question; a selection that starts with a comment carries its request in
// it ("Ask agent"). These find them in text; the language server offers
// them as code actions.

// An InstructionComment is one instruction (AI!) or question (AI?)
// comment.
type InstructionComment struct {
	Line        int // 0-based
	Instruction string
	Question    bool
}

// commentLeaders start a comment in the languages people write; a line
// comment or the opening of a block comment.
func commentLeaders() []string {
	return []string{"//", "#", "--", ";", "%", "/*", "<!--", "(*", "{-", "'", "rem "}
}

// FindInstructionComments returns the AI! (and AI?) comments on lines
// from..to (0-based, inclusive) of text.
func FindInstructionComments(text string, from, to int) []InstructionComment {
	var out []InstructionComment
	line := 0
	for rest := text; rest != "" && line <= to; line++ {
		l, next, _ := strings.Cut(rest, "\n")
		rest = next
		if line < from || !strings.Contains(l, "AI!") && !strings.Contains(l, "AI?") {
			continue
		}
		if instr, question, ok := aiInstruction(l); ok {
			out = append(out, InstructionComment{Line: line, Instruction: instr, Question: question})
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

// SelectionComment returns the first run of whole-line comments in text,
// their leaders removed and lines joined, and the line it starts on. In
// Markdown only <!-- --> is a comment ("#" is a heading).
func SelectionComment(text string, markdown bool) (string, int) {
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
