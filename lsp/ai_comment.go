package lsp

import (
	"fmt"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/edits"
	"github.com/agentls/agentls/internal/text"
	"github.com/agentls/agentls/lsp/internal/documents"
	"github.com/agentls/agentls/lsp/internal/position"
)

// An AI! comment is an instruction the user leaves in the code
// (agent.FindInstructionComments); it is found on the live buffer text,
// unsaved changes included, and offered as a code action that asks the
// agent.

// aiContext is how many lines around an AI! comment the agent is shown.
const aiContext = 30

// aiCommentActions are the "Agent: …" code actions for the AI! comments
// on the lines of r.
func (s *Server) aiCommentActions(d documents.Document, r protocol.Range) []protocol.CodeAction {
	first, last, text, ok := rangeLines(d, r, s.session().encoding)
	if !ok {
		return nil
	}
	lines := d.Buf.Lines()
	rel, err := s.relPath(d)
	if err != nil {
		return nil
	}
	var actions []protocol.CodeAction
	for _, c := range agent.FindInstructionComments(text, 0, last-first) {
		line := first + c.Line
		around := position.LineRange(max(0, line-aiContext), min(lines-1, line+aiContext+1))
		title := "Agent: " + c.Instruction
		args := askArgs{Prompt: fmt.Sprintf("%s\n\n(This is the instruction of the AI! comment on line %d of %s. Do it, then remove that comment.)", c.Instruction, line+1, rel), URI: d.URI, Range: &around, Line: &line}
		kind := protocol.RefactorRewrite
		if c.Question {
			title = "Agent: answer — " + c.Instruction
			args.Prompt = fmt.Sprintf("%s\n\n(This is the question of the AI? comment on line %d of %s. Answer it in a few sentences; do not change any file.)", c.Instruction, line+1, rel)
			args.AnswerLine = &line
			kind = protocol.CodeActionKind("") // an answer changes nothing
		}
		actions = append(actions, protocol.CodeAction{
			Title: title, Kind: kind,
			Command: &protocol.Command{Title: title, Command: cmdAsk, Arguments: []any{args}},
		})
	}
	return actions
}

// rangeLines returns the whole lines r touches (first and last, 0-based,
// clamped to the document) and their text: a slice of the buffer, never
// the whole document.
func rangeLines(d documents.Document, r protocol.Range, enc edits.Encoding) (first, last int, text string, ok bool) {
	first, last = int(r.Start.Line), int(r.End.Line)
	lines := d.Buf.Lines()
	if first >= lines {
		return 0, 0, "", false
	}
	last = min(last, lines-1)
	lo, hi, err := position.New(d.Buf, enc).LineOffsets(first, last)
	if err != nil {
		return 0, 0, "", false
	}
	text, err = d.Buf.Slice(lo, hi)
	return first, last, text, err == nil
}

// askActions offer "Ask agent: <request>" on a selection that holds a
// plain comment (not an AI! one, which has its own action): the comment is
// the request, the selection the code it is about. An editor plugin asks
// with its own input box instead (agentls.ask).
func (s *Server) askActions(d documents.Document, r protocol.Range) []protocol.CodeAction {
	if r.Start == r.End {
		return nil
	}
	first, last, selected, ok := rangeLines(d, r, s.session().encoding)
	if !ok || len(agent.FindInstructionComments(selected, 0, last-first)) > 0 {
		return nil
	}
	request, line := agent.SelectionComment(selected, d.Language == "markdown")
	if request == "" {
		return nil
	}
	rel, err := s.relPath(d)
	if err != nil {
		return nil
	}
	title := "Ask agent: " + text.Shorten(request, 60, "…")
	args := askArgs{Prompt: fmt.Sprintf("%s\n\n(This is the request in the comment on line %d of %s; the selection is the code it is about. Leave the comment unless it asks otherwise.)", request, first+line+1, rel), URI: d.URI, Range: &r}
	return []protocol.CodeAction{{Title: title, Kind: protocol.RefactorRewrite,
		Command: &protocol.Command{Title: title, Command: cmdAsk, Arguments: []any{args}}}}
}
