package lsp

import (
	"cmp"
	"slices"
	"strings"
	"sync"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/edits"
	"github.com/agentls/agentls/lsp/internal/documents"
	"github.com/agentls/agentls/lsp/internal/position"
	"github.com/agentls/agentls/tools/builtin"
	"github.com/agentls/agentls/tools/edittool"
	"github.com/agentls/agentls/tools/parse"
)

// replyCounts caches countEdits of whole documents by version: editors
// ask for code actions at every cursor move, and a long reply in a
// Markdown buffer would be parsed each time. A keystroke that cannot
// change what the parser finds (follow) keeps the count for the next
// version, so a code action right after typing costs no parse either.
type replyCounts struct {
	mu    sync.Mutex
	byURI map[protocol.DocumentURI]replyCount
}

type replyCount struct {
	version      int32
	calls, files int
	// spans are the lines of the reply's tool calls, in order; nil with
	// exact false when the parse found a problem (a call that may turn
	// into one), which every change must parse again.
	spans []span
	exact bool
}

// A span is the lines a tool call lies on, first to last.
type span struct{ first, last int }

// followMargin is how many lines around a call a change must keep off to
// keep the count: one before (a fence glued to the line before, a line
// end joined), and after the call, the parser's lookahead (a Markdown
// document's nested-fence rule looks up to 19 + 4 lines past a fence).
const (
	followMarginBefore = 1
	followMarginAfter  = 32
)

// count returns countEdits of d's whole text, from the cache when d's
// version was counted already (or followed from one that was).
func (c *replyCounts) count(d documents.Document) (calls, files int) {
	c.mu.Lock()
	if got, ok := c.byURI[d.URI]; ok && got.version == d.Version {
		c.mu.Unlock()
		return got.calls, got.files
	}
	c.mu.Unlock()
	got := countReply(d.Text())
	got.version = d.Version
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.byURI == nil {
		c.byURI = map[protocol.DocumentURI]replyCount{}
	}
	c.byURI[d.URI] = got
	return got.calls, got.files
}

// follow carries a document's count from version prev to next over the
// changes that made it, when none of them can change what the parser
// finds: a change on lines that hold no character that opens or closes a
// block, call or thinking section (` ~ < > @), that adds none, and that
// lie outside every call and its margins (followMargin). Any other change
// drops the count, and the next code action parses again.
func (c *replyCounts) follow(u protocol.DocumentURI, prev, next int32, changes []documents.Change) {
	c.mu.Lock()
	defer c.mu.Unlock()
	got, ok := c.byURI[u]
	if !ok || got.version != prev {
		return
	}
	delete(c.byURI, u)
	if !got.exact {
		return
	}
	spans := slices.Clone(got.spans)
	for _, ch := range changes {
		if ch.Whole || strings.ContainsAny(ch.Text, "`~<>@") || strings.ContainsAny(changedLines(ch.Before, ch.First, ch.Last), "`~<>@") {
			return
		}
		// The first call whose margin ends at or after the change's
		// first line.
		i, _ := slices.BinarySearchFunc(spans, ch.First, func(sp span, line int) int { return cmp.Compare(sp.last+followMarginAfter, line) })
		if i < len(spans) && spans[i].first-followMarginBefore <= ch.Last {
			return
		}
		delta := strings.Count(ch.Text, "\n") - (ch.Last - ch.First)
		for j := i; j < len(spans); j++ {
			spans[j].first += delta
			spans[j].last += delta
		}
	}
	got.spans, got.version = spans, next
	c.byURI[u] = got
}

// changedLines returns lines first to last of buf, whole ("" when they
// cannot be read): only a count that may be kept reads them.
func changedLines(buf *edits.Buffer, first, last int) string {
	from, to, err := position.New(buf, edits.UTF8).LineOffsets(first, last)
	if err != nil {
		return ""
	}
	lines, _ := buf.Slice(from, to)
	return lines
}

// forget drops a closed document's count.
func (c *replyCounts) forget(uri protocol.DocumentURI) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.byURI, uri)
}

// countReply counts the edits of a whole reply, keeping where they lie
// for follow.
func countReply(text string) replyCount {
	e := replyEditsOf(text)
	rc := replyCount{calls: e.calls, files: e.files, exact: e.exact}
	if !rc.exact {
		return rc
	}
	slices.SortFunc(e.at, func(a, b [2]int) int { return cmp.Compare(a[0], b[0]) })
	rc.spans = make([]span, len(e.at))
	line, at := 0, 0
	lineOf := func(off int) int { // offsets come in order
		off = max(off, at)
		line += strings.Count(text[at:off], "\n")
		at = off
		return line
	}
	for i, se := range e.at {
		rc.spans[i].first = lineOf(se[0])
		rc.spans[i].last = lineOf(max(se[0], se[1]))
	}
	return rc
}

// countEdits counts the edits in a reply and the files they name, by
// parsing only (no file is read): code actions must answer at once.
func countEdits(text string) (calls, files int) {
	e := replyEditsOf(text)
	return e.calls, e.files
}

// replyEdits are what "Apply agent reply" would run in a reply: its edit
// calls and the edits pasted from a chat that are no call (SEARCH/REPLACE
// blocks, unified diffs, whole files under their path), as ApplyReply
// finds them.
type replyEdits struct {
	calls, files int
	at           [][2]int // each edit's start and end offsets, unordered
	exact        bool     // the parse found no problem
}

func replyEditsOf(text string) replyEdits {
	reg := builtin.Registry()
	p := parse.NewParser(parse.Options{Lookup: reg.Lookup, KeepBlocks: true})
	p.WriteString(text)
	p.Finish()
	e := replyEdits{exact: len(p.Problems()) == 0}
	seen := map[string]bool{}
	calls := map[int]bool{}
	for _, u := range p.ToolUses() {
		calls[u.Start] = true
		if !edittool.IsEditTool(u.Tool) {
			continue
		}
		e.calls++
		e.at = append(e.at, [2]int{u.Start, u.End})
		for _, f := range edittool.PathsOf(u) {
			seen[f] = true
		}
	}
	blocks := p.Blocks()
	isCall := func(b parse.Block) bool { return calls[b.Start] }
	end := func(start int) int {
		i := slices.IndexFunc(blocks, func(b parse.Block) bool { return b.Start == start })
		if i < 0 {
			return start
		}
		return blocks[i].End
	}
	for _, sr := range edittool.FindSearchReplace(text, blocks, isCall) {
		e.calls++
		e.at = append(e.at, [2]int{sr.Start, end(sr.Start)})
		if sr.Path != "" {
			seen[sr.Path] = true
		}
	}
	for _, pe := range edittool.FindPasted(text, blocks, isCall) {
		if pe.Skipped != "" {
			continue
		}
		e.calls++
		e.at = append(e.at, [2]int{pe.Start, end(pe.Start)})
		for _, f := range pe.Files() {
			seen[f] = true
		}
	}
	e.files = len(seen)
	return e
}
