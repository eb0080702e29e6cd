package lsp

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/edits"
	"github.com/agentls/agentls/edits/journal"
)

// Undo and redo, of a whole turn (every edit an agent turn or one apply
// made, as ONE WorkspaceEdit) or of one edit.
const (
	cmdUndo     = "agentls.turn.undo"
	cmdRedo     = "agentls.turn.redo"
	cmdEditUndo = "agentls.edit.undo"
	cmdEditRedo = "agentls.edit.redo"
)

// partialTitle is the code action that undoes (redoes) what still can be.
func partialTitle(undo bool) string {
	if undo {
		return "Undo what still can be undone"
	}
	return "Redo what still can be redone"
}

// undoArgs name a turn (agentls.turn.*) or an edit (agentls.edit.*); none
// is the last.
type undoArgs struct {
	Turn int `json:"turn"`
	Edit int `json:"edit"`
	// Partial: undo (redo) the files that still can be, leaving those
	// whose lines the user changed since.
	Partial bool `json:"partial"`
}

// undoRedo runs agentls.turn.undo|redo {turn?} (every edit of the turn)
// or agentls.edit.undo|redo {edit?} (one edit): the inverse (or the same)
// change, computed against what the files hold now, sent as ONE versioned
// WorkspaceEdit. Lines the user changed since are refused, not clobbered:
// the change is re-applied as hunks, which must match.
func (s *Server) undoRedo(ctx context.Context, command string, a undoArgs) (any, error) {
	undo := command == cmdUndo || command == cmdEditUndo
	var (
		es   []*journal.Entry
		what string
		err  error
	)
	if command == cmdEditUndo || command == cmdEditRedo {
		var e *journal.Entry
		if e, err = s.journal.PickEdit(undo, a.Edit); err == nil {
			es, what = []*journal.Entry{e}, fmt.Sprintf("agent edit %d (%s)", e.ID, e.Label)
		}
	} else {
		var turn int
		if turn, es, err = s.journal.PickTurn(undo, a.Turn); err == nil {
			what = fmt.Sprintf("agent turn %d (%d %s)", turn, len(es), plural(len(es), "edit", "edits"))
		}
	}
	if err != nil {
		s.client.showMessage(ctx, protocol.MessageTypeWarning, "agentls: %v", err)
		return nil, nil
	}
	oneEdit := 0
	if command == cmdEditUndo || command == cmdEditRedo {
		oneEdit = es[0].ID
	}
	s.goBackground("undo", func(ctx context.Context) { s.undoRedoEntries(ctx, es, what, undo, a.Partial, oneEdit) })
	return nil, nil
}

