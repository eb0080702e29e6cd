package acp

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agentls/agentls/edits"
	"github.com/agentls/agentls/edits/journal"
)

// /undo and /redo take what they put back from the workspace's undo
// journal (edits/journal), the one the language server keeps: every
// edit call a turn applied is recorded there, under the turn's number
// (journal.NewTurn), in the state folder, so a session loaded after a
// restart can still undo its turns, and numbers never repeat between
// the language server and the agents of one workspace. A session undoes
// only its own turns (editTurns, kept with its transcript), newest
// first; /redo makes again the last one /undo put back, until the
// workspace's next edit ends that (as in the journal).

// record keeps an applied edit call's changes in the journal under
// turn, and the turn as one of the session's; it returns what the user
// should be told about the history ("" nothing).
func (s *session) record(turn int, what string, changes []*edits.FileChange) string {
	var names []string
	for _, c := range changes {
		names = append(names, c.Path)
	}
	_, note := s.journal.Record(turn, fmt.Sprintf("%s (%s)", what, strings.Join(names, ", ")), changes)
	s.mu.Lock()
	if n := len(s.editTurns); n == 0 || s.editTurns[n-1] != turn {
		s.editTurns = append(s.editTurns, turn)
	}
	s.mu.Unlock()
	s.persist() // the turn is the session's even if it never ends
	return note
}

// commands are the slash commands the session offers.
func commands() []sdk.AvailableCommand {
	return []sdk.AvailableCommand{
		{Name: "undo", Description: "put back the files this session's last turn that edited changed, if nobody changed them since (after a restart too)"},
		{Name: "redo", Description: "make again the edits the last /undo put back, if nobody changed the files since"},
		{Name: "jobs", Description: "list the background jobs the agent started in this session, running or ended"},
		{Name: "review", Description: "list the edits waiting for review (the Edits option set to review); /review accept all|N|PATH or /review reject all|N|PATH takes them",
			Input: &sdk.AvailableCommandInput{Unstructured: &sdk.UnstructuredCommandInput{Hint: "accept all, reject 2, accept src/a.go (none: list them)"}}},
		{Name: "model", Description: "show the models this session may use; /model NAME uses NAME for the next turns",
			Input: &sdk.AvailableCommandInput{Unstructured: &sdk.UnstructuredCommandInput{Hint: "a model name (none: list them)"}}},
	}
}

// slashCommand runs a prompt that is one of commands(), and reports
// whether it was one.
func (s *session) slashCommand(ctx context.Context, text string, turn int, calls *tracker) (bool, error) {
	name, arg, _ := strings.Cut(strings.TrimSpace(text), " ")
	switch name {
	case "/review":
		s.reviewCommand(ctx, arg, turn, calls)
		return true, nil
	case "/undo":
		return true, s.undo(ctx, calls)
	case "/redo":
		return true, s.redo(ctx, calls)
	case "/model":
		s.modelCommand(strings.TrimSpace(arg), calls)
		return true, nil
	case "/jobs":
		s.jobsCommand(calls)
		return true, nil
	}
	return false, nil
}

// undo puts back the files of the session's last turn that has edits
// still applied, all or none: each must still hold what the turn left
// (someone, or a later command, may have changed it), and the writes go
// where an edit's go.
func (s *session) undo(ctx context.Context, calls *tracker) error {
	turn, es, none := s.pick(true)
	if es == nil {
		calls.message(none)
		return nil
	}
	s.rewind(ctx, calls, turn, es, true)
	return nil
}

// redo makes again the edits the last /undo put back, all or none, each
// file only if it still holds what the undo left.
func (s *session) redo(ctx context.Context, calls *tracker) error {
	turn, es, none := s.pick(false)
	if es == nil {
		calls.message(none)
		return nil
	}
	s.rewind(ctx, calls, turn, es, false)
	return nil
}

// pick returns the session's turn an undo takes (the newest with edits
// still applied) or a redo takes (the one the last undo put back: the
// oldest of the undone turns after the newest applied one), with its
// journal entries; with none, what to tell the user.
func (s *session) pick(undo bool) (int, []*journal.Entry, string) {
	s.mu.Lock()
	turns := slices.Clone(s.editTurns)
	s.mu.Unlock()
	if undo {
		for _, t := range slices.Backward(turns) {
			if turn, es, err := s.journal.PickTurn(true, t); err == nil {
				return turn, es, ""
			}
		}
		if len(turns) == 0 {
			return 0, nil, "Nothing to undo: no turn of this session edited a file."
		}
		return 0, nil, "Nothing to undo: this session's edits are undone already (/redo makes the last one again), or no longer in the undo history."
	}
	var (
		turn int
		es   []*journal.Entry
	)
	for _, t := range slices.Backward(turns) {
		if _, _, err := s.journal.PickTurn(true, t); err == nil {
			break // applied: a turn undone before it is not redone over it
		}
		if got, undone, err := s.journal.PickTurn(false, t); err == nil {
			turn, es = got, undone
		}
	}
	if es == nil {
		return 0, nil, "Nothing to redo: no /undo since the last edit."
	}
	return turn, es, ""
}

