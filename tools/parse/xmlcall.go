package parse

import (
	"bytes"
	"html"
	"strings"

	"github.com/agentls/agentls/tools"
)

// The xml format has two forms, both read outside fenced blocks and
// thinking sections only:
//
//	<tool-use>
//	<save path="a.go">
//	package a
//	</save>
//	</tool-use>
//
// where each child element of <tool-use> is one call (tool = tag name, args
// = attribute values in order, content = the element's text), and
//
//	<function_calls>
//	<invoke name="save">
//	<parameter name="path">a.go</parameter>
//	<parameter name="content">package a</parameter>
//	</invoke>
//	</function_calls>
//
// where each <invoke> is one call (tool = its name attribute, args = its
// other attribute values, kwargs = its <parameter> elements).
//
// Models write code into these elements without escaping it, so element
// text is taken raw up to the element's own closing tag: '<' and '&' in it
// survive, and entities are not decoded (a CDATA section is unwrapped).
// Attribute values are decoded. A call counts as soon as its element is
// closed.

const (
	rootToolUse       = "tool-use"
	rootFunctionCalls = "function_calls"
	maxTagLen         = 4096 // a longer "tag" is text
)

type xmlPhase int

const (
	xmlInRoot   xmlPhase = iota // between calls
	xmlInChild                  // in the text of a <tool-use> child
	xmlInInvoke                 // in an <invoke>, between parameters
	xmlInParam                  // in the text of a <parameter>
)

type xmlState struct {
	root      string
	phase     xmlPhase
	tagSearch int // an unfinished tag at pos waits for a '>' at or after this offset

	// The call being read.
	tool      string
	args      []string
	kwargs    map[string]any
	callStart int
	skip      bool            // an <invoke> without a name: read, then dropped
	text      strings.Builder // an <invoke>'s text outside its parameters

	// The element whose text is being read (a child or a parameter).
	closeTag     string
	paramName    string
	contentStart int
	searchFrom   int
	cdata        cdataState
}

// cdataState tracks a CDATA section that begins an element's text, inside
// which the element's closing tag is text.
type cdataState int

const (
	cdataUnknown cdataState = iota
	cdataNone
	cdataInside
	cdataAfter
)

const (
	cdataOpen  = "<![CDATA["
	cdataClose = "]]>"
)

// keep returns the first offset the xml state still needs.
func (x *xmlState) keep() int {
	switch x.phase {
	case xmlInChild, xmlInParam:
		return x.contentStart
	}
	return x.tagSearch
}

// findXMLRoot returns the offset in line of the first <tool-use> or
// <function_calls> outside inline code, and which it is.
func findXMLRoot(line []byte) (int, string) {
	best, root := -1, ""
	for _, r := range []string{rootToolUse, rootFunctionCalls} {
		tag := []byte("<" + r + ">")
		for from := 0; ; {
			k := bytes.Index(line[from:], tag)
			if k < 0 {
				break
			}
			k += from
			if bytes.Count(line[:k], []byte("`"))%2 == 0 {
				if best < 0 || k < best {
					best, root = k, r
				}
				break
			}
			from = k + 1
		}
	}
	return best, root
}

func (p *Parser) enterXML(start int, root string) {
	p.xml = xmlState{root: root}
	p.pos = start + len(root) + 2
	p.xml.tagSearch = p.pos
	p.mode = modeXML
}

// stepXML reads the next piece of an xml root.
func (p *Parser) stepXML() bool {
	x := &p.xml
	switch x.phase {
	case xmlInChild, xmlInParam:
		return p.readElementText()
	}
	data := p.bytes(p.pos, p.end())
	k := bytes.IndexByte(data, '<')
	if k < 0 {
		if x.phase == xmlInInvoke {
			x.text.Write(data)
		}
		p.pos = p.end()
		x.tagSearch = p.pos
		return p.xmlEOF()
	}
	if x.phase == xmlInInvoke {
		x.text.Write(data[:k])
	}
	p.pos += k
	x.tagSearch = max(x.tagSearch, p.pos)
	tag, n, st := p.parseTag(p.pos)
	switch st {
	case tagMore:
		return false
	case tagInvalid:
		if x.phase == xmlInInvoke {
			x.text.WriteByte('<')
		}
		p.pos++
		x.tagSearch = p.pos
		return true
	}
	tagStart := p.pos
	p.pos += n
	x.tagSearch = p.pos

	switch x.phase {
	case xmlInRoot:
		switch {
		case tag.closing && tag.name == x.root:
			p.resumeAt(p.pos, false)
		case tag.closing:
			// a stray closing tag: ignore it
		case x.root == rootToolUse:
			x.tool, x.args, x.kwargs, x.callStart = strings.ToLower(tag.name), tag.values(""), nil, tagStart
			if tag.selfClosing {
				p.emitXMLCall("")
				break
			}
			p.startElementText("</" + tag.name + ">")
			x.phase = xmlInChild
		case tag.name == "invoke":
			name, _ := tag.attr("name")
			x.tool, x.args, x.kwargs, x.callStart = name, tag.values("name"), nil, tagStart
			x.skip = name == ""
			x.text.Reset()
			if tag.selfClosing {
				p.finishInvoke()
				break
			}
			x.phase = xmlInInvoke
		}
	case xmlInInvoke:
		switch {
		case tag.closing && tag.name == "invoke":
			p.finishInvoke()
		case !tag.closing && tag.name == "parameter":
			x.paramName, _ = tag.attr("name")
			if tag.selfClosing {
				p.setParam("")
				break
			}
			p.startElementText("</parameter>")
			x.phase = xmlInParam
		default:
			x.text.Write(p.bytes(tagStart, p.pos)) // some other markup: text
		}
	}
	return true
}

