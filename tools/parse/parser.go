package parse

import (
	"bytes"
	"errors"
	"unsafe"

	"github.com/agentls/agentls/tools"
)

// Options configures a Parser.
type Options struct {
	// Format is the tool-call syntax to look for; the zero value means
	// tools.FormatMarkdown.
	Format tools.Format
	// Lookup resolves a fenced block's type (the first word of its language
	// tag) to a tool. With a nil Lookup no fenced block is a tool use, but
	// blocks are still reported by Blocks.
	Lookup func(blockType string) (tools.ToolRef, bool)
	// KeepBlocks keeps every top-level fenced block for Blocks, not only
	// those that are tool uses.
	KeepBlocks bool
	// StartInThinking says the reply begins inside a thinking section that
	// the model's chat template opened in the prompt (DeepSeek-R1, QwQ): the
	// text up to the first </think> or </thinking> is thinking.
	StartInThinking bool
	// TaggedThinking says every thinking section in the reply has its
	// opening tag: the server sends the model's reasoning apart from its
	// text (reasoning_content), or the model does not think in text. A
	// closing tag with no opening one is then text, and calls are reported
	// as soon as they are complete. Without it, a reply that opened no
	// section may turn out to have begun inside one (think.go): the parser
	// reports nothing until the reply ends or a think tag settles it.
	TaggedThinking bool
}

type parseMode int

const (
	modeOuter parseMode = iota // between blocks and calls
	modeThink                  // inside <think>…</think>
	modeFence                  // inside a fenced block
	modeXML                    // inside <tool-use> or <function_calls>
	modeAt                     // inside the JSON of an @name(id): call
	modeDone                   // the rest of the input cannot hold anything
)

// Parser finds fenced blocks and tool uses in a model's reply as it streams.
//
// Write the reply in chunks of any size, then call Finish. After each Write,
// Blocks and ToolUses return what is certain so far: a block counts once its
// closing fence is followed by text that settles it (a blank line, another
// fence, or enough lookahead), never earlier, so nothing reported is ever
// retracted. Finish applies the end-of-input rules (a closing fence at the
// very end closes its block).
//
// The parser keeps only the part of the reply that an undecided block or
// call still needs, and never re-scans decided text: total work is linear in
// the reply's length however it is chunked.
type Parser struct {
	opts Options

	buf  []byte // the reply from offset base on
	base int
	eof  bool
	// shared says buf is the memory of a string given to WriteString, which
	// block contents can then share instead of copying. The parser never
	// writes into it.
	shared bool
	// own is the memory the parser owns; buf lies in it unless shared.
	// Written chunks are appended in it, and the bytes still held are moved
	// to its front when its end is reached, so a streamed reply costs a
	// buffer of twice the longest undecided span, not an allocation per
	// span: block contents and call arguments are copied out of it.
	own []byte

	// nls[nlHead:] are the offsets of the newlines from pos up to
	// nlScanned, found as lines are needed: each byte is searched once.
	nls       []int
	nlHead    int
	nlScanned int

	pos       int  // offset of the first byte not yet decided on
	lineStart bool // pos is at the start of a line, where fences, think tags and @ calls count
	mode      parseMode

	// headlessOpen says a closing think tag with no opening one may still
	// come and turn everything before it into thinking: while it is set
	// (and the reply has not ended) nothing found is reported.
	headlessOpen bool
	// skipWrapperFence says the line at pos follows the </thinking> of a
	// ```thinking> section: a bare fence there ends the wrapper.
	skipWrapperFence bool
	// lone follows the lines read inside an xml or @ call while a headless
	// close may come, for a line that is only a closing think tag.
	lone loneScan

	fence fenceState
	fls   fenceLinesCache // for decisions in content blocks (blockkind.go)
	think thinkState
	xml   xmlState
	at    atState

	jsonScratch []byte // reused to decode escaped JSON strings

	blocks   []Block
	uses     []tools.ToolUse
	problems []Problem
}

