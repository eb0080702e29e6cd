package agent

import (
	"strings"

	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/parse"
)

// A small model often ends its reply right after a block's last line,
// without the closing fence (Qwen2.5-Coder-1.5B saved user.go with the
// new field and stopped at "}"); told that nothing ran, it wrote the file
// again without the field. When the model ended the reply itself (not a
// length limit, not a cut connection) and its last block holds no other
// fence line, the block cannot have been cut short, nor end anywhere
// else: it is read as closed at the reply's end. A block with a fence
// line inside stays a problem (issue 25: it may nest a block the reply
// never finished).

// A call whose block stays empty (delete, move) is whole in its opener,
// and closes right after it: the real model ended its reply on
// "```delete legacy.ts", or went on in prose after "```move a b".

// closeLastBlock returns reply with its last fence line's block closed,
// and the calls that reads as, when the closed reply parses with no
// problem and the last fence line opens a call.
func closeLastBlock(reply string, opts parse.Options) (string, []tools.ToolUse, bool) {
	opener, n, at := -1, 0, 0
	for line := range strings.Lines(reply) {
		if t := strings.TrimLeft(line, " "); strings.HasPrefix(t, "```") {
			opener, n = at, len(t)-len(strings.TrimLeft(t, "`"))
		}
		at += len(line)
	}
	if opener < 0 || !strings.Contains(reply[opener:], "\n") && !emptyBodied(reply[opener:]) {
		return "", nil, false // no block, or nothing in it
	}
	openerLine, after, _ := strings.Cut(reply[opener:], "\n")
	closed := reply
	if emptyBodied(openerLine) {
		// "```move a b```": the fence closed on the opener's own line.
		openerLine = strings.TrimRight(strings.TrimRight(openerLine, " "), "`")
		// Its block stays empty: it closes right after its opener,
		// and what follows is prose ("```move a b\n\nThe file was
		// moved.").
		closed = reply[:opener] + openerLine + "\n" + strings.Repeat("`", n) + "\n" + after
	} else {
		if !strings.HasSuffix(closed, "\n") {
			closed += "\n"
		}
		closed += strings.Repeat("`", n) + "\n"
	}
	p := parse.NewParser(opts)
	p.WriteString(closed)
	p.Finish()
	uses := p.ToolUses()
	if len(p.Problems()) > 0 || len(uses) == 0 || uses[len(uses)-1].Start < opener {
		return "", nil, false
	}
	return closed, uses, true
}

// emptyBodied reports whether a fence line opens a call whose block stays
// empty: its opener says all of it.
func emptyBodied(opener string) bool {
	line, _, _ := strings.Cut(opener, "\n")
	words := strings.Fields(strings.Trim(line, "` "))
	return len(words) > 1 && (words[0] == tools.NameDelete || words[0] == tools.NameMove)
}