// xmlEOF ends an unclosed root at the end of input.
func (p *Parser) xmlEOF() bool {
	if !p.eof {
		return false
	}
	if p.xml.phase != xmlInRoot {
		p.problem(p.xml.callStart, "tool call "+p.xml.tool+" was not closed before the end of the reply")
	}
	p.pos, p.mode = p.end(), modeDone
	return false
}

func (p *Parser) startElementText(closeTag string) {
	x := &p.xml
	x.closeTag, x.contentStart, x.searchFrom, x.cdata = closeTag, p.pos, p.pos, cdataUnknown
}

// readElementText looks for the closing tag of the element being read.
func (p *Parser) readElementText() bool {
	x := &p.xml
	if x.cdata == cdataUnknown || x.cdata == cdataInside {
		if !p.skipCDATA() {
			return p.xmlEOF()
		}
	}
	data := p.bytes(x.searchFrom, p.end())
	k := bytes.Index(data, []byte(x.closeTag))
	if k < 0 {
		x.searchFrom = max(x.searchFrom, p.end()-len(x.closeTag)+1)
		p.pos = x.contentStart
		return p.xmlEOF()
	}
	textEnd := x.searchFrom + k
	text := elementText(p.bytes(x.contentStart, textEnd))
	p.pos = textEnd + len(x.closeTag)
	x.tagSearch = p.pos
	if x.phase == xmlInParam {
		p.setParam(text)
		x.phase = xmlInInvoke
		return true
	}
	p.emitXMLCall(text)
	x.phase = xmlInRoot
	return true
}

func (p *Parser) setParam(value string) {
	x := &p.xml
	if x.kwargs == nil {
		x.kwargs = map[string]any{}
	}
	x.kwargs[x.paramName] = value
}

func (p *Parser) finishInvoke() {
	x := &p.xml
	x.phase = xmlInRoot
	if x.skip {
		return
	}
	p.emitXMLCall(trimElementText(x.text.String()))
}

func (p *Parser) emitXMLCall(content string) {
	x := &p.xml
	p.emitUse(tools.ToolUse{
		Tool:    x.tool,
		Args:    x.args,
		Kwargs:  x.kwargs,
		Content: content,
		Start:   x.callStart,
		End:     p.pos,
		Format:  tools.FormatXML,
	})
}

// skipCDATA moves the search for the closing tag past a CDATA section that
// begins the element's text. It reports false while more input is needed.
func (p *Parser) skipCDATA() bool {
	x := &p.xml
	if x.cdata == cdataUnknown {
		data := p.bytes(x.contentStart, p.end())
		i := 0
		for i < len(data) && isSpace(data[i]) {
			i++
		}
		rest := data[i:]
		if len(rest) < len(cdataOpen) && bytes.HasPrefix([]byte(cdataOpen), rest) && !p.eof {
			return false
		}
		if !bytes.HasPrefix(rest, []byte(cdataOpen)) {
			x.cdata = cdataNone
			return true
		}
		x.cdata = cdataInside
		x.searchFrom = x.contentStart + i + len(cdataOpen)
	}
	data := p.bytes(x.searchFrom, p.end())
	k := bytes.Index(data, []byte(cdataClose))
	if k < 0 {
		x.searchFrom = max(x.searchFrom, p.end()-len(cdataClose)+1)
		return false
	}
	x.searchFrom += k + len(cdataClose)
	x.cdata = cdataAfter
	return true
}

// elementText returns an element's text: a CDATA section unwrapped, or the
// raw text trimmed.
func elementText(raw []byte) string {
	t := trimSpace(raw)
	if bytes.HasPrefix(t, []byte("<![CDATA[")) && bytes.HasSuffix(t, []byte("]]>")) && len(t) >= 12 {
		return string(t[len("<![CDATA[") : len(t)-len("]]>")])
	}
	return trimElementText(string(raw))
}