// NewParser returns a Parser for one reply.
func NewParser(opts Options) *Parser {
	if opts.Format == "" {
		opts.Format = tools.FormatMarkdown
	}
	// Room for a small reply's lookahead and calls, so most replies grow
	// these slices once or never.
	p := &Parser{opts: opts, lineStart: true, nls: make([]int, 0, 64), uses: make([]tools.ToolUse, 0, 4)}
	p.headlessOpen = !opts.TaggedThinking && !opts.StartInThinking
	if opts.StartInThinking {
		p.enterThink(0, "")
	}
	return p
}

// ErrFinished is returned by Write after Finish.
var ErrFinished = errors.New("parse: write to a parser after Finish")

// Write adds the next chunk of the reply.
func (p *Parser) Write(b []byte) (int, error) {
	if p.eof {
		return 0, ErrFinished
	}
	p.hold(b)
	p.run()
	return len(b), nil
}

// minOwn is the size of the parser's first buffer: a streamed reply of
// a few KB never grows it.
const minOwn = 4 << 10

// hold appends b to the bytes held, in the parser's own memory. When own's
// end is reached, the held bytes move to its front if they fill at most
// half of it — then at least as many bytes were dropped since the last
// move as are moved now, so moving costs O(1) per byte written — and to a
// buffer twice their size otherwise, so buffers grow geometrically.
func (p *Parser) hold(b []byte) {
	if !p.shared && len(b) <= cap(p.buf)-len(p.buf) {
		p.buf = append(p.buf, b...)
		return
	}
	need := len(p.buf) + len(b)
	switch {
	case len(p.buf) == 0 && len(b) > cap(p.own):
		// A whole reply written at once needs no room to grow: what
		// follows it, if anything, moves to the front.
		p.own = make([]byte, len(b)+minOwn)
	case need > cap(p.own)/2:
		p.own = make([]byte, max(2*need, minOwn))
	}
	n := copy(p.own, p.buf) // copy moves overlapping bytes correctly
	n += copy(p.own[n:], b)
	p.buf = p.own[:n:len(p.own)]
	p.shared = false
}

// WriteString adds the next chunk of the reply. The first chunk is not
// copied: a reply parsed whole shares its memory with the blocks found in it.
func (p *Parser) WriteString(s string) (int, error) {
	if p.eof {
		return 0, ErrFinished
	}
	if len(p.buf) > 0 || len(s) == 0 {
		// hold only reads s, copying it after the bytes held.
		p.hold(unsafe.Slice(unsafe.StringData(s), len(s)))
		p.run()
		return len(s), nil
	}
	// The parser never writes into a shared buf (hold copies it to own
	// memory first), so it may alias the immutable string.
	p.buf = unsafe.Slice(unsafe.StringData(s), len(s))
	p.shared = true
	p.run()
	return len(s), nil
}

// Finish marks the end of the reply and settles what end of input decides.
func (p *Parser) Finish() {
	if p.eof {
		return
	}
	p.eof = true
	p.run()
}

// Blocks returns the top-level fenced blocks found so far, in text order,
// if Options.KeepBlocks is set. The slice is shared: callers must not
// modify it.
func (p *Parser) Blocks() []Block {
	if p.holding() {
		return nil
	}
	return p.blocks
}

// ToolUses returns the tool uses found so far, in text order.
// The slice is shared: callers must not modify it.
func (p *Parser) ToolUses() []tools.ToolUse {
	if p.holding() {
		return nil
	}
	return p.uses
}

// Problems returns what looked like tool calls but could not be read.
func (p *Parser) Problems() []Problem {
	if p.holding() {
		return nil
	}
	return p.problems
}

// holding says what was found is not reported yet: a headless closing
// think tag may still come and make it thinking (think.go).
func (p *Parser) holding() bool { return p.headlessOpen && !p.eof }

