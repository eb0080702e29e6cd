package lsp

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/edits"
	"github.com/agentls/agentls/tools/builtin"
	"github.com/agentls/agentls/tools/edittool"
	"github.com/agentls/agentls/tools/parse"
)

// codeAction offers, instantly and without a model, "Apply agent reply"
// when the selection (or a whole Markdown document) holds edit blocks.
func (s *Server) codeAction(_ context.Context, p *protocol.CodeActionParams) (any, error) {
	actions := []protocol.CodeAction{}
	d, ok := s.docs.get(p.TextDocument.URI)
	if !ok {
		return actions, nil
	}
	actions = append(actions, s.approvalActions(d, p.Range)...)
	actions = append(actions, s.trustActions(d)...)
	if chat := s.chatActions(d); chat != nil {
		// A chat holds the agent's own calls, already run: offering to
		// apply them again would only confuse.
		return append(actions, chat...), nil
	}
	actions = append(actions, s.reviewActions(d, p.Range)...)
	actions = append(actions, s.withoutRunning(s.aiCommentActions(d, p.Range))...)
	actions = append(actions, s.withoutRunning(s.askActions(d, p.Range))...)
	diags := p.Context.Diagnostics
	if len(diags) == 0 {
		// Helix sends the diagnostics under the cursor only, none when
		// the cursor is elsewhere on their line: agentls's own (a job's,
		// a command's) on the range's lines are offered anyway.
		if rel, err := s.relPath(d); err == nil {
			diags = s.commandDiagnosticsOnLines(rel, p.Range)
		}
	}
	actions = append(actions, s.withoutRunning(s.fixActions(d, diags))...)
	if rel, err := s.relPath(d); err == nil {
		actions = append(actions, s.undoActions(rel)...)
	}
	if rel, err := s.relPath(d); err == nil {
		if ref, ok := s.journal.refusedIn(rel); ok {
			title := fmt.Sprintf("%s of agent turn %d", partialTitle(ref.undo), ref.turn)
			command, args := map[bool]string{true: cmdUndo, false: cmdRedo}[ref.undo], map[string]any{"turn": ref.turn, "partial": true}
			if ref.edit != 0 {
				title = fmt.Sprintf("%s of agent edit %d", partialTitle(ref.undo), ref.edit)
				command, args = map[bool]string{true: cmdEditUndo, false: cmdEditRedo}[ref.undo], map[string]any{"edit": ref.edit, "partial": true}
			}
			actions = append(actions, protocol.CodeAction{Title: title, Kind: protocol.Source,
				Command: &protocol.Command{Title: title, Command: command, Arguments: []any{args}}})
		}
	}
	r := p.Range
	empty := r.Start == r.End
	var text string
	var arg applyReplyArgs
	whole := false // the whole document is the reply
	switch {
	case !empty:
		t, err := s.rangeText(d, r)
		if err != nil {
			return actions, nil
		}
		text, arg = t, applyReplyArgs{URI: d.uri, Range: &r}
		if n, _ := countEdits(t); n == 0 {
			// Editors send the word or character at the cursor as the
			// range (eglot's code actions, Helix's one-character
			// selection): the reply is around it.
			text, arg = s.replyAround(d, r)
		}
	case d.language == "markdown":
		whole, arg = true, applyReplyArgs{URI: d.uri}
	default:
		return actions, nil
	}
	var n, files int
	if whole {
		// The whole document is the reply: parsed once per version, not
		// on every cursor move.
		n, files = s.replies.count(d)
	} else {
		n, files = countEdits(text)
	}
	if n == 0 {
		return actions, nil
	}
	title := fmt.Sprintf("Apply agent reply (%d %s in %d %s)", n, plural(n, "edit", "edits"), files, plural(files, "file", "files"))
	actions = append(actions, protocol.CodeAction{
		Title:   title,
		Kind:    protocol.Source,
		Command: &protocol.Command{Title: title, Command: cmdApplyReply, Arguments: []any{arg}},
	})
	return actions, nil
}

