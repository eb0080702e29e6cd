package parse

import "bytes"

// A reply is read as the lines that splitting it at "\n" gives, so that a
// text ending in "\n" has a last, empty line, as gptme's split does: the
// rules that look at "the next line" see the same lines. A line's text
// excludes its "\n" and a "\r" before it.

type lineInfo struct {
	start, end int // the line's text, without its line ending
	next       int // start of the following line
	nl         int // index in Parser.nls of the line's '\n'; -1 when final
	final      bool
}

type lineStatus int

const (
	lineOK   lineStatus = iota
	lineMore            // the line is not complete yet
	lineNone            // there is no such line: the input ended before it
)

// lineAt returns the line that begins at off (off >= pos).
func (p *Parser) lineAt(off int) (lineInfo, lineStatus) {
	p.dropNewlinesBefore(p.pos)
	i := p.nlHead
	for i < len(p.nls) && p.nls[i] < off {
		i++
	}
	return p.lineEndingAt(off, i)
}

// lineAfter returns the line following ln.
func (p *Parser) lineAfter(ln lineInfo) (lineInfo, lineStatus) {
	if ln.final {
		return lineInfo{}, lineNone
	}
	return p.lineEndingAt(ln.next, ln.nl+1)
}

// lineEndingAt returns the line that begins at off and ends at the newline
// nls[i], searching for that newline if it has not been found yet.
func (p *Parser) lineEndingAt(off, i int) (lineInfo, lineStatus) {
	if i >= len(p.nls) {
		from := max(p.nlScanned, off)
		j := bytes.IndexByte(p.bytes(from, p.end()), '\n')
		if j < 0 {
			p.nlScanned = p.end()
		} else {
			p.nls = append(p.nls, from+j)
			p.nlScanned = from + j + 1
		}
	}
	if i < len(p.nls) {
		nl := p.nls[i]
		end := nl
		if end > off && p.buf[end-1-p.base] == '\r' {
			end--
		}
		return lineInfo{start: off, end: end, next: nl + 1, nl: i}, lineOK
	}
	if !p.eof {
		return lineInfo{}, lineMore
	}
	end := p.end()
	if end > off && p.buf[end-1-p.base] == '\r' {
		end--
	}
	return lineInfo{start: off, end: end, next: p.end(), nl: -1, final: true}, lineOK
}

// dropNewlinesBefore forgets the newlines before off, which pos has passed.
func (p *Parser) dropNewlinesBefore(off int) {
	for p.nlHead < len(p.nls) && p.nls[p.nlHead] < off {
		p.nlHead++
	}
	if p.nlHead >= 64 && p.nlHead >= len(p.nls)/2 {
		n := copy(p.nls, p.nls[p.nlHead:])
		p.nls = p.nls[:n]
		p.nlHead = 0
	}
}

// countTicks returns the number of backticks that begin b.
func countTicks(b []byte) int {
	n := 0
	for n < len(b) && b[n] == '`' {
		n++
	}
	return n
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f'
}

// isBlank reports whether b holds only whitespace.
func isBlank(b []byte) bool {
	for _, c := range b {
		if !isSpace(c) {
			return false
		}
	}
	return true
}

// trimSpace trims ASCII whitespace from both ends of b.
func trimSpace(b []byte) []byte {
	i, j := trimSpaceBounds(b)
	return b[i:j]
}

// trimSpaceBounds returns the bounds of b without the ASCII whitespace at
// either end.
func trimSpaceBounds(b []byte) (i, j int) {
	i, j = 0, len(b)
	for i < j && isSpace(b[i]) {
		i++
	}
	for j > i && isSpace(b[j-1]) {
		j--
	}
	return i, j
}

// isBareFence reports whether b is a run of three or more backticks and
// nothing else but trailing whitespace; ticks is the run's length.
func isBareFence(b []byte, ticks int) bool {
	return ticks >= 3 && isBlank(b[ticks:])
}
