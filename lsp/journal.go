package lsp

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/edits"
)

// Undo and redo, of a whole turn (every edit an agent turn or one apply
// made, as ONE WorkspaceEdit) or of one edit.
const (
	cmdUndo     = "agentls.turn.undo"
	cmdRedo     = "agentls.turn.redo"
	cmdEditUndo = "agentls.edit.undo"
	cmdEditRedo = "agentls.edit.redo"
)

// An entry is one applied changeset (an agent edit), with what each file
// was before and after, so it can be undone and redone the same way in
// every editor. It belongs to a turn: an agent turn, or one apply.
type entry struct {
	id     int
	turn   int
	label  string
	files  []journalFile
	undone bool
}

type journalFile struct {
	path          string // relative to the root
	before, after string
	existedBefore bool
	existsAfter   bool
}

// journal is the undo history of the session, newest last. It is bounded
// by entries and bytes (the files' texts before and after): the oldest
// entries are dropped first, and the user is told which.
type journal struct {
	mu      sync.Mutex
	entries []*entry
	next    int
	bytes   int // held by entries
	// lastDropped is the newest edit id no longer kept, lastDroppedTurn
	// the newest turn with an edit no longer kept (0: none).
	lastDropped, lastDroppedTurn int
	// maxEntries and maxBytes bound it (0: the defaults).
	maxEntries, maxBytes int
	// nextTurn is the last turn id given (an agent turn, or one apply).
	nextTurn int
	// refused is the last undo the user's edits blocked.
	refused refusedUndo
	// disk, once attached, keeps the journal across restarts;
	// diskFailed is set after the user was told it could not.
	disk       *journalDisk
	diskFailed bool
}

// The undo history's default bounds: enough for a long session of
// ordinary edits, and far less memory than an editor holds anyway.
const (
	journalMaxEntries = 200
	journalMaxBytes   = 64 << 20
)

func (j *journal) limits() (entries, bytes int) {
	entries, bytes = j.maxEntries, j.maxBytes
	if entries <= 0 {
		entries = journalMaxEntries
	}
	if bytes <= 0 {
		bytes = journalMaxBytes
	}
	return entries, bytes
}

func (e *entry) size() int {
	n := 0
	for _, f := range e.files {
		n += len(f.before) + len(f.after)
	}
	return n
}

// record keeps an applied changeset and returns its id, and a note for
// the user when the history could not keep it or dropped older entries
// ("" otherwise).
func (j *journal) record(turn int, label string, changes []*edits.FileChange) (int, string) {
	j.mu.Lock()
	defer j.mu.Unlock()
	e := &entry{id: j.newID("edit", &j.next), turn: turn, label: label}
	for _, c := range changes {
		e.files = append(e.files, journalFile{
			path: c.Path, before: c.Base, after: c.Result(),
			existedBefore: c.Action != edits.Create, existsAfter: c.Action != edits.Delete,
		})
	}
	note := j.add(e)
	if p := j.persist(e.op()); p != "" {
		note = strings.TrimPrefix(note+"; "+p, "; ")
	}
	return e.id, note
}

// add puts e at the end of the history (ending its redo part) and drops
// the oldest entries past the bounds; it returns what to tell the user,
// or "". j.mu is held.
func (j *journal) add(e *entry) string {
	maxEntries, maxBytes := j.limits()
	// A new edit ends the redo history.
	for _, old := range j.entries[j.redoStart():] {
		j.bytes -= old.size()
	}
	j.entries = j.entries[:j.redoStart()]
	if e.size() > maxBytes {
		j.lastDropped, j.lastDroppedTurn = e.id, max(j.lastDroppedTurn, e.turn)
		return fmt.Sprintf("it is too large (%s) for agentls's undo history (%s): the editor's own undo still has it", mebibytes(e.size()), mebibytes(maxBytes))
	}
	j.entries = append(j.entries, e)
	j.bytes += e.size()
	first := 0
	for len(j.entries)-first > maxEntries || j.bytes > maxBytes {
		j.bytes -= j.entries[first].size()
		first++
	}
	if first == 0 {
		return ""
	}
	from, to := j.entries[0].id, j.entries[first-1].id
	j.lastDropped = to
	j.lastDroppedTurn = max(j.lastDroppedTurn, j.entries[first-1].turn)
	j.entries = append([]*entry(nil), j.entries[first:]...)
	span := fmt.Sprintf("agent edit %d", from)
	if from != to {
		span = fmt.Sprintf("agent edits %d–%d", from, to)
	}
	return fmt.Sprintf("the undo history keeps the last %d edits or %s, so %s can no longer be undone by agentls", maxEntries, mebibytes(maxBytes), span)
}