// undoActions undo the last agent edit that changed rel (a workspace
// path): its whole turn, and the edit alone when the turn made more than
// one. A turn of one edit is undone by either, so it gets one row, not
// two that read alike ("Undo agent turn 1", "Undo agent edit 1: agent
// turn 1").
func (s *Server) undoActions(rel string) []protocol.CodeAction {
	e := s.journal.lastTouching(rel)
	if e == nil {
		return nil
	}
	n := s.journal.filesOfTurn(e.turn)
	title := fmt.Sprintf("Undo agent turn %d (%d %s)", e.turn, n, plural(n, "file", "files"))
	out := []protocol.CodeAction{{
		Title:   title,
		Kind:    protocol.Source,
		Command: &protocol.Command{Title: title, Command: cmdUndo, Arguments: []any{map[string]int{"turn": e.turn}}},
	}}
	if s.journal.editsOfTurn(e.turn) > 1 {
		title := fmt.Sprintf("Undo agent edit %d: %s", e.id, e.label)
		out = append(out, protocol.CodeAction{
			Title:   title,
			Kind:    protocol.Source,
			Command: &protocol.Command{Title: title, Command: cmdEditUndo, Arguments: []any{map[string]int{"edit": e.id}}},
		})
	}
	return out
}

// replyAround returns the reply a range holding no whole edit block points
// into: the edit block the range lies inside, else, in a Markdown
// document, the whole document; "" for none.
func (s *Server) replyAround(d document, r protocol.Range) (string, applyReplyArgs) {
	doc := d.text()
	if d.language != "markdown" && !strings.Contains(doc, "```") {
		return "", applyReplyArgs{} // code with no fence holds no block: nothing to parse
	}
	enc := s.session().encoding
	start, errStart := d.buf.Offset(int(r.Start.Line), int(r.Start.Character), enc)
	end, errEnd := d.buf.Offset(int(r.End.Line), int(r.End.Character), enc)
	if errStart != nil || errEnd != nil {
		return "", applyReplyArgs{}
	}
	reg := builtin.Registry()
	for _, u := range parse.ToolUses(doc, parse.Options{Lookup: reg.Lookup}) {
		if !edittool.IsEditTool(u.Tool) || start < u.Start || end > u.End {
			continue
		}
		m := edits.NewMapper(doc)
		startLine, startChar, errStart := m.Position(u.Start, enc)
		endLine, endChar, errEnd := m.Position(u.End, enc)
		if errStart != nil || errEnd != nil {
			break
		}
		block := protocol.Range{
			Start: protocol.Position{Line: uint32(startLine), Character: uint32(startChar)},
			End:   protocol.Position{Line: uint32(endLine), Character: uint32(endChar)},
		}
		return doc[u.Start:u.End], applyReplyArgs{URI: d.uri, Range: &block}
	}
	if d.language == "markdown" {
		return doc, applyReplyArgs{URI: d.uri}
	}
	return "", applyReplyArgs{}
}

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
func (c *replyCounts) count(d document) (calls, files int) {
	c.mu.Lock()
	if got, ok := c.byURI[d.uri]; ok && got.version == d.version {
		c.mu.Unlock()
		return got.calls, got.files
	}
	c.mu.Unlock()
	got := countReply(d.text())
	got.version = d.version
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.byURI == nil {
		c.byURI = map[protocol.DocumentURI]replyCount{}
	}
	c.byURI[d.uri] = got
	return got.calls, got.files
}

// follow carries a document's count from version prev to next over the
// changes that made it, when none of them can change what the parser
// finds: a change on lines that hold no character that opens or closes a
// block, call or thinking section (` ~ < > @), that adds none, and that
// lie outside every call and its margins (followMargin). Any other change
// drops the count, and the next code action parses again.
func (c *replyCounts) follow(u protocol.DocumentURI, prev, next int32, changes []textChange) {
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
		if ch.whole || strings.ContainsAny(ch.text, "`~<>@") || strings.ContainsAny(ch.lines(), "`~<>@") {
			return
		}
		// The first call whose margin ends at or after the change's
		// first line.
		i, _ := slices.BinarySearchFunc(spans, ch.firstLine, func(sp span, line int) int { return cmp.Compare(sp.last+followMarginAfter, line) })
		if i < len(spans) && spans[i].first-followMarginBefore <= ch.lastLine {
			return
		}
		delta := strings.Count(ch.text, "\n") - (ch.lastLine - ch.firstLine)
		for j := i; j < len(spans); j++ {
			spans[j].first += delta
			spans[j].last += delta
		}
	}
	got.spans, got.version = spans, next
	c.byURI[u] = got
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

// commandDiagnosticsOnLines returns the diagnostics agentls published for
// rel (a workspace path) from commands and jobs that start on the lines
// of r.
func (s *Server) commandDiagnosticsOnLines(rel string, r protocol.Range) []protocol.Diagnostic {
	var out []protocol.Diagnostic
	for _, dg := range s.commandDiagnostics(rel) {
		if dg.Range.Start.Line >= r.Start.Line && dg.Range.Start.Line <= r.End.Line {
			out = append(out, dg)
		}
	}
	return out
}
