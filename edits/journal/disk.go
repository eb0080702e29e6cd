package journal

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/agentls/agentls/internal/statedir"
)

// Disk keeps a workspace's undo journal in the state folder, so
// that "Undo agent turn" still works after the editor or the server
// restarted: journal.jsonl, one operation a line (an edit recorded, edits
// marked undone or redone), replayed at start through the same bounds as
// the session's; and ids, the last edit and turn numbers given, so that
// numbers never repeat across restarts or between two servers of one
// workspace. Writers take an flock on a lock file beside them.
//
// The journal holds the texts of the files an edit changed; it lives
// with the conversation logs, in the user's state folder (0700, files
// 0600), never in the workspace.
type Disk struct {
	dir string
}

// A journalOp is one line of journal.jsonl.
type journalOp struct {
	Op     string            `json:"op"` // "record" or "mark"
	ID     int               `json:"id,omitempty"`
	Turn   int               `json:"turn,omitempty"`
	Label  string            `json:"label,omitempty"`
	Files  []journalFileJSON `json:"files,omitempty"`
	IDs    []int             `json:"ids,omitempty"`    // mark: these edits
	Undone bool              `json:"undone,omitempty"` // mark: undone (else redone)
}

type journalFileJSON struct {
	Path          string `json:"path"`
	Before        string `json:"before"`
	After         string `json:"after"`
	ExistedBefore bool   `json:"existedBefore"`
	ExistsAfter   bool   `json:"existsAfter"`
}

// OpenDisk returns the journal folder of the workspace at root.
func OpenDisk(getenv func(string) string, root string) (*Disk, error) {
	dir, err := statedir.Dir(getenv, "journal", root)
	if err != nil {
		return nil, fmt.Errorf("undo journal: %w", err)
	}
	return &Disk{dir: dir}, nil
}

func (d *Disk) file() string { return filepath.Join(d.dir, "journal.jsonl") }

// locked runs fn holding the workspace's journal lock.
func (d *Disk) locked(fn func() error) error {
	f, err := os.OpenFile(filepath.Join(d.dir, "lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return fmt.Errorf("undo journal: %w", err)
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		return fmt.Errorf("undo journal: lock: %w", err)
	}
	defer syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	return fn()
}

// nextID gives the next edit or turn number (kind "edit" or "turn"), at
// least after, which the session has seen.
func (d *Disk) nextID(kind string, after int) (int, error) {
	var id int
	err := d.locked(func() error {
		name := filepath.Join(d.dir, kind+".id")
		data, err := os.ReadFile(name)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		last, _ := strconv.Atoi(strings.TrimSpace(string(data)))
		id = max(last, after) + 1
		return writeFileAtomic(name, []byte(strconv.Itoa(id)+"\n"))
	})
	return id, err
}

// append adds ops to the journal.
func (d *Disk) append(ops ...journalOp) error {
	lines, err := encodeOps(ops)
	if err != nil {
		return err
	}
	return d.locked(func() error {
		f, err := os.OpenFile(d.file(), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
		if err != nil {
			return err
		}
		if _, err := f.Write(lines); err != nil {
			f.Close()
			return err
		}
		return f.Close()
	})
}

// load reads the journal's operations and its size; a line that does not
// decode (a write cut by a crash) is skipped.
func (d *Disk) load() (ops []journalOp, size int64, err error) {
	err = d.locked(func() error {
		f, err := os.Open(d.file())
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 64<<10), 1<<30)
		for sc.Scan() {
			size += int64(len(sc.Bytes())) + 1
			var op journalOp
			if json.Unmarshal(sc.Bytes(), &op) == nil {
				ops = append(ops, op)
			}
		}
		return sc.Err()
	})
	return ops, size, err
}

// rewrite replaces the journal with ops (the kept entries, compacted).
func (d *Disk) rewrite(ops []journalOp) error {
	lines, err := encodeOps(ops)
	if err != nil {
		return err
	}
	return d.locked(func() error { return writeFileAtomic(d.file(), lines) })
}

