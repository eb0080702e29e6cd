package parse

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/agentls/agentls/tools"
)

// The fence rules, after gptme's (research/gptme.md §2), with the closing
// rule changed to read replies as models write them:
//
//   - A line starting, at column 0, with n >= 3 backticks opens a block of
//     fence length n; the rest of the line, trimmed, is its language tag.
//     Indented fences and ~~~ fences are not fences. A line of exactly six
//     backticks glued to a tag (``````patch a.go) is repaired to a 3-fence.
//     A fence tagged "thinking>" (```thinking>, Gemini's way) opens a
//     thinking section, not a block (think.go).
//   - Inside a block of fence length L at nesting depth d, only fences of
//     at least L backticks count: in a ```` block a ``` line is content,
//     as CommonMark has it.
//     – if d == 1 and the line starts with L backticks followed by another
//     fence glued to a tag (``````shell) or by a think tag (```<think>),
//     the block closes after its first L backticks and the rest of the line
//     is read again as a new line;
//     – a bare fence (backticks only) of length L, or of any length >= L
//     when d > 1, is a close candidate. At d > 1 it closes a nested level.
//     At d == 1 a fence followed by the end, a blank line, another fence
//     or a think tag closes the block; a fence followed by a line of text
//     is read by the block's kind (blockkind.go): in a command block
//     (shell, ipython, …) it closes; in a block that runs nothing (```go,
//     a bare block, a Markdown document) it opens a nested level when a
//     bare fence within the following 19 lines is followed, within 4
//     lines, by a non-blank line (stopping early at a fence with a
//     language tag), and closes the block otherwise, as gptme reads it;
//     in a content block (save, append, patch, …) the reading that leaves
//     every later fence paired wins, once the reply has ended, and when
//     two readings pair, the block closes and a Problem says it may be cut
//     short;
//     – a fence with text after the backticks that starts with a letter,
//     digit, '_', '/', '.' or '~' opens a nested level;
//     – a line that is only </think> or </thinking>, while the reply may
//     have begun inside thinking, ends that thinking, block and all
//     (think.go);
//     – every other line is content.
//   - A block still open at the end of input is dropped; when it was a call,
//     or held a fence, an xml or an @ call that would have been one outside
//     it, it is a Problem that names it, so the model learns why nothing
//     ran.
//
// Why the close rule: gptme never closes a block at a fence followed by a
// line of text, and its lookahead takes the fence for a nested opener when
// a later block follows. But "```shell … ```" then prose, then a bare
// "```" output block is how real replies look, and there the prose and
// the output became part of the command (gptme issue #3697): a command
// block closes at its bare fence. A content block must instead keep what
// it holds — a save's Markdown with a bare tree listing inside, a Python
// string holding fences — and must never write prose that followed it: so
// it waits for the reply's end and reads the fence the one way in which
// the later fences pair up; where two ways do, it writes only the lines it
// surely holds and says so (contentFenceAction).
//
// gptme decides all this on the whole text; here each decision waits until
// the lines it looks at have arrived, so streaming never reports a block
// that more text could undo. In a command block a close needs no
// lookahead at all: it is certain once the fence's line has ended.

// Lookahead limits of a plain block's opener-or-close decision (gptme's
// values).
const (
	openerLookahead  = 19 // lines searched for a later bare fence
	openerAfterFence = 4  // lines after that fence searched for text
)

type fenceState struct {
	lang  string
	fence int       // length of the opening fence
	depth int       // nesting depth, 1 for the block itself
	start int       // offset of the opening fence
	kind  blockKind // how a bare fence followed by text is read
	// term tests the last line of a complete body, for a content block
	// whose tool has one (a patch's >>>>>>> UPDATED): nil otherwise.
	term       func(line []byte) bool
	call       bool          // the block is a tool call
	ref        tools.ToolRef // the tool it calls, when call
	tagRest    string        // the language tag after the block type
	hasContent bool
	// contentStart and contentEnd delimit the content lines seen so far.
	contentStart, contentEnd int
	// swallowed names the first nested fence that would have opened a call
	// outside the block, for the Problem of a block that never closes.
	swallowed string
	// withheld: the reply may have been cut short inside this block, so it
	// is neither run nor listed; a Problem says so (reportCut).
	withheld bool
}