// undoRedoEntries undoes (or redoes) the edits es, oldest first, as one
// change: each file goes from what the last of them left to what it was
// before the first (or back). A file that already holds what the undo
// would give (the user undid it in the editor) is left as it is; when
// every file does, nothing is sent.
// oneEdit is the edit's id when one edit (not a turn) is undone.
func (s *Server) undoRedoEntries(ctx context.Context, es []*journal.Entry, what string, undo, partial bool, oneEdit int) {
	verb := map[bool]string{true: "undo", false: "redo"}[undo]
	p, err := planUndo(ctx, s.source(), es, undo)
	if err != nil {
		s.client.showMessage(ctx, protocol.MessageTypeError, "agentls: cannot %s %s: %v; nothing changed", verb, what, err)
		return
	}
	if len(p.blocked) > 0 && !partial {
		// All or nothing, unless the user asks for the rest: the files
		// that can still be undone are named, and how.
		rest := ""
		if n := len(p.changes.Effective()); n > 0 {
			rest = fmt.Sprintf(". The other %d %s can still be %s: the code action \"%s\" in one of them, or the same command with \"partial\": true", n, plural(n, "file", "files"), map[bool]string{true: "undone", false: "redone"}[undo], partialTitle(undo))
			s.journal.Refuse(es, undo, oneEdit)
		}
		s.client.showMessage(ctx, protocol.MessageTypeError, "agentls: cannot %s %s: %s; nothing changed%s", verb, what, strings.Join(p.blocked, "; "), rest)
		return
	}
	note := ""
	if len(p.already) > 0 {
		note = fmt.Sprintf(" (%s already %s, so left as %s)", strings.Join(p.already, ", "), map[bool]string{true: "held what the undo gives", false: "held what the redo gives"}[undo], map[bool]string{true: "it is", false: "they are"}[len(p.already) == 1])
	}
	if len(p.blocked) > 0 {
		note += fmt.Sprintf(" (left as you have them: %s)", strings.Join(p.blocked, "; "))
	}
	nothing := func() {
		s.journal.Mark(es, undo)
		if oneEdit == 0 {
			s.rewindChat(ctx, es[0].Turn, undo)
		}
		s.client.showMessage(ctx, protocol.MessageTypeInfo, "agentls: nothing to %s for %s: every file it changed already holds what the %s gives (undone in the editor?)%s", verb, what, verb, strings.TrimPrefix(note, " (left"))
	}
	if len(p.changes.Effective()) == 0 {
		nothing()
		return
	}
	total := len(p.changes.Effective())
	res, err := s.delivery.send(ctx, sendRequest{
		label:   "agentls: " + verb + " " + what,
		changes: p.changes,
		// Refused (a buffer moved on): computed again on the buffers as
		// they are now, under the same rule.
		recompute: func(ctx context.Context) (edits.Changeset, error) {
			again, err := planUndo(ctx, s.source(), es, undo)
			if err == nil && len(again.blocked) > 0 && !partial {
				err = errors.New(strings.Join(again.blocked, "; "))
			}
			total = len(again.changes.Effective())
			return again.changes, err
		},
	})
	var refused *refusedError
	var notSent *notSentError
	switch {
	case errors.Is(err, errNoChanges):
		nothing()
	case errors.As(err, &refused) && refused.rest != nil:
		// The editor made the first files, then refused the rest: the
		// edits stay as they were, and running the undo again finishes
		// it (the files already undone are left as they are).
		s.client.showMessage(ctx, protocol.MessageTypeWarning, "agentls: the %s of %s reached only %s: the editor refused %s (%s); run it again to finish", verb, what, strings.Join(files(res.made), ", "), strings.Join(files(refused.rest), ", "), refused.reason)
	case errors.As(err, &notSent):
		s.client.showMessage(ctx, protocol.MessageTypeError, "agentls: cannot %s %s: %v; nothing changed", verb, what, err)
	case errors.As(err, &refused):
		s.client.showMessage(ctx, protocol.MessageTypeError, "agentls: the editor refused the %s of %s (%s); nothing changed", verb, what, refused.reason)
	case err != nil && !errors.Is(err, errAllSkipped):
		s.client.showMessage(ctx, protocol.MessageTypeError, "agentls: %s of %s failed: %v; nothing changed", verb, what, err)
	case len(res.skipped) > 0 || err != nil:
		// The editor skipped a buffer: the edits stay as they were, so
		// a later undo can finish.
		s.client.showMessage(ctx, protocol.MessageTypeWarning, "%s", skippedWarning(res.skipped))
		s.client.showMessage(ctx, protocol.MessageTypeWarning, "agentls: the %s of %s reached only %d of its %d files; run it again to finish", verb, what, len(res.made), total)
	default:
		s.journal.Mark(es, undo)
		if oneEdit == 0 {
			// A turn from a chat document is rewound there too.
			s.rewindChat(ctx, es[0].Turn, undo)
		}
		s.client.showMessage(ctx, protocol.MessageTypeInfo, "agentls: %s: %s%s", map[bool]string{true: "undone", false: "redone"}[undo], what, note)
	}
}

// An undoPlan is the change that undoes (or redoes) some edits, computed
// on what the files hold now.
type undoPlan struct {
	changes edits.Changeset
	already []string // files that already hold what the undo gives
	blocked []string // files the undo cannot change, and why
}

// planUndo computes the undo (or redo) of es against the editor's
// buffers and the disk as they are now.
func planUndo(ctx context.Context, src editorSource, es []*journal.Entry, undo bool) (undoPlan, error) {
	verb := map[bool]string{true: "undo", false: "redo"}[undo]
	var p undoPlan
	for _, f := range journal.TurnFiles(es) {
		from, to := f.After, f.Before
		fromExists, toExists := f.ExistsAfter, f.ExistedBefore
		if !undo {
			from, to, fromExists, toExists = to, from, toExists, fromExists
		}
		cur, version, exists, err := src.Read(ctx, f.Path)
		if err != nil {
			return undoPlan{}, err
		}
		if exists == toExists && (!exists || cur == to) {
			p.already = append(p.already, f.Path)
			continue
		}
		switch {
		case exists != fromExists:
			p.blocked = append(p.blocked, fmt.Sprintf("%s was %s since", f.Path, map[bool]string{true: "created", false: "deleted"}[exists]))
		case !toExists && cur != from:
			p.blocked = append(p.blocked, fmt.Sprintf("%s changed since, and the %s would delete it", f.Path, verb))
		case !toExists:
			p.changes.Remove(f.Path, cur, version)
		case !fromExists:
			p.changes.Write(f.Path, "", false, edits.NotOpen, to)
		default:
			result, err := rebase(cur, from, to)
			if err != nil {
				p.blocked = append(p.blocked, fmt.Sprintf("%s: %v", f.Path, err))
				continue
			}
			p.changes.Write(f.Path, cur, true, version, result)
		}
	}
	return p, nil
}

// rebase applies the change from → to onto cur (edits.Rebase), saying
// so in the user's words when the user changed the same lines.
func rebase(cur, from, to string) (string, error) {
	out, err := edits.Rebase(cur, from, to)
	var conflict *edits.RebaseError
	if errors.As(err, &conflict) {
		return "", fmt.Errorf("you changed the same lines since (%v)", conflict.Err)
	}
	return out, err
}