// ToolUses parses a whole reply and returns its tool uses.
func ToolUses(reply string, opts Options) []tools.ToolUse {
	p := NewParser(opts)
	p.WriteString(reply)
	p.Finish()
	return p.uses
}

// Blocks parses a whole reply and returns its top-level fenced blocks.
func Blocks(reply string) []Block {
	p := NewParser(Options{Format: tools.FormatMarkdown, KeepBlocks: true})
	p.WriteString(reply)
	p.Finish()
	return p.blocks
}

func (p *Parser) run() {
	for {
		var progressed bool
		inCall := p.mode == modeXML || p.mode == modeAt
		switch p.mode {
		case modeOuter:
			progressed = p.stepOuter()
		case modeThink:
			progressed = p.stepThink()
		case modeFence:
			progressed = p.stepFence()
		case modeXML:
			progressed = p.stepXML()
		case modeAt:
			progressed = p.stepAt()
		case modeDone:
			progressed = false
		}
		if p.headlessOpen && p.opts.Format != tools.FormatMarkdown && p.loneCloseInCall(inCall) {
			progressed = true
		}
		if !progressed {
			break
		}
	}
	p.compact()
}

// loneScan is where the search for a lone closing think tag inside an xml
// or @ call stands.
type loneScan struct {
	active bool
	from   int // the next byte to look at
	// blank says the line holding from has only spaces and tabs before
	// from, and is not the call's first line.
	blank bool
}

// loneCloseInCall ends a headless thinking section at a line that is only
// </think> or </thinking> inside an xml or @ call — a draft call the
// thinking left open, which the answer's text would otherwise complete —
// as stepFence does inside a block. It looks at the bytes the last step
// read (up to pos) in a call, so whole and streamed parses find the same
// line at the same step. inCall says the step began inside a call. It
// reports whether it ended the section, moving pos back to the line after
// the tag: the text after it is read again, once, outside any call.
//
// It searches for the tag, not for lines, so a call's text costs one
// bytes.Index; each byte is looked at a bounded number of times.
func (p *Parser) loneCloseInCall(inCall bool) bool {
	const prefix = "</think"
	l := &p.lone
	if !inCall && !l.active {
		if p.mode != modeXML && p.mode != modeAt {
			return false
		}
		// A call began: its first line holds its start, so it is no lone tag.
		*l = loneScan{active: true, from: p.pos}
		return false
	}
	to := p.pos
	if p.mode == modeDone {
		to = p.end()
	}
	for l.from < to {
		k := bytes.Index(p.bytes(l.from, to), []byte(prefix))
		if k < 0 {
			// A tag cut at to may still be completed.
			l.advance(p, max(l.from, to-len(prefix)+1))
			break
		}
		tagAt := l.from + k
		l.advance(p, tagAt)
		end, complete := p.loneTagEnd(tagAt, to)
		if !complete {
			break // the rest of the line has not been read yet
		}
		if end >= 0 && l.blank {
			p.closeHeadlessAt(end)
			return true
		}
		l.advance(p, tagAt+1)
	}
	if p.mode != modeXML && p.mode != modeAt {
		l.active = false // back outside, where stepOuter reads the lines
	}
	return false
}

// advance moves the search to next, keeping blank up to date: only the
// blanks before next are looked at, back to a newline or another byte.
func (l *loneScan) advance(p *Parser, next int) {
	b := p.bytes(l.from, next)
	for i := len(b) - 1; i >= 0; i-- {
		if c := b[i]; c != ' ' && c != '\t' {
			l.blank = c == '\n'
			break
		}
	}
	l.from = next
}