// openFence starts a block at the fence line ln, whose text begins with
// ticks backticks.
func (p *Parser) openFence(ln lineInfo, text []byte, ticks int) {
	fence := ticks
	if ticks == 6 && len(text) > 6 && text[6] != '`' && !isSpace(text[6]) {
		// ``````patch a.go: two fences glued together by a model that meant
		// to close one block and open the next; gptme repairs it to ```patch.
		fence = 3
	}
	// The tag is the rest of the line, trimmed: a substring of the reply
	// when the reply is shared, as block contents are.
	i, j := trimSpaceBounds(text[ticks:])
	lang := p.text(ln.start+ticks+i, ln.start+ticks+j)
	blockType, rest := splitTag(lang)
	ref, call := p.lookup(blockType)
	p.fence = fenceState{
		lang:         lang,
		fence:        fence,
		depth:        1,
		start:        ln.start,
		kind:         blockKindOf(blockType, ref, call),
		term:         blockTerminator(ref, call),
		call:         call,
		ref:          ref,
		tagRest:      rest,
		contentStart: ln.next,
		contentEnd:   ln.next,
	}
	if ln.final {
		p.unclosed() // an opener at the end
		p.pos, p.mode = ln.end, modeDone
		return
	}
	p.pos, p.lineStart, p.mode = ln.next, true, modeFence
}

// stepFence handles the line at pos inside a block.
func (p *Parser) stepFence() bool {
	skipped := p.skipContentLines()
	if p.awaitingLine() {
		return skipped
	}
	ln, st := p.lineAt(p.pos)
	if st != lineOK {
		return skipped
	}
	f := &p.fence
	text := p.bytes(ln.start, ln.end)
	if p.headlessOpen && isLoneThinkClose(text) {
		// A reply that began inside thinking drafts blocks it never closes;
		// its </think> on a line of its own ends the thinking, block and all.
		p.closeHeadless()
		p.mode = modeOuter
		p.nextLine(ln)
		return true
	}
	ticks := countTicks(text)

	if f.depth == 1 && ticks == 0 && f.term != nil {
		if i := gluedClose(text, f.fence, f.term); i >= 0 {
			// ">>>>>>> UPDATED```": the body's last line with the closing
			// fence glued to it.
			if !f.hasContent {
				f.hasContent = true
				f.contentStart = ln.start
			}
			f.contentEnd = ln.start + i
			p.emitFence(ln.end)
			p.mode = modeOuter
			p.nextLine(ln)
			return true
		}
	}

	if f.depth == 1 && ticks >= f.fence {
		if rest := text[f.fence:]; gluedFence(rest) || thinkOpenTag(rest) != "" {
			closeEnd := ln.start + f.fence
			p.emitFence(closeEnd)
			p.resumeAt(closeEnd, true)
			return true
		}
	}

	if ticks >= 3 && ticks >= f.fence {
		bare := isBareFence(text, ticks)
		switch {
		case bare && f.depth > 1:
			f.depth-- // closes a nested level
		case bare && ticks == f.fence:
			act, decided := p.closeDecision(ln)
			if !decided {
				return false
			}
			switch act {
			case fenceCloses:
				p.emitFence(ln.end)
				p.mode = modeOuter
				p.nextLine(ln)
				return true
			case fenceOpens:
				f.depth++ // a nested bare block
			}
			// fenceOpens and fenceIsText: the line is content.
		default:
			if after := trimSpace(text[ticks:]); len(after) > 0 && opensNesting(after[0]) {
				f.depth++
				if !f.call && f.swallowed == "" && f.depth == 2 {
					// Only a block that is no call needs this: an unclosed
					// call is a Problem already.
					if tag := string(after); p.opensCall(tag) {
						f.swallowed = fmt.Sprintf("the %q block", strings.Repeat("`", ticks)+tag)
					}
				}
			}
		}
	}

	// The line is content.
	if !f.hasContent {
		f.hasContent = true
		f.contentStart = ln.start
	}
	f.contentEnd = ln.end
	if ln.final {
		p.unclosed()
		p.pos, p.mode = ln.end, modeDone
		return true
	}
	p.pos = ln.next
	return true
}

