package journal

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/agentls/agentls/edits"
)

// An Entry is one applied changeset (an agent edit), with what each file
// was before and after, so it can be undone and redone the same way in
// every editor. It belongs to a turn: an agent turn, or one apply.
type Entry struct {
	ID     int
	Turn   int
	Label  string
	files  []File
	undone bool
}

// A File is one file an edit changed: what it held before and after.
type File struct {
	Path          string // relative to the root
	Before, After string
	ExistedBefore bool
	ExistsAfter   bool
}

// Journal is the undo history of the session, newest last. It is bounded
// by entries and bytes (the files' texts before and after): the oldest
// entries are dropped first, and the user is told which.
type Journal struct {
	mu      sync.Mutex
	entries []*Entry
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
	refused Refused
	// disk, once attached, keeps the journal across restarts;
	// diskFailed is set after the user was told it could not.
	disk       *Disk
	diskFailed bool
}

// The undo history's default bounds: enough for a long session of
// ordinary edits, and far less memory than an editor holds anyway.
const (
	journalMaxEntries = 200
	journalMaxBytes   = 64 << 20
)

func (j *Journal) limits() (entries, bytes int) {
	entries, bytes = j.maxEntries, j.maxBytes
	if entries <= 0 {
		entries = journalMaxEntries
	}
	if bytes <= 0 {
		bytes = journalMaxBytes
	}
	return entries, bytes
}

func (e *Entry) size() int {
	n := 0
	for _, f := range e.files {
		n += len(f.Before) + len(f.After)
	}
	return n
}

// Record keeps an applied changeset and returns its id, and a note for
// the user when the history could not keep it or dropped older entries
// ("" otherwise).
func (j *Journal) Record(turn int, label string, changes []*edits.FileChange) (int, string) {
	j.mu.Lock()
	defer j.mu.Unlock()
	e := &Entry{ID: j.newID("edit", &j.next), Turn: turn, Label: label}
	for _, c := range changes {
		e.files = append(e.files, File{
			Path: c.Path, Before: c.Base(), After: c.Result(),
			ExistedBefore: c.Action != edits.Create, ExistsAfter: c.Action != edits.Delete,
		})
	}
	note := j.add(e)
	if p := j.persist(e.op()); p != "" {
		note = strings.TrimPrefix(note+"; "+p, "; ")
	}
	return e.ID, note
}

