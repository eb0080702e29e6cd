package tools

import "bytes"

// Thinking sections (<think>…</think>, <thinking>…</thinking>) hold the
// model's reasoning, where it may draft tool calls it does not mean to make.
// Nothing inside one is a block or a tool use. A section opens with its tag
// at the start of a line outside any block, and ends at its closing tag
// anywhere; the text after the closing tag starts a new line. Unlike gptme,
// every section is skipped (not only the first), blocks before a section
// are kept, a </think> inside a code block is code, and an unclosed section
// hides only what follows it.

type thinkState struct {
	closeTag   string // "</think>" or "</thinking>"; "" accepts either
	start      int    // offset of the opening tag
	searchFrom int    // the closing tag is not before this offset
}

func (p *Parser) enterThink(bodyStart int, closeTag string) {
	p.think = thinkState{closeTag: closeTag, start: bodyStart, searchFrom: bodyStart}
	p.pos, p.mode = bodyStart, modeThink
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
			p.resumeAt(from+k+len(tag), true)
			return true
		}
		data = data[k+1:]
		from += k + 1
	}
}