// skipContentLines moves pos past the complete lines at pos that are plain
// content of the block — lines that start with fewer backticks than its
// fence, and are neither a lone closing think tag while a headless close
// may come nor a patch's last line with the fence glued on — as stepFence
// would, one line at a time, but without its line bookkeeping: most of a
// reply is such lines, and the per-line cost of lineAt, not the bytes, is
// what a long block costs. It stops as skipLines does; it reports whether
// it moved.
func (p *Parser) skipContentLines() bool {
	f := &p.fence
	fence, lone := f.fence, p.headlessOpen
	base := p.pos
	plain := func(line []byte) bool {
		// A lone think close ends in '>' or in whitespace: the last byte
		// rules most lines out without a call.
		return countTicks(line) < fence && !(lone && len(line) >= len("</think>") && (line[len(line)-1] == '>' || isSpace(line[len(line)-1])) && isLoneThinkClose(line))
	}
	if term := f.term; term != nil && f.depth == 1 {
		// A glued close ends in '`' or in whitespace.
		plain = func(line []byte) bool {
			n := len(line)
			return countTicks(line) < fence && !(lone && n >= len("</think>") && (line[n-1] == '>' || isSpace(line[n-1])) && isLoneThinkClose(line)) &&
				!(n > fence && (line[n-1] == '`' || isSpace(line[n-1])) && gluedClose(line, fence, term) >= 0)
		}
	}
	at := p.skipLines(plain)
	if at == 0 {
		return false
	}
	// The content ends before the last skipped line's ending.
	end := base + at - 1
	if at >= 2 && p.bytes(end-1, end)[0] == '\r' {
		end--
	}
	if !f.hasContent {
		f.hasContent = true
		f.contentStart = base
	}
	f.contentEnd = end
	return true
}

// unclosed reports the open block, which the input ended inside: a Problem
// when it was a call or swallowed one, so that a missing fence is never a
// silent loss of everything after it.
func (p *Parser) unclosed() {
	f := &p.fence
	if !f.call && f.swallowed == "" && f.hasContent {
		// Read once, at the end: the content is still held.
		f.swallowed = p.callIn(p.bytes(f.contentStart, f.contentEnd))
	}
	if !f.call && f.swallowed == "" {
		return
	}
	opener := strings.Repeat("`", f.fence) + f.lang
	msg := fmt.Sprintf("the block opened by %q never closes (the reply ended inside it), so nothing in it was run", opener)
	if f.swallowed != "" {
		msg += ", not even " + f.swallowed + " inside it"
	}
	msg += fmt.Sprintf("; end each block with a line of %d backticks", f.fence)
	p.problem(f.start, msg)
}

// lookup resolves a block type to the tool its blocks call, if any.
func (p *Parser) lookup(blockType string) (tools.ToolRef, bool) {
	if p.opts.Format == tools.FormatXML || p.opts.Lookup == nil {
		return tools.ToolRef{}, false
	}
	return p.opts.Lookup(blockType)
}

// callIn names the first xml or @ call of the reply's format written in b,
// the content of a block that never closed; "" if there is none. (Fenced
// calls inside are found as the block is read.)
func (p *Parser) callIn(b []byte) string {
	switch p.opts.Format {
	case tools.FormatXML:
		for _, root := range []string{rootToolUse, rootFunctionCalls} {
			if bytes.Contains(b, []byte("<"+root+">")) {
				return "the <" + root + "> call"
			}
		}
	case tools.FormatTool:
		for len(b) > 0 {
			line := b
			if i := bytes.IndexByte(b, '\n'); i >= 0 {
				line, b = b[:i], b[i+1:]
			} else {
				b = nil
			}
			if len(line) == 0 || line[0] != '@' {
				continue
			}
			name := takeWhile(line[1:], isNameByte)
			rest := line[1+len(name):]
			if name == "" || len(rest) == 0 || rest[0] != '(' {
				continue
			}
			id := takeWhile(rest[1:], isCallIDByte)
			if id != "" && bytes.HasPrefix(rest[1+len(id):], []byte("):")) {
				return "the @" + name + "(" + id + ") call"
			}
		}
	}
	return ""
}

// opensCall reports whether a fence tagged lang would open a call at the
// top level.
func (p *Parser) opensCall(lang string) bool {
	blockType, _ := splitTag(lang)
	_, ok := p.lookup(blockType)
	return ok
}

// splitTag splits a language tag into its block type (the first word) and
// the rest.
func splitTag(lang string) (blockType, rest string) {
	if i := strings.IndexAny(lang, " \t"); i >= 0 {
		return lang[:i], lang[i+1:]
	}
	return lang, ""
}