// add puts e at the end of the history (ending its redo part) and drops
// the oldest entries past the bounds; it returns what to tell the user,
// or "". j.mu is held.
func (j *Journal) add(e *Entry) string {
	maxEntries, maxBytes := j.limits()
	// A new edit ends the redo history.
	for _, old := range j.entries[j.redoStart():] {
		j.bytes -= old.size()
	}
	j.entries = j.entries[:j.redoStart()]
	if e.size() > maxBytes {
		j.lastDropped, j.lastDroppedTurn = e.ID, max(j.lastDroppedTurn, e.Turn)
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
	from, to := j.entries[0].ID, j.entries[first-1].ID
	j.lastDropped = to
	j.lastDroppedTurn = max(j.lastDroppedTurn, j.entries[first-1].Turn)
	j.entries = append([]*Entry(nil), j.entries[first:]...)
	span := fmt.Sprintf("agent edit %d", from)
	if from != to {
		span = fmt.Sprintf("agent edits %d–%d", from, to)
	}
	return fmt.Sprintf("the undo history keeps the last %d edits or %s, so %s can no longer be undone by agentls", maxEntries, mebibytes(maxBytes), span)
}

// NewTurn returns the id of a new turn.
func (j *Journal) NewTurn() int {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.newID("turn", &j.nextTurn)
}

func mebibytes(n int) string {
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}

// redoStart is the index of the first undone Entry at the end.
func (j *Journal) redoStart() int {
	i := len(j.entries)
	for i > 0 && j.entries[i-1].undone {
		i--
	}
	return i
}

// PickEdit returns the edit to undo (the last one applied) or redo (the
// first one undone), or the one with the id.
func (j *Journal) PickEdit(undo bool, id int) (*Entry, error) {
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

// PickTurn returns the edits of the turn to undo (the last one that has
// an applied edit) or redo (the first one undone), or of the turn with the
// id, oldest first; only those still to undo (or redo).
func (j *Journal) PickTurn(undo bool, turn int) (int, []*Entry, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if turn == 0 {
		e := j.next1(undo)
		if e == nil {
			return 0, nil, errors.New(map[bool]string{true: "no agent turn to undo", false: "no undone agent turn to redo"}[undo])
		}
		turn = e.Turn
	}
	var out []*Entry
	known := false
	for _, e := range j.entries {
		if e.Turn != turn {
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
func (j *Journal) next1(undo bool) *Entry {
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
func (j *Journal) byID(id int) (*Entry, error) {
	for _, e := range j.entries {
		if e.ID == id {
			return e, nil
		}
	}
	if id <= j.lastDropped {
		return nil, fmt.Errorf("agent edit %d is no longer in the undo history (it keeps the last %d edits or %s); the editor's own undo may still have it", id, j.maxEntriesOrDefault(), mebibytes(j.maxBytesOrDefault()))
	}
	return nil, fmt.Errorf("no agent edit %d in this session", id)
}

// TurnFiles are the files of a turn's edits (oldest first) as one change:
// each file from what it was before the turn's first edit of it to what
// its last edit left.
func TurnFiles(es []*Entry) []File {
	var out []File
	at := map[string]int{}
	for _, e := range es {
		for _, f := range e.files {
			i, ok := at[f.Path]
			if !ok {
				at[f.Path] = len(out)
				out = append(out, f)
				continue
			}
			out[i].After, out[i].ExistsAfter = f.After, f.ExistsAfter
		}
	}
	return out
}

// FilesOfTurn returns how many files a turn's edits changed.
func (j *Journal) FilesOfTurn(turn int) int {
	j.mu.Lock()
	defer j.mu.Unlock()
	var es []*Entry
	for _, e := range j.entries {
		if e.Turn == turn && !e.undone {
			es = append(es, e)
		}
	}
	return len(TurnFiles(es))
}

// EditsOfTurn returns how many of a turn's edits are applied.
func (j *Journal) EditsOfTurn(turn int) int {
	j.mu.Lock()
	defer j.mu.Unlock()
	n := 0
	for _, e := range j.entries {
		if e.Turn == turn && !e.undone {
			n++
		}
	}
	return n
}

func (j *Journal) maxEntriesOrDefault() int { n, _ := j.limits(); return n }
func (j *Journal) maxBytesOrDefault() int   { _, n := j.limits(); return n }

// Refuse remembers the last all-or-nothing undo (redo) the user's edits
// blocked, for the "Undo what still can be undone" code action.
func (j *Journal) Refuse(es []*Entry, undo bool, edit int) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.refused = Refused{Turn: es[0].Turn, Edit: edit, Undo: undo}
	for _, f := range TurnFiles(es) {
		j.refused.Paths = append(j.refused.Paths, f.Path)
	}
}

// RefusedIn returns the refused undo (redo) that changed path, if any.
func (j *Journal) RefusedIn(path string) (Refused, bool) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if slices.Contains(j.refused.Paths, path) {
		return j.refused, true
	}
	return Refused{}, false
}

// A Refused is an undo (or redo) of a turn or edit that was refused.
type Refused struct {
	Turn, Edit int // Edit is 0 for a whole turn
	Undo       bool
	Paths      []string // the files it would have changed
}

// Mark marks es undone (or redone), and forgets the refused undo.
func (j *Journal) Mark(es []*Entry, undone bool) {
	j.mu.Lock()
	defer j.mu.Unlock()
	op := journalOp{Op: "mark", Undone: undone}
	j.refused = Refused{}
	for _, e := range es {
		e.undone = undone
		op.IDs = append(op.IDs, e.ID)
	}
	j.persist(op)
}

// LastTouching returns the last applied Entry that changed path.
func (j *Journal) LastTouching(path string) *Entry {
	j.mu.Lock()
	defer j.mu.Unlock()
	for i := j.redoStart() - 1; i >= 0; i-- {
		for _, f := range j.entries[i].files {
			if f.Path == path {
				return j.entries[i]
			}
		}
	}
	return nil
}