// newTurn returns the id of a new turn.
func (j *journal) newTurn() int {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.newID("turn", &j.nextTurn)
}

func mebibytes(n int) string {
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}

// redoStart is the index of the first undone entry at the end.
func (j *journal) redoStart() int {
	i := len(j.entries)
	for i > 0 && j.entries[i-1].undone {
		i--
	}
	return i
}

// pickEdit returns the edit to undo (the last one applied) or redo (the
// first one undone), or the one with the id.
func (j *journal) pickEdit(undo bool, id int) (*entry, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if id != 0 {
		e, err := j.byID(id)
		if err != nil {
			return nil, err
		}
		if e.undone == undo {
			return nil, fmt.Errorf("agent edit %d is already %s", id, map[bool]string{true: "undone", false: "applied"}[undo])
		}
		return e, nil
	}
	if e := j.next1(undo); e != nil {
		return e, nil
	}
	return nil, errors.New(map[bool]string{true: "no agent edit to undo", false: "no undone agent edit to redo"}[undo])
}

// pickTurn returns the edits of the turn to undo (the last one that has
// an applied edit) or redo (the first one undone), or of the turn with the
// id, oldest first; only those still to undo (or redo).
func (j *journal) pickTurn(undo bool, turn int) (int, []*entry, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if turn == 0 {
		e := j.next1(undo)
		if e == nil {
			return 0, nil, errors.New(map[bool]string{true: "no agent turn to undo", false: "no undone agent turn to redo"}[undo])
		}
		turn = e.turn
	}
	var out []*entry
	known := false
	for _, e := range j.entries {
		if e.turn != turn {
			continue
		}
		known = true
		if e.undone != undo {
			out = append(out, e)
		}
	}
	switch {
	case len(out) > 0:
		return turn, out, nil
	case known:
		return 0, nil, fmt.Errorf("agent turn %d is already %s", turn, map[bool]string{true: "undone", false: "applied"}[undo])
	case turn <= j.lastDroppedTurn:
		return 0, nil, fmt.Errorf("agent turn %d is no longer in the undo history (it keeps the last %d edits or %s); the editor's own undo may still have it", turn, j.maxEntriesOrDefault(), mebibytes(j.maxBytesOrDefault()))
	}
	return 0, nil, fmt.Errorf("agent turn %d made no edit that agentls can undo in this session", turn)
}

// next1 is the edit an undo (the last applied) or a redo (the first of the
// undone at the end) would take, or nil. j.mu is held.
func (j *journal) next1(undo bool) *entry {
	k := j.redoStart()
	if undo {
		for i := k - 1; i >= 0; i-- {
			if !j.entries[i].undone {
				return j.entries[i]
			}
		}
		return nil
	}
	if k == len(j.entries) {
		return nil
	}
	return j.entries[k]
}

// byID returns the edit with the id. j.mu is held.
func (j *journal) byID(id int) (*entry, error) {
	for _, e := range j.entries {
		if e.id == id {
			return e, nil
		}
	}
	if id <= j.lastDropped {
		return nil, fmt.Errorf("agent edit %d is no longer in the undo history (it keeps the last %d edits or %s); the editor's own undo may still have it", id, j.maxEntriesOrDefault(), mebibytes(j.maxBytesOrDefault()))
	}
	return nil, fmt.Errorf("no agent edit %d in this session", id)
}

// turnFiles are the files of a turn's edits (oldest first) as one change:
// each file from what it was before the turn's first edit of it to what
// its last edit left.
func turnFiles(es []*entry) []journalFile {
	var out []journalFile
	at := map[string]int{}
	for _, e := range es {
		for _, f := range e.files {
			i, ok := at[f.path]
			if !ok {
				at[f.path] = len(out)
				out = append(out, f)
				continue
			}
			out[i].after, out[i].existsAfter = f.after, f.existsAfter
		}
	}
	return out
}