// loneTagEnd looks at the closing think tag candidate at off, reading no
// further than to: it returns the start of the next line when the tag is
// complete and only whitespace follows it on its line, -1 when something
// else does. complete is false until enough has been read to tell.
func (p *Parser) loneTagEnd(off, to int) (next int, complete bool) {
	b := p.bytes(off, to)
	n := 0
	switch {
	case bytes.HasPrefix(b, []byte("</think>")):
		n = len("</think>")
	case bytes.HasPrefix(b, []byte("</thinking>")):
		n = len("</thinking>")
	case len(b) < len("</thinking>") && !p.eof && (bytes.HasPrefix([]byte("</think>"), b) || bytes.HasPrefix([]byte("</thinking>"), b)):
		return 0, false
	default:
		return -1, true
	}
	for i := n; i < len(b); i++ {
		switch b[i] {
		case ' ', '\t', '\r':
		case '\n':
			return off + i + 1, true
		default:
			return -1, true
		}
	}
	if p.eof && to == p.end() {
		return to, true // the tag ends the reply
	}
	return 0, false
}

// closeHeadlessAt ends the headless section at a lone tag inside a call
// and goes on reading outside any call at next, the start of the line after
// the tag.
func (p *Parser) closeHeadlessAt(next int) {
	p.closeHeadless()
	p.lone = loneScan{}
	p.pos, p.lineStart, p.mode = next, true, modeOuter
	// The newlines found so far are past next or dropped: find them again.
	p.nls, p.nlHead, p.nlScanned = p.nls[:0], 0, next
}

// stepOuter handles the line at pos outside any block or call.
func (p *Parser) stepOuter() bool {
	skipped := p.skipTextLines()
	if p.awaitingLine() {
		return skipped
	}
	ln, st := p.lineAt(p.pos)
	if st != lineOK {
		return skipped
	}
	text := p.bytes(ln.start, ln.end)
	if p.skipWrapperFence {
		p.skipWrapperFence = false
		if t := trimSpace(text); isBareFence(t, countTicks(t)) {
			p.nextLine(ln) // "</thinking>```": the end of the ```thinking> wrapper
			return true
		}
	}
	if p.lineStart {
		if tag := thinkOpenTag(text); tag != "" {
			p.enterThink(ln.start+len(tag), "</"+tag[1:])
			return true
		}
		if ticks := countTicks(text); ticks >= 3 {
			if body := thinkingFence(text, ticks); body >= 0 {
				p.enterThink(ln.start+body, "</thinking>")
				p.think.fenced = true
				return true
			}
			p.openFence(ln, text, ticks)
			return true
		}
		if p.opts.Format == tools.FormatTool && len(text) > 0 && text[0] == '@' {
			switch p.startAt(ln.start) {
			case headerMore:
				return false
			case headerOK:
				return true
			}
		}
	}
	xmlAt, root := -1, ""
	if p.opts.Format == tools.FormatXML {
		xmlAt, root = findXMLRoot(text)
	}
	if p.headlessOpen {
		if k, tag := headlessClose(text); k >= 0 && (xmlAt < 0 || k < xmlAt) {
			p.closeHeadless()
			p.resumeAt(ln.start+k+len(tag), true)
			return true
		}
	}
	if xmlAt >= 0 {
		p.enterXML(ln.start+xmlAt, root)
		return true
	}
	p.nextLine(ln)
	return true
}

// skipTextLines moves pos past the complete lines at pos that are plain
// text, as stepOuter would one line at a time, without its line
// bookkeeping: lines that hold no '<' (so no think tag, no headless close,
// no xml root) and do not start with a fence or, in the tool format, an
// '@'. It runs only at a line start outside a ```thinking> wrapper, and
// stops as skipLines does; it reports whether it moved.
func (p *Parser) skipTextLines() bool {
	if !p.lineStart || p.skipWrapperFence {
		return false
	}
	atCalls := p.opts.Format == tools.FormatTool
	return p.skipLines(func(line []byte) bool {
		return countTicks(line) < 3 && !(atCalls && len(line) > 0 && line[0] == '@') && bytes.IndexByte(line, '<') < 0
	}) > 0
}