// rewind writes a turn's files back to what they were before it (undo)
// or after it (redo), as one tool call with a diff per file, and marks
// its entries in the journal when it did. It is all or nothing: every
// file must hold what the turn (or the undo) left, or already what the
// step gives (it is left as it is); otherwise no file is written and the
// user is told which changed.
func (s *session) rewind(ctx context.Context, calls *tracker, turn int, es []*journal.Entry, undo bool) {
	what, done, failed, since := "redo", "Redid", "Nothing was redone", "since /undo put it back"
	if undo {
		what, done, failed, since = "undo", "Undid", "Nothing was undone", fmt.Sprintf("since turn %d left it", turn)
	}
	ws := &workspace{s: s, calls: calls}
	c := calls.begin(fmt.Sprintf("%s turn %d", what, turn), sdk.ToolKindEdit)
	fail := func(err error) {
		calls.send(sdk.UpdateToolCall(c.id, sdk.WithUpdateStatus(sdk.ToolCallStatusFailed),
			sdk.WithUpdateContent([]sdk.ToolCallContent{sdk.ToolContent(sdk.TextBlock(err.Error()))})))
		calls.message(fmt.Sprintf("%s: %v", failed, err))
	}
	var (
		cs               edits.Changeset
		already, blocked []string
	)
	for _, f := range journal.TurnFiles(es) {
		from, fromExists, to, toExists := f.After, f.ExistsAfter, f.Before, f.ExistedBefore
		if !undo {
			from, fromExists, to, toExists = f.Before, f.ExistedBefore, f.After, f.ExistsAfter
		}
		cur, _, exists, err := ws.Read(ctx, f.Path)
		switch {
		case err != nil:
			blocked = append(blocked, fmt.Sprintf("%s cannot be read: %v", f.Path, err))
		case exists == toExists && (!exists || cur == to):
			already = append(already, f.Path)
		case exists && !fromExists:
			blocked = append(blocked, fmt.Sprintf("%s was created %s", f.Path, since))
		case !exists && fromExists:
			blocked = append(blocked, fmt.Sprintf("%s was deleted %s", f.Path, since))
		case exists && cur != from:
			blocked = append(blocked, fmt.Sprintf("%s changed %s", f.Path, since))
		case toExists:
			cs.Write(f.Path, cur, exists, edits.NotOpen, to)
		default:
			cs.Remove(f.Path, cur, edits.NotOpen)
		}
	}
	if len(blocked) > 0 {
		fail(fmt.Errorf("%s; every file is left as it is", strings.Join(blocked, "; ")))
		return
	}
	changes := cs.Effective()
	if len(changes) > 0 {
		if _, err := ws.apply(ctx, &cs); err != nil {
			fail(err)
			return
		}
	}
	s.journal.Mark(es, undo)
	content := []sdk.ToolCallContent{}
	for _, fc := range changes {
		content = append(content, diffOf(ws.abs(fc.Path), fc))
	}
	calls.send(sdk.UpdateToolCall(c.id, sdk.WithUpdateStatus(sdk.ToolCallStatusCompleted), sdk.WithUpdateContent(content)))
	note := ""
	if len(already) > 0 {
		note = fmt.Sprintf(" (%s already held what the %s gives, so %s left as %s)", strings.Join(already, ", "), what,
			plural(len(already), "it was", "they were"), plural(len(already), "it is", "they are"))
	}
	if len(changes) == 0 {
		calls.message(fmt.Sprintf("Nothing to write for turn %d's %s: every file it changed already holds what the %s gives.", turn, what, what))
		return
	}
	calls.message(fmt.Sprintf("%s turn %d's edits%s.", done, turn, note))
}

// modelCommand is /model: with no name, the models the session may use
// (the current one first); with one of them, the next turns use it.
func (s *session) modelCommand(name string, calls *tracker) {
	current, all := s.models()
	if name == "" {
		if current == "" {
			calls.message("No model is configured: set the model setting or $AGENTLS_MODEL.")
			return
		}
		calls.message(fmt.Sprintf("The model is %s; this session may use: %s. /model NAME picks one.", current, strings.Join(all, ", ")))
		return
	}
	if !slices.Contains(all, name) {
		calls.message(fmt.Sprintf("%s is not a model this session may use (%s): the settings' model and the models the prices setting names are.", name, strings.Join(all, ", ")))
		return
	}
	s.mu.Lock()
	s.model = name
	s.mu.Unlock()
	calls.message(fmt.Sprintf("The next turns use %s.", name))
}

// jobsCommand is /jobs: the session's background jobs, newest last.
func (s *session) jobsCommand(calls *tracker) {
	list := s.host.Jobs().List()
	if len(list) == 0 {
		calls.message("No background job was started in this session.")
		return
	}
	var b strings.Builder
	for _, j := range list {
		state := fmt.Sprintf("ended, exit %d", j.ExitCode)
		if j.Running {
			state = "running"
		}
		fmt.Fprintf(&b, "job %d: %s (%s, %s)\n", j.ID, j.Command, state, j.Duration.Round(time.Second))
	}
	calls.message(strings.TrimSuffix(b.String(), "\n"))
}
