package parse

import (
	"bytes"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/agentls/agentls/tools"
)

// A bare fence of a block's own length followed by a line of text is the
// one fence that may be read three ways: it closes the block (what follows
// is prose), it opens a bare block nested in it, or it is a line of the
// block's text (gptme reads it so when nothing confirms a nested block).
// Which reading is right depends on what the block is, so each block has a
// kind, from what its tag names.
type blockKind int

const (
	// kindPlain is a block that runs nothing (```go, ```outer, a bare
	// ```, a Markdown document): gptme's lookahead decides, so agentls
	// reports the blocks gptme does.
	kindPlain blockKind = iota
	// kindCommand is a block that runs its body (shell, ipython, …): a
	// bare fence closes it whatever follows, so prose and an output
	// block after it never join the command (gptme #3697).
	kindCommand
	// kindContent is a block whose body is a file's content or an edit to
	// one (save, append, patch, patch_many, apply_patch, …): it keeps the
	// fenced blocks it holds, of any tag, whatever the path's extension,
	// and is never cut short in silence. How the fences after it pair up
	// decides (contentFenceAction).
	//
	// A whole-file block (```go under a line naming a.go) is content too:
	// whoever recognises one gives it this kind when it opens.
	kindContent
)

// fenceAction is what a bare fence at depth 1 does to its block.
type fenceAction int

const (
	fenceCloses fenceAction = iota // it ends the block
	fenceOpens                     // it opens a nested bare block
	fenceIsText                    // it is a line of the block's text
)

// blockKindOf returns the kind of a block whose tag's first word is
// blockType, and which calls the tool ref when call.
func blockKindOf(blockType string, ref tools.ToolRef, call bool) blockKind {
	if call {
		if isContentTool(ref.Name) {
			return kindContent
		}
		return kindCommand
	}
	if isCommandLang(blockType) {
		return kindCommand
	}
	return kindPlain
}

// isContentTool reports whether the tool named name takes a file's content
// or an edit as its block's body.
func isContentTool(name string) bool {
	switch name {
	case tools.NameSave, tools.NameAppend, tools.NamePatch, tools.NamePatchMany, tools.NameApplyPatch, tools.NamePatchAnchored, tools.NameMorph:
		return true
	}
	return false
}

// isCommandLang reports whether a block that calls no tool is written in a
// language whose blocks are commands to run: such a block ends at its bare
// fence, as a call's does, even where no tool runs it (agentls parse
// --blocks, replies read in the xml format).
func isCommandLang(blockType string) bool {
	switch strings.ToLower(blockType) {
	case "shell", "sh", "bash", "zsh", "fish", "ksh", "console", "terminal", "shell-session",
		"powershell", "pwsh", "ps1", "cmd", "bat", "batch", "ipython", "py":
		return true
	}
	return false
}

// terminator returns the test of the last non-blank line of a complete
// body of the tool named name, or nil when any body is complete.
func terminator(name string) func(line []byte) bool {
	switch name {
	case tools.NamePatch, tools.NamePatchMany:
		return isUpdatedMarker
	case tools.NameApplyPatch:
		return func(l []byte) bool { return bytes.HasPrefix(trimSpace(l), []byte("*** End Patch")) }
	}
	return nil
}

// blockTerminator returns the test of a complete body's last line for a
// block that calls the tool ref when call (terminator), or nil.
func blockTerminator(ref tools.ToolRef, call bool) func([]byte) bool {
	if !call || !isContentTool(ref.Name) {
		return nil
	}
	return terminator(ref.Name)
}

// gluedClose returns where the closing fence begins in line, a body's last
// line with the fence of the block's length glued on (">>>>>>> UPDATED```",
// as models write it), or -1 if line is not one: term says which last
// lines complete the body.
func gluedClose(line []byte, fence int, term func([]byte) bool) int {
	line = bytes.TrimRight(line, " \t\r")
	i := len(line)
	for i > 0 && line[i-1] == '`' {
		i--
	}
	if len(line)-i != fence || i == 0 || !term(line[:i]) {
		return -1
	}
	return i
}