// filesOf returns how many files a turn's edits changed.
func (j *journal) filesOfTurn(turn int) int {
	j.mu.Lock()
	defer j.mu.Unlock()
	var es []*entry
	for _, e := range j.entries {
		if e.turn == turn && !e.undone {
			es = append(es, e)
		}
	}
	return len(turnFiles(es))
}

// editsOfTurn returns how many of a turn's edits are applied.
func (j *journal) editsOfTurn(turn int) int {
	j.mu.Lock()
	defer j.mu.Unlock()
	n := 0
	for _, e := range j.entries {
		if e.turn == turn && !e.undone {
			n++
		}
	}
	return n
}

func (j *journal) maxEntriesOrDefault() int { n, _ := j.limits(); return n }
func (j *journal) maxBytesOrDefault() int   { _, n := j.limits(); return n }

// refuse remembers the last all-or-nothing undo (redo) the user's edits
// blocked, for the "Undo what still can be undone" code action.
func (j *journal) refuse(es []*entry, undo bool, edit int) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.refused = refusedUndo{turn: es[0].turn, edit: edit, undo: undo}
	for _, f := range turnFiles(es) {
		j.refused.paths = append(j.refused.paths, f.path)
	}
}

// refusedIn returns the refused undo (redo) that changed path, if any.
func (j *journal) refusedIn(path string) (refusedUndo, bool) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if slices.Contains(j.refused.paths, path) {
		return j.refused, true
	}
	return refusedUndo{}, false
}

// A refusedUndo is an undo (or redo) of a turn or edit that was refused.
type refusedUndo struct {
	turn, edit int // edit is 0 for a whole turn
	undo       bool
	paths      []string // the files it would have changed
}

// partialTitle is the code action that undoes (redoes) what still can be.
func partialTitle(undo bool) string {
	if undo {
		return "Undo what still can be undone"
	}
	return "Redo what still can be redone"
}

func (j *journal) mark(es []*entry, undone bool) {
	j.mu.Lock()
	defer j.mu.Unlock()
	op := journalOp{Op: "mark", Undone: undone}
	j.refused = refusedUndo{}
	for _, e := range es {
		e.undone = undone
		op.IDs = append(op.IDs, e.id)
	}
	j.persist(op)
}

