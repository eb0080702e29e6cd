package acp

import (
	"context"
	"fmt"
	"strings"

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
			t.files = append(t.files, fileEdit{path: c.Path, before: c.Base, existed: c.Action != edits.Create, after: after, kept: kept})
		}
	}
}

// commands are the slash commands the session offers.
func commands() []sdk.AvailableCommand {
	return []sdk.AvailableCommand{
		{Name: "undo", Description: "put back the files the last turn that edited changed, if nobody changed them since"},
	}
}

// slashCommand runs a prompt that is one of commands(), and reports
// whether it was one.
func (s *session) slashCommand(ctx context.Context, text string, calls *tracker) (bool, error) {
	name, _, _ := strings.Cut(strings.TrimSpace(text), " ")
	switch name {
	case "/undo":
		return true, s.undo(ctx, calls)
	}
	return false, nil
}

// undo puts back the last edited turn's files, all or none: each must
// still hold what the turn left (someone, or a later command, may have
// changed it), and the writes go where the turn's went.
func (s *session) undo(ctx context.Context, calls *tracker) error {
	s.mu.Lock()
	if len(s.edited) == 0 {
		s.mu.Unlock()
		calls.message("Nothing to undo: no turn of this session edited a file.")
		return nil
	}
	last := s.edited[len(s.edited)-1]
	s.mu.Unlock()
	var back edits.Changeset
	for _, f := range last.files {
		switch {
		case f.existed:
			back.Write(f.path, f.after, f.kept, edits.NotOpen, f.before)
		case f.kept:
			back.Remove(f.path, f.after, edits.NotOpen)
		}
	}
	ws := &workspace{s: s, calls: calls}
	c := calls.begin(fmt.Sprintf("undo turn %d", last.turn), sdk.ToolKindEdit)
	_, err := ws.apply(ctx, &back)
	status, content := sdk.ToolCallStatusCompleted, []sdk.ToolCallContent{}
	if err != nil {
		status = sdk.ToolCallStatusFailed
		content = append(content, sdk.ToolContent(sdk.TextBlock(err.Error())))
	} else {
		for _, fc := range back.Effective() {
			content = append(content, diffOf(ws.abs(fc.Path), fc))
		}
		s.mu.Lock()
		s.edited = s.edited[:len(s.edited)-1]
		s.mu.Unlock()
	}
	calls.send(sdk.UpdateToolCall(c.id, sdk.WithUpdateStatus(status), sdk.WithUpdateContent(content)))
	if err != nil {
		calls.message(fmt.Sprintf("Nothing was undone: %v", err))
	} else {
		calls.message(fmt.Sprintf("Undid turn %d's edits.", last.turn))
	}
	return nil
}