// isUpdatedMarker reports whether l starts a hunk's closing marker, 5–9
// '>' then UPDATED or REPLACE (edits.IsUpdatedMarker reads the rest).
func isUpdatedMarker(l []byte) bool {
	l = trimSpace(l)
	n := countByte(l, '>')
	rest := trimSpace(l[n:])
	return n >= 5 && n <= 9 && (bytes.HasPrefix(rest, []byte("UPDATED")) || bytes.HasPrefix(rest, []byte("REPLACE")))
}

// countByte returns the number of c that begin b.
func countByte(b []byte, c byte) int {
	n := 0
	for n < len(b) && b[n] == c {
		n++
	}
	return n
}

// A fenceLine is a line of the reply that starts with three or more
// backticks, as the pairing of fences sees it.
type fenceLine struct {
	start int  // the line's offset
	next  int  // the start of the line after it; end of input for the last
	ticks int  // its backticks
	bare  bool // nothing after the backticks
	opens bool // a tag after the backticks: it opens a block, or nests
}

// fenceLinesCache holds the fence lines found from some offset to the end
// of the reply, so that several decisions at the end of the input read the
// text after them once, and for each line which pairing states lead to
// every later fence paired: a decision then costs O(1), not a pass over
// the rest of the reply.
type fenceLinesCache struct {
	lines    []fenceLine
	from, to int // the lines from from to to have been read
	// paired[i] has the bit of each state (pairState) from which reading
	// lines[i:] ends at depth 0; paired[len(lines)] is the end's.
	paired []uint32
}

// fenceLinesFrom returns the fence lines that start at or after off, a line
// start, and the states from which they pair up (pairState). It is called
// once the reply has ended.
func (p *Parser) fenceLinesFrom(off int) ([]fenceLine, uint32) {
	c := &p.fls
	if off < c.from || off > c.to {
		*c = fenceLinesCache{lines: c.lines[:0], paired: c.paired[:0], from: off, to: off}
	}
	if c.to < p.end() || len(c.paired) == 0 {
		b := p.bytes(c.to, p.end())
		at := c.to
		for len(b) > 0 {
			line, rest, found := bytes.Cut(b, []byte("\n"))
			next := at + len(line) + 1
			if !found {
				next = at + len(line)
			}
			if ticks := countTicks(line); ticks >= 3 {
				text := line
				if n := len(text); n > 0 && text[n-1] == '\r' {
					text = text[:n-1]
				}
				after := trimSpace(text[ticks:])
				c.lines = append(c.lines, fenceLine{
					start: at, next: next, ticks: ticks,
					bare:  len(after) == 0,
					opens: len(after) > 0 && opensNesting(after[0]),
				})
			}
			at, b = next, rest
		}
		c.to = p.end()
		c.paired = pairedStates(c.lines, c.paired)
	}
	i := sort.Search(len(c.lines), func(i int) bool { return c.lines[i].start >= off })
	return c.lines[i:], c.paired[i]
}

// The pairing of fences reads them as the parser roughly would: a fence
// opens a block at the top level; in a block of fence length m, a tagged
// fence of at least m backticks nests, a bare one closes the innermost
// level, of exactly m backticks at the block's own level. Its state is the
// depth and the outermost block's fence length, 3, 4, or 5 and more
// (lengths past 5 count as 5); depths of pairDepths and more are taken
// never to come back to 0.
const (
	pairDepths = 8
	pairLens   = 3
)

// lenClass is a fence length as the pairing tells them apart.
func lenClass(ticks int) int { return min(ticks, 5) - 3 }

// pairState is the bit of a pairing state in a paired mask.
func pairState(depth, lc int) uint32 { return 1 << (depth*pairLens + lc) }

// pairStep reads the fence line l from depth blocks deep in a block of
// length class lc.
func pairStep(depth, lc int, l fenceLine) (int, int) {
	tc := lenClass(l.ticks)
	switch {
	case depth == 0:
		return 1, tc
	case tc < lc:
		return depth, lc // a shorter fence is text in a longer block
	case l.bare && (depth > 1 || tc == lc):
		return depth - 1, lc
	case l.opens:
		return depth + 1, lc
	}
	return depth, lc
}