// opensNesting reports whether a fence whose text starts with c opens a
// nested block (```go, ```./x) rather than being text (```" or ```-).
func opensNesting(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
		c == '_' || c == '/' || c == '.' || c == '~'
}

// gluedFence reports whether b is a fence glued to a language tag: three or
// more backticks directly followed by a character that is not whitespace.
func gluedFence(b []byte) bool {
	n := countTicks(b)
	return n >= 3 && n < len(b) && !isSpace(b[n])
}

// closeDecision decides what the bare fence ln of the block's own length,
// at depth 1, does: close the block, open a nested bare block in it, or
// stand in its content as a line of text. decided is false until enough
// of the reply has arrived.
func (p *Parser) closeDecision(ln lineInfo) (act fenceAction, decided bool) {
	f := &p.fence
	if f.kind == kindCommand {
		return fenceCloses, true
	}
	next, st := p.lineAfter(ln)
	switch st {
	case lineMore:
		return 0, false
	case lineNone:
		return fenceCloses, true
	}
	nt := p.bytes(next.start, next.end)
	if isBlank(nt) || countTicks(nt) >= 3 || thinkOpenTag(nt) != "" {
		return fenceCloses, true
	}
	if f.kind == kindContent {
		if !p.eof {
			return 0, false // the pairing of the fences after it decides
		}
		return p.contentFenceAction(ln), true
	}
	opener, decided := p.nestedOpenerAhead(next)
	if opener {
		return fenceOpens, decided
	}
	return fenceCloses, decided
}

// nestedOpenerAhead looks at the lines from first on for evidence that the
// fence before first opens a nested block: a later bare fence (indentation
// allowed) followed within a few lines by more text.
func (p *Parser) nestedOpenerAhead(first lineInfo) (opener, decided bool) {
	ln := first
	for i := 0; i < openerLookahead; i++ {
		t := trimSpace(p.bytes(ln.start, ln.end))
		if n := countTicks(t); n >= 3 {
			if n != len(t) {
				return false, true // a fence with a language tag: stop
			}
			after := ln
			for j := 0; j < openerAfterFence; j++ {
				var st lineStatus
				after, st = p.lineAfter(after)
				switch st {
				case lineMore:
					return false, false
				case lineNone:
					return false, true
				}
				if !isBlank(p.bytes(after.start, after.end)) {
					return true, true
				}
			}
			return false, true
		}
		var st lineStatus
		ln, st = p.lineAfter(ln)
		switch st {
		case lineMore:
			return false, false
		case lineNone:
			return false, true
		}
	}
	return false, true
}

// emitFence reports the open block, closed by a fence ending at end.
func (p *Parser) emitFence(end int) {
	f := &p.fence
	b := Block{
		Lang:         f.lang,
		Start:        f.start,
		End:          end,
		ContentStart: f.contentStart,
		ContentEnd:   f.contentStart,
		Fence:        f.fence,
	}
	if f.hasContent {
		b.ContentEnd = f.contentEnd
		b.Content = p.text(f.contentStart, f.contentEnd)
	}
	if f.withheld {
		return
	}
	if p.opts.KeepBlocks {
		p.blocks = append(p.blocks, b)
	}
	if f.call {
		p.emitUse(blockToolUse(b, f.ref, f.tagRest))
	}
}

// blockToolUse returns the tool use of a block whose type names the tool
// ref; rest is its language tag after the type.
func blockToolUse(b Block, ref tools.ToolRef, rest string) tools.ToolUse {
	args := []string{}
	if ref.PathArg {
		if path := strings.TrimSpace(rest); path != "" {
			args = append(args, path)
		}
	} else {
		args = append(args, strings.Fields(rest)...)
	}
	return tools.ToolUse{
		Tool:    ref.Name,
		Args:    args,
		Content: b.Content,
		Start:   b.Start,
		End:     b.End,
		Format:  tools.FormatMarkdown,
	}
}

// thinkOpenTag returns "<think>" or "<thinking>" if b starts with one.
func thinkOpenTag(b []byte) string {
	switch {
	case bytes.HasPrefix(b, []byte("<think>")):
		return "<think>"
	case bytes.HasPrefix(b, []byte("<thinking>")):
		return "<thinking>"
	}
	return ""
}