// skipLines moves pos past the complete lines at pos (without their
// endings, as plain sees them) for which plain holds, and returns how many
// bytes it moved. It stops at the first line plain refuses and at a line
// not complete yet.
//
// Each byte is still searched for a newline once: lines whose newlines a
// lookahead has found already (a block's close decision) are read from
// nls, the search resumes at nlScanned, and the newline of the line it
// stops at is recorded in nls.
func (p *Parser) skipLines(plain func(line []byte) bool) int {
	p.dropNewlinesBefore(p.pos)
	start := p.pos
	for p.nlHead < len(p.nls) {
		nl := p.nls[p.nlHead]
		if !plain(p.bytes(p.pos, nl)) {
			return p.pos - start
		}
		p.pos = nl + 1
		p.nlHead++
	}
	// Offsets in b, the bytes from base on: at is the start of the line
	// being read, from where the newline search resumes.
	base := p.pos
	b := p.bytes(base, p.end())
	at, from := 0, max(p.nlScanned-base, 0)
	for {
		j := bytes.IndexByte(b[from:], '\n')
		if j < 0 {
			from = len(b)
			break
		}
		nl := from + j
		if !plain(b[at:nl]) {
			// The step reads this line: hand it its newline.
			p.nls = append(p.nls, base+nl)
			from = nl + 1
			break
		}
		at, from = nl+1, nl+1
	}
	p.pos, p.nlScanned = base+at, base+from
	return p.pos - start
}

// awaitingLine reports whether the line at pos has not ended yet and more
// of the reply may come — lineAt would return lineMore — once the skip
// loops have searched what was written: a written chunk without a newline
// then costs no more than that search.
func (p *Parser) awaitingLine() bool {
	return !p.eof && p.nlScanned >= p.end() && p.nlHead >= len(p.nls)
}

// nextLine moves past ln in outer mode.
func (p *Parser) nextLine(ln lineInfo) {
	if ln.final {
		p.pos, p.mode = ln.end, modeDone
		return
	}
	p.pos, p.lineStart = ln.next, true
}

// resumeAt continues in outer mode at off, which begins a line only when
// lineStart says so (text after </think> does; text after an xml or @ call,
// in the middle of a line, does not).
func (p *Parser) resumeAt(off int, lineStart bool) {
	p.pos, p.lineStart, p.mode = off, lineStart, modeOuter
}

func (p *Parser) emitUse(u tools.ToolUse) { p.uses = append(p.uses, u) }

func (p *Parser) problem(start int, msg string) {
	p.problems = append(p.problems, Problem{Start: start, Message: msg})
}

// end is the offset just past the bytes written so far.
func (p *Parser) end() int { return p.base + len(p.buf) }

// bytes returns the reply's bytes from offset a to b.
func (p *Parser) bytes(a, b int) []byte { return p.buf[a-p.base : b-p.base] }

func (p *Parser) text(a, b int) string {
	if p.shared && b > a {
		return unsafe.String(&p.buf[a-p.base], b-a)
	}
	return string(p.bytes(a, b))
}

// compact drops the bytes and newline offsets that nothing undecided needs,
// so a long reply is held in memory only as far as an open block needs it.
func (p *Parser) compact() {
	keep := p.pos
	switch p.mode {
	case modeFence:
		keep = min(keep, p.fence.contentStart)
	case modeThink:
		keep = min(keep, p.think.searchFrom)
	case modeXML:
		keep = min(keep, p.xml.keep())
	case modeAt:
		keep = min(keep, p.at.brace)
	case modeDone:
		keep = p.end()
	}
	if p.lone.active {
		keep = min(keep, p.lone.from) // a tag cut there may be completed
	}
	if drop := keep - p.base; drop > 0 {
		// Reslice rather than copy: hold moves the live part when own's
		// end is reached, once for many writes.
		p.buf = p.buf[drop:]
		p.base = keep
	}
}