// pairedStates fills paired, backwards from the end: from which states the
// lines from each on leave every fence paired.
func pairedStates(lines []fenceLine, paired []uint32) []uint32 {
	paired = slices.Grow(paired[:0], len(lines)+1)[:len(lines)+1]
	end := uint32(0)
	for lc := range pairLens {
		end |= pairState(0, lc)
	}
	paired[len(lines)] = end
	for i := len(lines) - 1; i >= 0; i-- {
		var m uint32
		for d := range pairDepths {
			for lc := range pairLens {
				if nd, nlc := pairStep(d, lc, lines[i]); nd < pairDepths && paired[i+1]&pairState(nd, nlc) != 0 {
					m |= pairState(d, lc)
				}
			}
		}
		paired[i] = m
	}
	return paired
}

// pairEnds returns the indexes in fl of the fences that bring a pairing
// from depth blocks deep (length class lc) to 0 — where the block may end
// — looking at no more than maxEnds fences: it serves the check of a
// tool's complete body, which needs only the nearest.
func pairEnds(fl []fenceLine, depth, lc int) []int {
	const maxEnds = 256
	var ends []int
	for i, l := range fl[:min(len(fl), maxEnds)] {
		if depth, lc = pairStep(depth, lc, l); depth == 0 {
			ends = append(ends, i)
		}
	}
	return ends
}

// contentFenceAction decides, once the reply has ended, what the bare fence
// ln followed by text does in a content block: whichever reading leaves
// every fence after it paired. A fence followed by text is a close only if
// what follows pairs up without it; it is a line of text if the fences
// pair only with it kept in the block (the block ends at the last bare
// fence: gptme's "**Structure:**" cases); it opens a nested block if they
// pair only with it opening one.
//
// Closing and nesting often both pair: "```\nIt prints:\n```\n1\n```" is
// prose and an output block after the block, or a bare block inside it.
// Then what the tool is decides (a patch ends with its >>>>>>> UPDATED
// line), then what comes right before the fence (a heading or a label
// such as "## Structure" or "**Tree:**" announces a nested block), then
// what follows the next fence (a blank line right after an opening fence
// is unusual, right after a closing one is not: nested). When nothing
// decides, the fence closes the block — its content is then lines it
// surely holds, and nothing that may be prose — and a Problem names the
// block, so the model and the user learn it may be cut short.
//
// A reading in which the reply was cut short inside a nested block
// withholds the block (reportCut): a file is never written cut short.
func (p *Parser) contentFenceAction(ln lineInfo) fenceAction {
	f := &p.fence
	fl, paired := p.fenceLinesFrom(ln.next)
	lc := lenClass(f.fence)
	type reading struct {
		act   fenceAction
		depth int // the pairing's depth after the fence
	}
	var cands []reading
	if paired&pairState(0, 0) != 0 {
		cands = append(cands, reading{fenceCloses, 0})
	}
	if paired&pairState(1, lc) != 0 {
		cands = append(cands, reading{fenceIsText, 1})
	}
	if paired&pairState(2, lc) != 0 {
		cands = append(cands, reading{fenceOpens, 2})
	}
	if term := terminator(f.ref.Name); term != nil && len(cands) > 1 {
		// A reading whose block can end where the body is complete.
		var complete []reading
		for _, c := range cands {
			ends := []int{ln.start}
			if c.depth > 0 {
				ends = ends[:0]
				for _, i := range pairEnds(fl, c.depth, lc) {
					ends = append(ends, fl[i].start)
				}
			}
			if slices.ContainsFunc(ends, func(end int) bool { return term(p.lastContentLine(end)) }) {
				complete = append(complete, c)
			}
		}
		if len(complete) > 0 {
			cands = complete
		}
	}
	announced, blankBefore := p.announcesBlock(ln.start)
	switch len(cands) {
	case 0:
		return fenceCloses // nothing pairs: read it as a command's fence
	case 1:
		switch {
		case cands[0].act == fenceIsText:
			// The fence stays in the block's text only if the block ends at
			// the reply's last fence with text after it: then the reply may
			// as well have been cut inside a nested block.
			if ends := pairEnds(fl, 1, lc); len(ends) > 0 && ends[0] == len(fl)-1 {
				if last := fl[ends[0]]; len(bytes.TrimSpace(p.bytes(last.next, p.end()))) > 0 {
					p.reportCut(ln, "holds a fenced block that opens at byte %d and ends at the reply's last fence with text after it")
				}
			}
		case cands[0].act == fenceCloses && len(fl) == 0 && announced && blankBefore:
			// "## Structure", a blank line, a bare fence, text, and the reply
			// ends: a nested block announced and opened, never closed.
			p.reportCut(ln, "announces a fenced block that opens at byte %d and never closes")
		}
		return cands[0].act
	}
	// Closing and nesting both pair (the text reading, one fence off from
	// either, pairs only with fences of several lengths after it).
	nested := slices.ContainsFunc(cands, func(c reading) bool { return c.act == fenceOpens })
	if nested && announced {
		return fenceOpens
	}
	if nested && len(fl) > 0 && fl[0].bare && fl[0].next < p.end() {
		if l, _, _ := bytes.Cut(p.bytes(fl[0].next, p.end()), []byte("\n")); isBlank(l) {
			return fenceOpens
		}
	}
	opener := strings.Repeat("`", f.fence) + f.lang
	longer := strings.Repeat("`", f.fence+1)
	taken := "it was read as ending there, so it holds only the lines before that fence"
	if cands[0].act != fenceCloses {
		taken = "it was read as holding that fence as a line of its text"
	}
	p.problem(f.start, fmt.Sprintf("the block opened by %q may end at the bare fence at byte %d, which a line of text follows, or hold a fenced block there and end at a later fence: %s; if it should hold the rest, write it again between fences of %d backticks (%s … %s)",
		opener, ln.start, taken, f.fence+1, longer+f.lang, longer))
	return cands[0].act
}

