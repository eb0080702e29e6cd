package lsp

import (
	"strings"
	"testing"

	"github.com/agentls/agentls/edits"
)

// TestJournalIsBounded: the undo history keeps at most its entries and
// bytes, drops the oldest first and says which, refuses to keep one edit
// larger than all of it, and names a dropped edit clearly when asked to
// undo it. (It grew without bound: 858 edits of 10 KB held 44 MB.)
func TestJournalIsBounded(t *testing.T) {
	change := func(size int) []*edits.FileChange {
		return []*edits.FileChange{{Path: "a.txt", Action: edits.Modify, Base: strings.Repeat("a", size), Result: strings.Repeat("b", size)}}
	}
	j := &journal{maxEntries: 3, maxBytes: 1000}
	for i := 1; i <= 3; i++ {
		if _, note := j.record(1, "e", change(100)); note != "" {
			t.Fatalf("edit %d: note %q", i, note)
		}
	}
	id, note := j.record(1, "e", change(100))
	if id != 4 || !strings.Contains(note, "agent edit 1 can no longer be undone") {
		t.Errorf("4th: id %d, note %q", id, note)
	}
	// 2 × 450 bytes more: the byte bound drops two more at once.
	j.record(1, "e", change(200))
	_, note = j.record(1, "e", change(225))
	if !strings.Contains(note, "agent edits 3–4 can no longer be undone") {
		t.Errorf("bytes: note %q", note)
	}
	if len(j.entries) != 2 || j.bytes != 850 {
		t.Errorf("kept %d entries, %d bytes", len(j.entries), j.bytes)
	}
	if _, err := j.pickEdit(true, 2); err == nil || !strings.Contains(err.Error(), "no longer in the undo history") {
		t.Errorf("undo of a dropped edit: %v", err)
	}
	id, note = j.record(9, "big", change(600))
	if !strings.Contains(note, "too large") || len(j.entries) != 2 {
		t.Errorf("an edit larger than the history: id %d, note %q, %d kept", id, note, len(j.entries))
	}
	// Everything kept is still undoable; the bytes held stay within bounds.
	if j.bytes > 1000 {
		t.Errorf("holds %d bytes", j.bytes)
	}
}
