package parse

import (
	"fmt"

	"github.com/agentls/agentls/tools"
)

// The tool format writes a native tool call into the text as
//
//	@name(call_id): {"path": "a.go", "content": "…"}
//
// at the start of a line outside fenced blocks and thinking sections: name
// is [A-Za-z0-9_.]+, call_id is [A-Za-z0-9_.:-]+, and whitespace (newlines
// included) may come between the colon and the brace. The arguments end
// where the braces balance, counting only braces outside strings; both
// "…" and '…' are strings (so Python-style dicts work) and a backslash makes
// the next character inert. They are read as JSON, leniently (see
// parseLenientJSON); anything but an object is a problem, not a call.

const maxAtHeader = 4096 // a longer "header" is text

type atState struct {
	name, id string
	start    int // offset of the '@'
	brace    int // offset of the '{'
	scan     int // the braces are counted up to here
	depth    int
	quote    byte // the quote of the string being read, or 0
	escaped  bool
	tried    bool // the one-pass read was tried
}

type headerStatus int

const (
	headerOK   headerStatus = iota
	headerMore              // the header may still be completed
	headerNone              // not a call
)

// startAt begins reading an @ call at off, the start of a line, if there is
// one there.
func (p *Parser) startAt(off int) headerStatus {
	data := p.bytes(off, p.end())
	if len(data) > maxAtHeader {
		data = data[:maxAtHeader]
	}
	more := func() headerStatus {
		if p.eof || len(data) >= maxAtHeader {
			return headerNone
		}
		return headerMore
	}
	i := 1
	name := takeWhile(data[i:], isNameByte)
	i += len(name)
	if i >= len(data) {
		return more()
	}
	if name == "" || data[i] != '(' {
		return headerNone
	}
	i++
	id := takeWhile(data[i:], isCallIDByte)
	i += len(id)
	if i+1 >= len(data) {
		return more()
	}
	if id == "" || data[i] != ')' || data[i+1] != ':' {
		return headerNone
	}
	i += 2
	for i < len(data) && isSpace(data[i]) {
		i++
	}
	if i >= len(data) {
		return more()
	}
	if data[i] != '{' {
		return headerNone
	}
	p.at = atState{name: name, id: id, start: off, brace: off + i, scan: off + i + 1, depth: 1}
	p.mode = modeAt
	return headerOK
}

// stepAt counts braces until the arguments end.
func (p *Parser) stepAt() bool {
	a := &p.at
	if !a.tried {
		// A reply parsed whole usually holds all of the arguments: read
		// them in one pass. Where that succeeds it ends where counting
		// braces would (strings and escapes are delimited alike). It is
		// tried once per call, so streaming stays linear.
		a.tried = true
		l := lenient{b: p.bytes(a.brace, p.end()), shared: p.shared, scratch: p.jsonScratch}
		v, err := l.value(0)
		p.jsonScratch = l.scratch
		if err == nil {
			end := a.brace + l.i
			p.emitAt(v, nil, end)
			p.resumeAt(end, false)
			return true
		}
	}
	data := p.bytes(a.scan, p.end())
	for i := 0; i < len(data); i++ {
		c := data[i]
		switch {
		case a.escaped:
			a.escaped = false
		case a.quote != 0:
			// Skip to the string's next quote or backslash in a tight
			// loop: strings are most of a call's bytes.
			j := i
			for j < len(data) && data[j] != a.quote && data[j] != '\\' {
				j++
			}
			i = j
			switch {
			case j == len(data):
			case data[j] == '\\':
				a.escaped = true
			default:
				a.quote = 0
			}
		case c == '\\':
			a.escaped = true
		case c == '"' || c == '\'':
			a.quote = c
		case c == '{':
			a.depth++
		case c == '}':
			a.depth--
			if a.depth == 0 {
				end := a.scan + i + 1
				p.finishAt(end)
				p.resumeAt(end, false)
				return true
			}
		}
	}
	a.scan = p.end()
	if p.eof {
		p.problem(a.start, fmt.Sprintf("the arguments of @%s(%s) never end: a '}' or a closing quote is missing", a.name, a.id))
		p.pos, p.mode = p.end(), modeDone
	}
	return false
}

func (p *Parser) finishAt(end int) {
	v, err := parseLenientJSON(p.bytes(p.at.brace, end))
	p.emitAt(v, err, end)
}

// emitAt reports the call whose arguments, ending at end, read as v.
func (p *Parser) emitAt(v any, err error, end int) {
	a := &p.at
	if err != nil {
		p.problem(a.start, fmt.Sprintf("the arguments of @%s(%s) are not valid JSON: %v", a.name, a.id, err))
		return
	}
	obj, ok := v.(map[string]any)
	if !ok {
		p.problem(a.start, fmt.Sprintf("the arguments of @%s(%s) must be a JSON object", a.name, a.id))
		return
	}
	p.emitUse(tools.ToolUse{
		Tool:   a.name,
		Kwargs: obj,
		CallID: a.id,
		Start:  a.start,
		End:    end,
		Format: tools.FormatTool,
	})
}

func takeWhile(b []byte, ok func(byte) bool) string {
	i := 0
	for i < len(b) && ok(b[i]) {
		i++
	}
	return string(b[:i])
}

func isNameByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.'
}

func isCallIDByte(c byte) bool { return isNameByte(c) || c == '-' || c == ':' }
