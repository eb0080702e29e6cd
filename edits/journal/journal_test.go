package journal

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/edits"
)

// TestJournalIsBounded: the undo history keeps at most its entries and
// bytes, drops the oldest first and says which, refuses to keep one edit
// larger than all of it, and names a dropped edit clearly when asked to
// undo it. (It grew without bound: 858 edits of 10 KB held 44 MB.)
func TestJournalIsBounded(t *testing.T) {
	t.Parallel()
	change := func(size int) []*edits.FileChange {
		return []*edits.FileChange{edits.NewModify("a.txt", strings.Repeat("a", size), 0, strings.Repeat("b", size))}
	}
	j := &Journal{maxEntries: 3, maxBytes: 1000}
	for i := 1; i <= 3; i++ {
		if _, note := j.Record(1, "e", change(100)); note != "" {
			t.Fatalf("edit %d: note %q", i, note)
		}
	}
	id, note := j.Record(1, "e", change(100))
	if id != 4 || !strings.Contains(note, "agent edit 1 can no longer be undone") {
		t.Errorf("4th: id %d, note %q", id, note)
	}
	// 2 × 450 bytes more: the byte bound drops two more at once.
	j.Record(1, "e", change(200))
	_, note = j.Record(1, "e", change(225))
	if !strings.Contains(note, "agent edits 3–4 can no longer be undone") {
		t.Errorf("bytes: note %q", note)
	}
	if len(j.entries) != 2 || j.bytes != 850 {
		t.Errorf("kept %d entries, %d bytes", len(j.entries), j.bytes)
	}
	if _, err := j.PickEdit(true, 2); err == nil || !strings.Contains(err.Error(), "no longer in the undo history") {
		t.Errorf("undo of a dropped edit: %v", err)
	}
	id, note = j.Record(9, "big", change(600))
	if !strings.Contains(note, "too large") || len(j.entries) != 2 {
		t.Errorf("an edit larger than the history: id %d, note %q, %d kept", id, note, len(j.entries))
	}
	// Everything kept is still undoable; the bytes held stay within bounds.
	if j.bytes > 1000 {
		t.Errorf("holds %d bytes", j.bytes)
	}
}

// TestJournalOnDisk: a journal kept on disk is replayed by the next
// session (edits, their turns, what was undone, the bounds), ids never
// repeat — across sessions, nor between two servers of one workspace —
// and a journal that grew past what it keeps is compacted without losing
// an undone edit that a later one follows.
func TestJournalOnDisk(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	getenv := func(k string) string { return map[string]string{"XDG_STATE_HOME": dir}[k] }
	root := t.TempDir()
	open := func() *Journal {
		d, err := OpenDisk(getenv, root)
		if err != nil {
			t.Fatal(err)
		}
		j := &Journal{maxEntries: 3, maxBytes: 1 << 20}
		if p := j.Attach(d); p != "" {
			t.Fatal(p)
		}
		return j
	}
	change := func(s string) []*edits.FileChange {
		return []*edits.FileChange{edits.NewModify("a.txt", "old "+s, 0, "new "+s)}
	}
	a, b := open(), open() // two servers of one workspace
	ta := a.NewTurn()
	ida, _ := a.Record(ta, "first", change("1"))
	tb := b.NewTurn()
	idb, _ := b.Record(tb, "second", change("2"))
	if ta == tb || ida == idb {
		t.Fatalf("two servers gave the same ids: turns %d %d, edits %d %d", ta, tb, ida, idb)
	}
	_, es, err := a.PickTurn(true, ta)
	if err != nil {
		t.Fatal(err)
	}
	a.Mark(es, true)

	c := open() // the next session
	if got := len(c.entries); got != 2 {
		t.Fatalf("replayed %d entries, want 2", got)
	}
	if !c.entries[0].undone || c.entries[1].undone || c.entries[0].Turn != ta || c.entries[1].files[0].After != "new 2" {
		t.Errorf("replayed %+v %+v", *c.entries[0], *c.entries[1])
	}
	if id := c.NewTurn(); id <= max(ta, tb) {
		t.Errorf("a turn id repeats after a restart: %d", id)
	}
	// Past the bound: the oldest is dropped, and stays dropped.
	for i := range 3 {
		c.Record(c.NewTurn(), "more", change(fmt.Sprint(i)))
	}
	if _, err := c.PickEdit(true, ida); err == nil || !strings.Contains(err.Error(), "no longer in the undo history") {
		t.Errorf("a dropped edit: %v", err)
	}
	d := open()
	if len(d.entries) != 3 || d.entries[0].Label != "more" {
		t.Errorf("after the bound, replayed %d entries", len(d.entries))
	}

	// Compaction keeps an undone edit in the middle of the history.
	j := &Journal{maxEntries: 3, maxBytes: 1 << 20}
	j.entries = []*Entry{{ID: 50, Turn: 50, Label: "x", undone: true}, {ID: 51, Turn: 51, Label: "y"}}
	disk, _ := OpenDisk(getenv, root)
	var ops []journalOp
	for _, e := range j.entries {
		op := e.op()
		ops = append(ops, op)
	}
	ops = append(ops, journalOp{Op: "mark", IDs: []int{50}, Undone: true})
	if err := disk.rewrite(ops); err != nil {
		t.Fatal(err)
	}
	e := open()
	if len(e.entries) != 2 || !e.entries[0].undone || e.entries[1].undone {
		t.Errorf("after a rewrite: %d entries", len(e.entries))
	}
}

// TestDiskNamesStay: the files of the journal kept on disk have the names
// earlier versions wrote (journal.jsonl, edit.id, turn.id), so the history
// and its numbering survive an upgrade.
func TestDiskNamesStay(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	getenv := func(k string) string { return map[string]string{"XDG_STATE_HOME": dir}[k] }
	d, err := OpenDisk(getenv, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	j := &Journal{}
	if p := j.Attach(d); p != "" {
		t.Fatal(p)
	}
	j.Record(j.NewTurn(), "x", []*edits.FileChange{edits.NewModify("a.txt", "a", 0, "b")})
	for _, name := range []string{"journal.jsonl", "edit.id", "turn.id"} {
		if _, err := os.Stat(filepath.Join(d.dir, name)); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}