// reportCut withholds the open block — it is neither run nor listed — and
// says why: one reading of its fences (how says, with the nested fence's
// offset) is that the reply was cut short inside a nested block, and then
// the file would be cut short with it. gptme's parser reads these replies
// as holding no block at all.
func (p *Parser) reportCut(ln lineInfo, how string) {
	f := &p.fence
	f.withheld = true
	opener := strings.Repeat("`", f.fence) + f.lang
	longer := strings.Repeat("`", f.fence+1)
	p.problem(f.start, fmt.Sprintf("the block opened by %q was not run: it "+how+", so the reply may have been cut short inside it and what it holds may be incomplete; write it again whole, between fences of %d backticks (%s … %s), so the fenced block inside it cannot end it",
		opener, ln.start, f.fence+1, longer+f.lang, longer))
}

// announcesBlock reports whether the last non-blank line of the block's
// content before off is a heading ("## Structure") or a label ending with
// a colon ("**Tree:**", "Output:") — text that announces a fenced block
// next — and whether a blank line stands between it and off.
func (p *Parser) announcesBlock(off int) (announced, blankBefore bool) {
	l := p.lastContentLine(off)
	if l == nil {
		return false, false
	}
	t := bytes.TrimRight(trimSpace(l), "*_")
	announced = len(t) > 0 && (t[0] == '#' || t[len(t)-1] == ':')
	// What follows that line up to off is blank: two line ends in it
	// mean a blank line.
	b := p.bytes(p.fence.contentStart, off)
	blankBefore = bytes.Count(b[len(bytes.TrimRight(b, " \t\r\n")):], []byte("\n")) > 1
	return announced, blankBefore
}

// lastContentLine returns the last non-blank line before the fence line
// that starts at end, within the block's content.
func (p *Parser) lastContentLine(end int) []byte {
	f := &p.fence
	if end <= f.contentStart {
		return nil
	}
	b := p.bytes(f.contentStart, end)
	for len(b) > 0 {
		b = b[:len(b)-1] // the line ending before end, or a blank line's
		i := bytes.LastIndexByte(b, '\n')
		if l := b[i+1:]; !isBlank(l) {
			return l
		}
		b = b[:i+1]
	}
	return nil
}
