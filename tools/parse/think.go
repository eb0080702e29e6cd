package parse

import "bytes"

// Thinking sections (<think>…</think>, <thinking>…</thinking>) hold the
// model's reasoning, where it may draft tool calls it does not mean to make.
// Nothing inside one is a block or a tool use. A section opens with its tag
// at the start of a line outside any block — or with a fence tagged
// "thinking>" (```thinking>, as Gemini writes it), closed by </thinking>,
// where a bare fence right after the closing tag on its line ends the
// wrapper — and ends at its closing tag anywhere; the text after the
// closing tag starts a new line. Unlike gptme, every section is skipped
// (not only the first), blocks before a section are kept, a </think> inside
// a code block is code, and an unclosed section hides only what follows it.
//
// A reply may also begin inside a section whose opening tag it never
// wrote: DeepSeek-R1's and QwQ's templates open <think> in the prompt, and
// Gemini sometimes writes only </thinking>. Unless Options says the
// reply begins in thinking (StartInThinking) or has no headless section
// (TaggedThinking), the parser treats the first closing tag with no opening
// tag before it as the end of such a section:
//
//   - a </think> or </thinking> outside code blocks and inline code, or a
//     line that is only that tag inside a block or an xml or @ call (a
//     draft left open in the thinking, which the answer's text would
//     otherwise complete), makes everything before it thinking: the blocks,
//     calls and problems found before it are dropped, and reading goes on
//     after it outside any block or call;
//   - while such a close may still come — no section opened or closed yet,
//     and the reply not ended — Blocks, ToolUses and Problems report
//     nothing, so streaming never reports a draft that the end of the
//     reply turns out to hide. An opening tag or a closing tag rules the
//     headless close out, and what was held is reported at once.

type thinkState struct {
	closeTag   string // "</think>" or "</thinking>"; "" accepts either
	start      int    // offset of the opening tag
	searchFrom int    // the closing tag is not before this offset
	fenced     bool   // opened by ```thinking>
}

// enterThink starts a thinking section whose text begins at bodyStart.
// An opened section rules out a headless one.
func (p *Parser) enterThink(bodyStart int, closeTag string) {
	p.think = thinkState{closeTag: closeTag, start: bodyStart, searchFrom: bodyStart}
	p.pos, p.mode = bodyStart, modeThink
	p.headlessOpen = false
}

// stepThink looks for the end of the thinking section.
func (p *Parser) stepThink() bool {
	const prefix = "</think"
	t := &p.think
	from := max(t.searchFrom, p.pos)
	data := p.bytes(from, p.end())
	for {
		k := bytes.Index(data, []byte(prefix))
		if k < 0 {
			t.searchFrom = max(from, p.end()-len(prefix)+1)
			if p.eof {
				p.pos, p.mode = p.end(), modeDone
			}
			return false
		}
		rest := data[k+len(prefix):]
		var tag string
		switch {
		case bytes.HasPrefix(rest, []byte(">")):
			tag = "</think>"
		case bytes.HasPrefix(rest, []byte("ing>")):
			tag = "</thinking>"
		case len(rest) < len("ing>") && !p.eof && bytes.HasPrefix([]byte("ing>"), rest):
			t.searchFrom = from + k // the tag may still be completed
			return false
		}
		if tag != "" && (t.closeTag == "" || t.closeTag == tag) {
			p.skipWrapperFence = t.fenced
			p.resumeAt(from+k+len(tag), true)
			return true
		}
		data = data[k+1:]
		from += k + 1
	}
}

// headlessClose returns the offset in line of the first closing think tag
// outside inline code (after an even number of backticks), and the tag;
// -1 if there is none.
func headlessClose(line []byte) (int, string) {
	ticks := 0 // backticks in line[:from]
	for from := 0; ; {
		k := bytes.Index(line[from:], []byte("</think"))
		if k < 0 {
			return -1, ""
		}
		k += from
		ticks += bytes.Count(line[from:k], []byte("`"))
		rest := line[k+len("</think"):]
		tag := ""
		switch {
		case bytes.HasPrefix(rest, []byte(">")):
			tag = "</think>"
		case bytes.HasPrefix(rest, []byte("ing>")):
			tag = "</thinking>"
		}
		if tag != "" && ticks%2 == 0 {
			return k, tag
		}
		from = k + 1
	}
}

// isLoneThinkClose reports whether line holds only a closing think tag.
func isLoneThinkClose(line []byte) bool {
	// Most lines end in something else than '>': look at the end first
	// rather than trim the indentation of every line of code.
	j := len(line)
	for j > 0 && isSpace(line[j-1]) {
		j--
	}
	if j < len("</think>") || line[j-1] != '>' {
		return false
	}
	t := trimSpace(line[:j])
	return len(t) > 0 && t[0] == '<' && (bytes.Equal(t, []byte("</think>")) || bytes.Equal(t, []byte("</thinking>")))
}

// closeHeadless ends the section the reply began in without its opening
// tag: everything found so far was in it.
func (p *Parser) closeHeadless() {
	p.blocks, p.uses, p.problems = p.blocks[:0], p.uses[:0], p.problems[:0]
	p.headlessOpen = false
}

// thinkingFence returns the offset in text of the body of a fence tagged
// "thinking>" (```thinking>), or -1. ticks is the fence's length.
func thinkingFence(text []byte, ticks int) int {
	i := ticks
	for i < len(text) && (text[i] == ' ' || text[i] == '\t') {
		i++
	}
	if bytes.HasPrefix(text[i:], []byte("thinking>")) {
		return i + len("thinking>")
	}
	return -1
}