// lastTouching returns the last applied entry that changed path.
func (j *journal) lastTouching(path string) *entry {
	j.mu.Lock()
	defer j.mu.Unlock()
	for i := j.redoStart() - 1; i >= 0; i-- {
		for _, f := range j.entries[i].files {
			if f.path == path {
				return j.entries[i]
			}
		}
	}
	return nil
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
		es   []*entry
		what string
		err  error
	)
	if command == cmdEditUndo || command == cmdEditRedo {
		var e *entry
		if e, err = s.journal.pickEdit(undo, a.Edit); err == nil {
			es, what = []*entry{e}, fmt.Sprintf("agent edit %d (%s)", e.id, e.label)
		}
	} else {
		var turn int
		if turn, es, err = s.journal.pickTurn(undo, a.Turn); err == nil {
			what = fmt.Sprintf("agent turn %d (%d %s)", turn, len(es), plural(len(es), "edit", "edits"))
		}
	}
	if err != nil {
		s.showMessage(ctx, protocol.MessageTypeWarning, "agentls: %v", err)
		return nil, nil
	}
	oneEdit := 0
	if command == cmdEditUndo || command == cmdEditRedo {
		oneEdit = es[0].id
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
func (s *Server) undoRedoEntries(ctx context.Context, es []*entry, what string, undo, partial bool, oneEdit int) {
	verb := map[bool]string{true: "undo", false: "redo"}[undo]
	p, err := s.planUndo(ctx, es, undo)
	if err != nil {
		s.showMessage(ctx, protocol.MessageTypeError, "agentls: cannot %s %s: %v; nothing changed", verb, what, err)
		return
	}
	if len(p.blocked) > 0 && !partial {
		// All or nothing, unless the user asks for the rest: the files
		// that can still be undone are named, and how.
		rest := ""
		if n := len(p.changes.Effective()); n > 0 {
			rest = fmt.Sprintf(". The other %d %s can still be %s: the code action \"%s\" in one of them, or the same command with \"partial\": true", n, plural(n, "file", "files"), map[bool]string{true: "undone", false: "redone"}[undo], partialTitle(undo))
			s.journal.refuse(es, undo, oneEdit)
		}
		s.showMessage(ctx, protocol.MessageTypeError, "agentls: cannot %s %s: %s; nothing changed%s", verb, what, strings.Join(p.blocked, "; "), rest)
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
		s.journal.mark(es, undo)
		if oneEdit == 0 {
			s.rewindChat(ctx, es[0].turn, undo)
		}
		s.showMessage(ctx, protocol.MessageTypeInfo, "agentls: nothing to %s for %s: every file it changed already holds what the %s gives (undone in the editor?)%s", verb, what, verb, strings.TrimPrefix(note, " (left"))
	}
	if len(p.changes.Effective()) == 0 {
		nothing()
		return
	}
	total := len(p.changes.Effective())
	res, err := s.send(ctx, sendRequest{
		label:   "agentls: " + verb + " " + what,
		changes: p.changes,
		// Refused (a buffer moved on): computed again on the buffers as
		// they are now, under the same rule.
		recompute: func(ctx context.Context) (edits.Changeset, error) {
			again, err := s.planUndo(ctx, es, undo)
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
		s.showMessage(ctx, protocol.MessageTypeWarning, "agentls: the %s of %s reached only %s: the editor refused %s (%s); run it again to finish", verb, what, strings.Join(files(res.made), ", "), strings.Join(files(refused.rest), ", "), refused.reason)
	case errors.As(err, &notSent):
		s.showMessage(ctx, protocol.MessageTypeError, "agentls: cannot %s %s: %v; nothing changed", verb, what, err)
	case errors.As(err, &refused):
		s.showMessage(ctx, protocol.MessageTypeError, "agentls: the editor refused the %s of %s (%s); nothing changed", verb, what, refused.reason)
	case err != nil && !errors.Is(err, errAllSkipped):
		s.showMessage(ctx, protocol.MessageTypeError, "agentls: %s of %s failed: %v; nothing changed", verb, what, err)
	case len(res.skipped) > 0 || err != nil:
		// The editor skipped a buffer: the edits stay as they were, so
		// a later undo can finish.
		s.showMessage(ctx, protocol.MessageTypeWarning, "%s", skippedWarning(res.skipped))
		s.showMessage(ctx, protocol.MessageTypeWarning, "agentls: the %s of %s reached only %d of its %d files; run it again to finish", verb, what, len(res.made), total)
	default:
		s.journal.mark(es, undo)
		if oneEdit == 0 {
			// A turn from a chat document is rewound there too.
			s.rewindChat(ctx, es[0].turn, undo)
		}
		s.showMessage(ctx, protocol.MessageTypeInfo, "agentls: %s: %s%s", map[bool]string{true: "undone", false: "redone"}[undo], what, note)
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
func (s *Server) planUndo(ctx context.Context, es []*entry, undo bool) (undoPlan, error) {
	verb := map[bool]string{true: "undo", false: "redo"}[undo]
	src := s.source()
	var p undoPlan
	for _, f := range turnFiles(es) {
		from, to := f.after, f.before
		fromExists, toExists := f.existsAfter, f.existedBefore
		if !undo {
			from, to, fromExists, toExists = to, from, toExists, fromExists
		}
		cur, version, exists, err := src.Read(ctx, f.path)
		if err != nil {
			return undoPlan{}, err
		}
		if exists == toExists && (!exists || cur == to) {
			p.already = append(p.already, f.path)
			continue
		}
		switch {
		case exists != fromExists:
			p.blocked = append(p.blocked, fmt.Sprintf("%s was %s since", f.path, map[bool]string{true: "created", false: "deleted"}[exists]))
		case !toExists && cur != from:
			p.blocked = append(p.blocked, fmt.Sprintf("%s changed since, and the %s would delete it", f.path, verb))
		case !toExists:
			p.changes.Remove(f.path, cur, version)
		case !fromExists:
			p.changes.Write(f.path, "", false, edits.NotOpen, to)
		default:
			result, err := rebase(cur, from, to)
			if err != nil {
				p.blocked = append(p.blocked, fmt.Sprintf("%s: %v", f.path, err))
				continue
			}
			p.changes.Write(f.path, cur, true, version, result)
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
