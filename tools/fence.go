package tools

import (
	"bytes"
	"strings"
)

// The fence rules, after gptme's (research/gptme.md §2):
//
//   - A line starting, at column 0, with n >= 3 backticks opens a block of
//     fence length n; the rest of the line, trimmed, is its language tag.
//     Indented fences and ~~~ fences are not fences. A line of exactly six
//     backticks glued to a tag (``````patch a.go) is repaired to a 3-fence.
//   - Inside a block of fence length L at nesting depth d:
//     – if d == 1 and the line starts with L backticks followed by another
//     fence glued to a tag (``````shell) or by a think tag (```<think>),
//     the block closes after its first L backticks and the rest of the line
//     is read again as a new line;
//     – a bare fence (backticks only) of length L, or of any length when
//     d > 1, is a close candidate. At d > 1 it closes a nested level. At
//     d == 1 it closes the block when the next line is blank, another
//     fence, or absent (end of input). When the next line holds text, the
//     fence is never a close (unless that text opens a thinking section, as
//     a think tag glued to the fence does): it opens a nested level if a bare fence
//     within the following 19 lines is followed, within 4 lines, by a
//     non-blank line (stopping early at a fence with a language tag);
//     otherwise it is a literal line of the block;
//     – a fence with text after the backticks that starts with a letter,
//     digit, '_', '/', '.' or '~' opens a nested level;
//     – every other line is content.
//   - A block still open at the end of input is dropped.
//
// gptme decides all this on the whole text; here each decision waits until
// the lines it looks at have arrived, so streaming never reports a block
// that more text could undo.

// Lookahead limits of the literal-or-opener decision (gptme's values).
const (
	openerLookahead  = 19 // lines searched for a later bare fence
	openerAfterFence = 4  // lines after that fence searched for text
)

type fenceState struct {
	lang       string
	fence      int // length of the opening fence
	depth      int // nesting depth, 1 for the block itself
	start      int // offset of the opening fence
	hasContent bool
	// contentStart and contentEnd delimit the content lines seen so far.
	contentStart, contentEnd int
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
	p.fence = fenceState{
		lang:         string(trimSpace(text[ticks:])),
		fence:        fence,
		depth:        1,
		start:        ln.start,
		contentStart: ln.next,
		contentEnd:   ln.next,
	}
	if ln.final {
		p.pos, p.mode = ln.end, modeDone // an opener at the end: dropped
		return
	}
	p.pos, p.lineStart, p.mode = ln.next, true, modeFence
}

// stepFence handles the line at pos inside a block.
func (p *Parser) stepFence() bool {
	ln, st := p.lineAt(p.pos)
	if st != lineOK {
		return false
	}
	f := &p.fence
	text := p.bytes(ln.start, ln.end)
	ticks := countTicks(text)

	if f.depth == 1 && ticks >= f.fence {
		if rest := text[f.fence:]; gluedFence(rest) || thinkOpenTag(rest) != "" {
			closeEnd := ln.start + f.fence
			p.emitFence(closeEnd)
			p.resumeAt(closeEnd, true)
			return true
		}
	}

	if ticks >= 3 {
		bare := isBareFence(text, ticks)
		switch {
		case bare && f.depth > 1:
			f.depth-- // closes a nested level
		case bare && ticks == f.fence:
			closes, opener, decided := p.closeDecision(ln)
			if !decided {
				return false
			}
			if closes {
				p.emitFence(ln.end)
				p.mode = modeOuter
				p.nextLine(ln)
				return true
			}
			if opener {
				f.depth++
			}
		default:
			if after := trimSpace(text[ticks:]); len(after) > 0 && opensNesting(after[0]) {
				f.depth++
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
		p.pos, p.mode = ln.end, modeDone // unclosed block: dropped
		return true
	}
	p.pos = ln.next
	return true
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

// closeDecision decides what the bare fence ln of the block's own length, at
// depth 1, is: a close, a nested opener, or a literal line. decided is false
// until enough lines have arrived.
func (p *Parser) closeDecision(ln lineInfo) (closes, opener, decided bool) {
	next, st := p.lineAfter(ln)
	switch st {
	case lineMore:
		return false, false, false
	case lineNone:
		return true, false, true
	}
	nt := p.bytes(next.start, next.end)
	if isBlank(nt) || countTicks(nt) >= 3 || thinkOpenTag(nt) != "" {
		return true, false, true
	}
	opener, decided = p.nestedOpenerAhead(next)
	return false, opener, decided
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
	if p.opts.KeepBlocks {
		p.blocks = append(p.blocks, b)
	}
	if u, ok := p.blockToolUse(b); ok {
		p.emitUse(u)
	}
}

// blockToolUse returns the tool use a block stands for, if its type names a
// tool.
func (p *Parser) blockToolUse(b Block) (ToolUse, bool) {
	if p.opts.Format == FormatXML || p.opts.Lookup == nil {
		return ToolUse{}, false
	}
	blockType, rest := b.Lang, ""
	if i := strings.IndexAny(b.Lang, " \t"); i >= 0 {
		blockType, rest = b.Lang[:i], b.Lang[i+1:]
	}
	ref, ok := p.opts.Lookup(blockType)
	if !ok {
		return ToolUse{}, false
	}
	args := []string{}
	if ref.PathArg {
		if path := strings.TrimSpace(rest); path != "" {
			args = append(args, path)
		}
	} else {
		args = append(args, strings.Fields(rest)...)
	}
	return ToolUse{
		Tool:    ref.Name,
		Args:    args,
		Content: b.Content,
		Start:   b.Start,
		End:     b.End,
		Format:  FormatMarkdown,
	}, true
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