// trimElementText drops the blank lines that surround an element's text,
// and the line break after the opening tag and before the closing one,
// but keeps the indentation of the first line (gptme strips it, which
// breaks patches and Python). Single-line text is trimmed.
func trimElementText(s string) string {
	for {
		i := strings.IndexByte(s, '\n')
		if i < 0 || strings.TrimSpace(s[:i]) != "" {
			break
		}
		s = s[i+1:]
	}
	for {
		i := strings.LastIndexByte(s, '\n')
		if i < 0 || strings.TrimSpace(s[i+1:]) != "" {
			break
		}
		s = strings.TrimSuffix(s[:i], "\r")
	}
	if !strings.Contains(s, "\n") {
		s = strings.TrimSpace(s)
	}
	return s
}

// xmlTag is one parsed tag.
type xmlTag struct {
	name        string
	closing     bool
	selfClosing bool
	attrs       []xmlAttr
}

type xmlAttr struct{ name, value string }

func (t xmlTag) attr(name string) (string, bool) {
	for _, a := range t.attrs {
		if a.name == name {
			return a.value, true
		}
	}
	return "", false
}

// values returns the attribute values in order, except the one named skip.
func (t xmlTag) values(skip string) []string {
	vs := []string{}
	for _, a := range t.attrs {
		if a.name != skip {
			vs = append(vs, a.value)
		}
	}
	return vs
}

type tagStatus int

const (
	tagOK tagStatus = iota
	tagMore
	tagInvalid
)

// parseTag reads the tag that starts with '<' at off. It waits (tagMore)
// while the tag may still be completed by more input; a '<' that cannot
// begin a tag is tagInvalid and read as text.
func (p *Parser) parseTag(off int) (xmlTag, int, tagStatus) {
	x := &p.xml
	data := p.bytes(off, p.end())
	if len(data) > maxTagLen {
		data = data[:maxTagLen]
	}
	// Parse only once a '>' that could end the tag has arrived.
	if from := x.tagSearch - off; from < len(data) {
		if bytes.IndexByte(data[max(from, 0):], '>') < 0 {
			x.tagSearch = off + len(data)
			return p.tagIncomplete(len(data))
		}
	} else {
		return p.tagIncomplete(len(data))
	}
	var t xmlTag
	i := 1
	if i < len(data) && data[i] == '/' {
		t.closing = true
		i++
	}
	name := xmlName(data[i:])
	if name == "" {
		return p.tagEnded(i, len(data))
	}
	t.name = name
	i += len(name)
	for {
		for i < len(data) && isSpace(data[i]) {
			i++
		}
		if i >= len(data) {
			return p.tagEnded(i, len(data))
		}
		switch {
		case data[i] == '>':
			return t, i + 1, tagOK
		case data[i] == '/' && !t.closing:
			if i+1 >= len(data) {
				return p.tagEnded(i+1, len(data))
			}
			if data[i+1] != '>' {
				return xmlTag{}, 0, tagInvalid
			}
			t.selfClosing = true
			return t, i + 2, tagOK
		case t.closing:
			return xmlTag{}, 0, tagInvalid
		}
		an := xmlName(data[i:])
		if an == "" {
			return xmlTag{}, 0, tagInvalid
		}
		i += len(an)
		for i < len(data) && isSpace(data[i]) {
			i++
		}
		if i >= len(data) {
			return p.tagEnded(i, len(data))
		}
		if data[i] != '=' {
			t.attrs = append(t.attrs, xmlAttr{name: an})
			continue
		}
		i++
		for i < len(data) && isSpace(data[i]) {
			i++
		}
		if i >= len(data) {
			return p.tagEnded(i, len(data))
		}
		var raw []byte
		if q := data[i]; q == '"' || q == '\'' {
			j := bytes.IndexByte(data[i+1:], q)
			if j < 0 {
				return p.tagEnded(len(data), len(data))
			}
			raw = data[i+1 : i+1+j]
			i += j + 2
		} else {
			j := i
			for j < len(data) && !isSpace(data[j]) && data[j] != '>' && data[j] != '/' {
				j++
			}
			raw = data[i:j]
			i = j
		}
		t.attrs = append(t.attrs, xmlAttr{name: an, value: html.UnescapeString(string(raw))})
	}
}

// tagEnded is the status of a tag whose text ran out at i of n bytes.
func (p *Parser) tagEnded(i, n int) (xmlTag, int, tagStatus) {
	if i < n {
		return xmlTag{}, 0, tagInvalid
	}
	return p.tagIncomplete(n)
}

func (p *Parser) tagIncomplete(n int) (xmlTag, int, tagStatus) {
	if p.eof || n >= maxTagLen {
		return xmlTag{}, 0, tagInvalid
	}
	return xmlTag{}, 0, tagMore
}

// xmlName returns the xml name that b starts with.
func xmlName(b []byte) string {
	i := 0
	for i < len(b) {
		c := b[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' ||
			i > 0 && (c >= '0' && c <= '9' || c == '-' || c == '.' || c == ':') {
			i++
			continue
		}
		break
	}
	return string(b[:i])
}