// encodeOps is ops as journal lines, one JSON object each.
func encodeOps(ops []journalOp) ([]byte, error) {
	var buf []byte
	for _, op := range ops {
		line, err := json.Marshal(op)
		if err != nil {
			return nil, err
		}
		buf = append(append(buf, line...), '\n')
	}
	return buf, nil
}

// writeFileAtomic writes name through a temporary file and a rename, 0600.
func writeFileAtomic(name string, data []byte) error {
	tmp := name + ".tmp"
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		return err
	}
	if err := os.Rename(tmp, name); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}

func (e *Entry) op() journalOp {
	op := journalOp{Op: "record", ID: e.ID, Turn: e.Turn, Label: e.Label}
	for _, f := range e.files {
		op.Files = append(op.Files, journalFileJSON{Path: f.Path, Before: f.Before, After: f.After, ExistedBefore: f.ExistedBefore, ExistsAfter: f.ExistsAfter})
	}
	return op
}

func entryOf(op journalOp) *Entry {
	e := &Entry{ID: op.ID, Turn: op.Turn, Label: op.Label}
	for _, f := range op.Files {
		e.files = append(e.files, File{Path: f.Path, Before: f.Before, After: f.After, ExistedBefore: f.ExistedBefore, ExistsAfter: f.ExistsAfter})
	}
	return e
}

// Attach makes the journal kept on disk: what the folder holds is
// replayed (through the same bounds), and every later record and mark is
// written there. It returns a problem for the user, or "".
func (j *Journal) Attach(d *Disk) string {
	ops, size, err := d.load()
	if err != nil {
		return fmt.Sprintf("the undo history of earlier sessions could not be read (%v); this session's is kept", err)
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	for _, op := range ops {
		switch op.Op {
		case "record":
			e := entryOf(op)
			j.add(e)
			j.next = max(j.next, e.ID)
			j.nextTurn = max(j.nextTurn, e.Turn)
		case "mark":
			for _, e := range j.entries {
				for _, id := range op.IDs {
					if e.ID == id {
						e.undone = op.Undone
					}
				}
			}
		}
	}
	j.disk = d
	// Dropped entries and old marks stay in the file until it is
	// rewritten: when it holds much more than the history keeps.
	if size > int64(2*j.bytes)+1<<20 {
		// Records first, then one mark for those undone: replaying a
		// Record ends the redo part, which must not drop an undone edit
		// that a later one follows.
		var kept []journalOp
		undone := journalOp{Op: "mark", Undone: true}
		for _, e := range j.entries {
			op := e.op()
			op.Undone = false
			kept = append(kept, op)
			if e.undone {
				undone.IDs = append(undone.IDs, e.ID)
			}
		}
		if len(undone.IDs) > 0 {
			kept = append(kept, undone)
		}
		if err := d.rewrite(kept); err != nil {
			return fmt.Sprintf("the undo history on disk could not be compacted (%v)", err)
		}
	}
	return ""
}

// persist writes ops when the journal is kept on disk, and says once when
// it cannot. j.mu is held.
func (j *Journal) persist(ops ...journalOp) string {
	if j.disk == nil {
		return ""
	}
	if err := j.disk.append(ops...); err != nil {
		if !j.diskFailed {
			j.diskFailed = true
			return fmt.Sprintf("the undo history could not be written to disk (%v): it is kept for this session only", err)
		}
	}
	return ""
}

// newID gives the next edit or turn id: from the workspace's counter when
// kept on disk (shared with other servers and later sessions), else
// counted here. j.mu is held.
func (j *Journal) newID(kind string, last *int) int {
	if j.disk != nil {
		if id, err := j.disk.nextID(kind, *last); err == nil {
			*last = id
			return id
		}
	}
	*last++
	return *last
}
