package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/edits"
	"github.com/agentls/agentls/tools/edit"
)

const (
	cmdUndo = "agentls.turn.undo"
	cmdRedo = "agentls.turn.redo"
)

// An entry is one applied changeset, with what each file was before and
// after, so it can be undone and redone the same way in every editor.
type entry struct {
	id     int
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
	// lastDropped is the newest id no longer kept (0: none).
	lastDropped int
	// maxEntries and maxBytes bound it (0: the defaults).
	maxEntries, maxBytes int
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
func (j *journal) record(label string, changes []*edits.FileChange) (int, string) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.next++
	e := &entry{id: j.next, label: label}
	for _, c := range changes {
		e.files = append(e.files, journalFile{
			path: c.Path, before: c.Base, after: c.Result,
			existedBefore: c.Action != edits.Create, existsAfter: c.Action != edits.Delete,
		})
	}
	maxEntries, maxBytes := j.limits()
	// A new edit ends the redo history.
	for _, old := range j.entries[j.redoStart():] {
		j.bytes -= old.size()
	}
	j.entries = j.entries[:j.redoStart()]
	if e.size() > maxBytes {
		return e.id, fmt.Sprintf("it is too large (%s) for agentls's undo history (%s): the editor's own undo still has it", mebibytes(e.size()), mebibytes(maxBytes))
	}
	j.entries = append(j.entries, e)
	j.bytes += e.size()
	first := 0
	for len(j.entries)-first > maxEntries || j.bytes > maxBytes {
		j.bytes -= j.entries[first].size()
		first++
	}
	if first == 0 {
		return e.id, ""
	}
	from, to := j.entries[0].id, j.entries[first-1].id
	j.lastDropped = to
	j.entries = append([]*entry(nil), j.entries[first:]...)
	span := fmt.Sprintf("agent edit %d", from)
	if from != to {
		span = fmt.Sprintf("agent edits %d–%d", from, to)
	}
	return e.id, fmt.Sprintf("the undo history keeps the last %d edits or %s, so %s can no longer be undone by agentls", maxEntries, mebibytes(maxBytes), span)
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

// pick returns the entry to undo (the last one applied) or redo (the
// first one undone), or the one with the id.
func (j *journal) pick(undo bool, id int) (*entry, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if id != 0 {
		for _, e := range j.entries {
			if e.id == id {
				if e.undone == undo {
					return nil, fmt.Errorf("edit %d is already %s", id, map[bool]string{true: "undone", false: "applied"}[undo])
				}
				return e, nil
			}
		}
		if id <= j.lastDropped {
			return nil, fmt.Errorf("agent edit %d is no longer in the undo history (it keeps the last %d edits or %s); the editor's own undo may still have it", id, j.maxEntriesOrDefault(), mebibytes(j.maxBytesOrDefault()))
		}
		return nil, fmt.Errorf("no agent edit %d in this session", id)
	}
	k := j.redoStart()
	if undo {
		if k == 0 {
			return nil, errors.New("no agent edit to undo")
		}
		return j.entries[k-1], nil
	}
	if k == len(j.entries) {
		return nil, errors.New("no undone agent edit to redo")
	}
	return j.entries[k], nil
}

func (j *journal) maxEntriesOrDefault() int { n, _ := j.limits(); return n }
func (j *journal) maxBytesOrDefault() int   { _, n := j.limits(); return n }

func (j *journal) mark(e *entry, undone bool) {
	j.mu.Lock()
	e.undone = undone
	j.mu.Unlock()
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

// undoRedo runs agentls.turn.undo or redo: the inverse (or the same)
// change, computed against what the files hold now, sent as one versioned
// WorkspaceEdit. Lines the user changed since are refused, not clobbered:
// the change is re-applied as hunks, which must match.
func (s *Server) undoRedo(ctx context.Context, undo bool, arg json.RawMessage) (any, error) {
	var a struct {
		Turn int `json:"turn"`
	}
	if len(arg) > 0 && string(arg) != "null" {
		if err := json.Unmarshal(arg, &a); err != nil {
			return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, err.Error())
		}
	}
	e, err := s.journal.pick(undo, a.Turn)
	if err != nil {
		s.showMessage(ctx, protocol.MessageTypeWarning, "agentls: %v", err)
		return nil, nil
	}
	s.goBackground("undo", func(ctx context.Context) { s.undoRedoEntry(ctx, e, undo) })
	return nil, nil
}

func (s *Server) undoRedoEntry(ctx context.Context, e *entry, undo bool) {
	verb := map[bool]string{true: "undo", false: "redo"}[undo]
	s.mu.Lock()
	root := s.root
	s.mu.Unlock()
	src := editorSource{s: s, disk: edit.DiskSource{Root: root}}
	var cs edits.Changeset
	for _, f := range e.files {
		from, to := f.after, f.before
		fromExists, toExists := f.existsAfter, f.existedBefore
		if !undo {
			from, to, fromExists, toExists = to, from, toExists, fromExists
		}
		cur, version, exists, err := src.Read(ctx, f.path)
		if err != nil {
			s.showMessage(ctx, protocol.MessageTypeError, "agentls: cannot %s: %v", verb, err)
			return
		}
		switch {
		case exists != fromExists:
			s.showMessage(ctx, protocol.MessageTypeError, "agentls: cannot %s %q: %s was %s since; nothing changed", verb, e.label, f.path, map[bool]string{true: "created", false: "deleted"}[exists])
			return
		case !toExists:
			if cur != from {
				s.showMessage(ctx, protocol.MessageTypeError, "agentls: cannot %s %q: %s changed since, and undoing would delete it; nothing changed", verb, e.label, f.path)
				return
			}
			cs.Remove(f.path, cur, version)
			continue
		case !fromExists:
			cs.Write(f.path, "", false, edits.NotOpen, to)
			continue
		}
		result, err := rebase(cur, from, to)
		if err != nil {
			s.showMessage(ctx, protocol.MessageTypeError, "agentls: cannot %s %q: %s: %v; nothing changed", verb, e.label, f.path, err)
			return
		}
		cs.Write(f.path, cur, true, version, result)
	}
	we, err := s.workspaceEditFor(&cs)
	if err != nil {
		s.showMessage(ctx, protocol.MessageTypeError, "agentls: cannot %s: %v", verb, err)
		return
	}
	res, err := s.applyEdit(ctx, "agentls: "+verb+" "+e.label, we)
	switch {
	case err != nil:
		s.showMessage(ctx, protocol.MessageTypeError, "agentls: %s failed: %v", verb, err)
	case !res.Applied:
		s.showMessage(ctx, protocol.MessageTypeError, "agentls: the editor refused the %s (%s); nothing changed", verb, res.FailureReason)
	default:
		s.awaitEditorEcho(ctx, cs.Effective())
		s.recoverSkipped(ctx, cs.Effective())
		s.journal.mark(e, undo)
		s.showMessage(ctx, protocol.MessageTypeInfo, "agentls: %s: %s", map[bool]string{true: "undone", false: "redone"}[undo], e.label)
	}
}

// rebase applies the change from → to onto cur, which may differ from
// from where the user edited since: the change becomes hunks with context,
// applied by the engine, so they must still match; where the user changed
// the same lines, it fails.
func rebase(cur, from, to string) (string, error) {
	if cur == from {
		return to, nil
	}
	// As little context as makes each hunk unique: the user's edits next
	// to the agent's lines should not block the undo.
	var first error
	for ctx := 0; ctx <= 3; ctx++ {
		out, err := edits.ApplyHunks(cur, hunksFor(from, to, ctx))
		if err == nil {
			return out, nil
		}
		if first == nil {
			first = err
		}
	}
	return "", fmt.Errorf("you changed the same lines since (%v)", first)
}

// hunksFor describes the change from → to as hunks with ctx lines of
// context on each side.
func hunksFor(from, to string, ctx int) []edits.Hunk {
	lines := newLineIndex(from)
	var hunks []edits.Hunk
	for _, e := range edits.MinimalEdits(from, to) {
		if h, ok := lines.hunk(e, ctx); ok {
			hunks = append(hunks, h)
		}
	}
	return hunks
}

// lineIndex finds the lines of a text around an edit.
type lineIndex struct {
	text    string
	lines   []string // with their line endings
	offsets []int    // offsets[i] is where line i starts; one past the end last
}

func newLineIndex(text string) lineIndex {
	lines := strings.SplitAfter(text, "\n")
	offsets := make([]int, len(lines)+1)
	for i, l := range lines {
		offsets[i+1] = offsets[i] + len(l)
	}
	return lineIndex{text: text, lines: lines, offsets: offsets}
}

// hunk widens an edit to whole lines, plus ctx lines of context; ok is
// false when there are no lines to anchor it on.
func (li lineIndex) hunk(e edits.TextEdit, ctx int) (edits.Hunk, bool) {
	n := len(li.lines)
	a := sort.SearchInts(li.offsets, e.Start+1) - 1 // the line holding Start
	b := sort.SearchInts(li.offsets, e.End)         // the first line starting at or after End
	a, b = max(a, 0), min(b, n)
	if b == a {
		b = min(a+1, n) // a pure insertion: anchor on the next line
	}
	ca, cb := max(0, a-ctx), min(n, b+ctx)
	if ca == cb {
		return edits.Hunk{}, false
	}
	orig := strings.Join(li.lines[ca:cb], "")
	upd := strings.Join(li.lines[ca:a], "") + li.text[li.offsets[a]:e.Start] + e.New + li.text[e.End:li.offsets[b]] + strings.Join(li.lines[b:cb], "")
	return edits.Hunk{Original: splitKeep(orig), Updated: splitKeep(upd)}, true
}

// splitKeep splits text into line contents, as edits does.
func splitKeep(s string) []string {
	s = strings.TrimSuffix(s, "\n")
	if s == "" {
		return []string{""}
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "\r")
	}
	return lines
}
