package lsp

import (
	"context"
	"fmt"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/edits"
	"github.com/agentls/agentls/edits/journal"
	"github.com/agentls/agentls/lsp/internal/documents"
	"github.com/agentls/agentls/lsp/internal/position"
	"github.com/agentls/agentls/settings"
	"github.com/agentls/agentls/tools/builtin"
	"github.com/agentls/agentls/tools/edittool"
	"github.com/agentls/agentls/tools/parse"
)

// codeAction offers, instantly and without a model, "Apply agent reply"
// when the selection (or a whole Markdown document) holds edit blocks.
func (s *Server) codeAction(_ context.Context, p *protocol.CodeActionParams) (any, error) {
	actions := []protocol.CodeAction{}
	d, ok := s.docs.Get(p.TextDocument.URI)
	if !ok {
		return actions, nil
	}
	actions = append(actions, s.desk.approvalActions(d, p.Range)...)
	actions = append(actions, trustActions(settings.Trust{Getenv: s.getenv}, s.session().root, d)...)
	if chat := s.chatActions(d); chat != nil {
		// A chat holds the agent's own calls, already run: offering to
		// apply them again would only confuse.
		return append(actions, chat...), nil
	}
	actions = append(actions, s.pendingView.actions(s.ctx, d, p.Range)...)
	actions = append(actions, s.withoutRunning(s.aiCommentActions(d, p.Range))...)
	actions = append(actions, s.withoutRunning(s.askActions(d, p.Range))...)
	diags := p.Context.Diagnostics
	if len(diags) == 0 {
		// Helix sends the diagnostics under the cursor only, none when
		// the cursor is elsewhere on their line: agentls's own (a job's,
		// a command's) on the range's lines are offered anyway.
		if rel, err := s.relPath(d); err == nil {
			diags = s.problems.onLines(rel, p.Range)
		}
	}
	actions = append(actions, s.withoutRunning(s.fixActions(d, diags))...)
	if rel, err := s.relPath(d); err == nil {
		actions = append(actions, undoActions(&s.journal, rel)...)
	}
	if rel, err := s.relPath(d); err == nil {
		if ref, ok := s.journal.RefusedIn(rel); ok {
			title := fmt.Sprintf("%s of agent turn %d", partialTitle(ref.Undo), ref.Turn)
			command, args := map[bool]string{true: cmdUndo, false: cmdRedo}[ref.Undo], map[string]any{"turn": ref.Turn, "partial": true}
			if ref.Edit != 0 {
				title = fmt.Sprintf("%s of agent edit %d", partialTitle(ref.Undo), ref.Edit)
				command, args = map[bool]string{true: cmdEditUndo, false: cmdEditRedo}[ref.Undo], map[string]any{"edit": ref.Edit, "partial": true}
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
		text, arg = t, applyReplyArgs{URI: d.URI, Range: &r}
		if n, _ := countEdits(t); n == 0 {
			// Editors send the word or character at the cursor as the
			// range (eglot's code actions, Helix's one-character
			// selection): the reply is around it.
			text, arg = replyAround(d, r, s.session().encoding)
		}
	case d.Language == "markdown":
		whole, arg = true, applyReplyArgs{URI: d.URI}
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
func undoActions(j *journal.Journal, rel string) []protocol.CodeAction {
	e := j.LastTouching(rel)
	if e == nil {
		return nil
	}
	n := j.FilesOfTurn(e.Turn)
	title := fmt.Sprintf("Undo agent turn %d (%d %s)", e.Turn, n, plural(n, "file", "files"))
	out := []protocol.CodeAction{{
		Title:   title,
		Kind:    protocol.Source,
		Command: &protocol.Command{Title: title, Command: cmdUndo, Arguments: []any{map[string]int{"turn": e.Turn}}},
	}}
	if j.EditsOfTurn(e.Turn) > 1 {
		title := fmt.Sprintf("Undo agent edit %d: %s", e.ID, e.Label)
		out = append(out, protocol.CodeAction{
			Title:   title,
			Kind:    protocol.Source,
			Command: &protocol.Command{Title: title, Command: cmdEditUndo, Arguments: []any{map[string]int{"edit": e.ID}}},
		})
	}
	return out
}

// replyAround returns the reply a range holding no whole edit block points
// into: the edit block the range lies inside, else, in a Markdown
// document, the whole document; "" for none.
func replyAround(d documents.Document, r protocol.Range, enc edits.Encoding) (string, applyReplyArgs) {
	doc := d.Text()
	if d.Language != "markdown" && !strings.Contains(doc, "```") {
		return "", applyReplyArgs{} // code with no fence holds no block: nothing to parse
	}
	m := position.New(d.Buf, enc)
	start, errStart := m.Offset(r.Start)
	end, errEnd := m.Offset(r.End)
	if errStart != nil || errEnd != nil {
		return "", applyReplyArgs{}
	}
	reg := builtin.Registry()
	for _, u := range parse.ToolUses(doc, parse.Options{Lookup: reg.Lookup}) {
		if !edittool.IsEditTool(u.Tool) || start < u.Start || end > u.End {
			continue
		}
		block, err := position.ForText(doc, enc).Range(u.Start, u.End)
		if err != nil {
			break
		}
		return doc[u.Start:u.End], applyReplyArgs{URI: d.URI, Range: &block}
	}
	if d.Language == "markdown" {
		return doc, applyReplyArgs{URI: d.URI}
	}
	return "", applyReplyArgs{}
}
