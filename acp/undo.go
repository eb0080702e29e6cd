package acp

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agentls/agentls/edits"
)

// A turn's edits, kept so that /undo can put its files back: each
// file's text before the turn's first change to it and after its last.
type turnEdits struct {
	turn  int
	files []fileEdit
}

type fileEdit struct {
	path          string
	before, after string
	existed, kept bool // the file existed before; it exists after
}

// recordEdit adds an applied edit call's changes to turn's record.
func (s *session) recordEdit(turn int, changes []*edits.FileChange) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if n := len(s.edited); n == 0 || s.edited[n-1].turn != turn {
		s.edited = append(s.edited, turnEdits{turn: turn})
		s.undone = nil // a new edit: what was undone is not redone over it
	}
	t := &s.edited[len(s.edited)-1]
	for _, c := range changes {
		after, kept := c.Result(), c.Action != edits.Delete
		if !kept {
			after = ""
		}
		found := false
		for i := range t.files {
			if t.files[i].path == c.Path {
				t.files[i].after, t.files[i].kept = after, kept
				found = true
			}
		}
		if !found {
			t.files = append(t.files, fileEdit{path: c.Path, before: c.Base(), existed: c.Action != edits.Create, after: after, kept: kept})
		}
	}
}

// commands are the slash commands the session offers.
func commands() []sdk.AvailableCommand {
	return []sdk.AvailableCommand{
		{Name: "undo", Description: "put back the files the last turn that edited changed, if nobody changed them since"},
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

// undo puts back the last edited turn's files, all or none: each must
// still hold what the turn left (someone, or a later command, may have
// changed it), and the writes go where the turn's went.
func (s *session) undo(ctx context.Context, calls *tracker) error {
	s.step(ctx, calls, &s.edited, &s.undone, false, "Nothing to undo: no turn of this session edited a file.")
	return nil
}

// redo makes again the edits the last /undo put back, all or none, each
// file only if it still holds what the undo left.
func (s *session) redo(ctx context.Context, calls *tracker) error {
	s.step(ctx, calls, &s.undone, &s.edited, true, "Nothing to redo: no /undo since the last edit.")
	return nil
}

// step restores the last turn of from (forward: to what it made, else to
// what it found) and, when that worked, moves it onto to; with from empty
// the user is told none.
func (s *session) step(ctx context.Context, calls *tracker, from, to *[]turnEdits, forward bool, none string) {
	s.mu.Lock()
	if len(*from) == 0 {
		s.mu.Unlock()
		calls.message(none)
		return
	}
	last := (*from)[len(*from)-1]
	s.mu.Unlock()
	if s.restore(ctx, calls, last, forward) {
		s.mu.Lock()
		*from = (*from)[:len(*from)-1]
		*to = append(*to, last)
		s.mu.Unlock()
	}
}

// restore writes a turn's files back to what they were before it
// (forward false: /undo) or after it (forward true: /redo), as one tool
// call with a diff per file, and reports whether it did.
func (s *session) restore(ctx context.Context, calls *tracker, te turnEdits, forward bool) bool {
	var cs edits.Changeset
	for _, f := range te.files {
		from, fromExists, to, toExists := f.after, f.kept, f.before, f.existed
		if forward {
			from, fromExists, to, toExists = f.before, f.existed, f.after, f.kept
		}
		switch {
		case toExists:
			cs.Write(f.path, from, fromExists, edits.NotOpen, to)
		case fromExists:
			cs.Remove(f.path, from, edits.NotOpen)
		}
	}
	what, done, failed := "undo", "Undid", "Nothing was undone"
	if forward {
		what, done, failed = "redo", "Redid", "Nothing was redone"
	}
	ws := &workspace{s: s, calls: calls}
	c := calls.begin(fmt.Sprintf("%s turn %d", what, te.turn), sdk.ToolKindEdit)
	_, err := ws.apply(ctx, &cs)
	status, content := sdk.ToolCallStatusCompleted, []sdk.ToolCallContent{}
	if err != nil {
		status = sdk.ToolCallStatusFailed
		content = append(content, sdk.ToolContent(sdk.TextBlock(err.Error())))
	} else {
		for _, fc := range cs.Effective() {
			content = append(content, diffOf(ws.abs(fc.Path), fc))
		}
	}
	calls.send(sdk.UpdateToolCall(c.id, sdk.WithUpdateStatus(status), sdk.WithUpdateContent(content)))
	if err != nil {
		calls.message(fmt.Sprintf("%s: %v", failed, err))
		return false
	}
	calls.message(fmt.Sprintf("%s turn %d's edits.", done, te.turn))
	return true
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
