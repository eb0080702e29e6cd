package edits

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"

	"github.com/aymanbagabas/go-udiff"
)

// Action is what a FileChange does to its file.
type Action int

const (
	Modify Action = iota
	Create
	Delete
)

func (a Action) String() string { return [...]string{"modify", "create", "delete"}[a] }

// NotOpen is the version of content that came from disk rather than an
// editor's buffer. Editors number buffers from 0 (Neovim opens them at
// version 0), so 0 cannot mean "no buffer".
const NotOpen int32 = -1

// A FileChange is one file's part of a Changeset.
type FileChange struct {
	// Path is relative to the workspace root, slash-separated and clean.
	Path   string
	Action Action
	// Base is the content the change was computed against (empty for
	// Create), and Version the editor's version of it, or NotOpen when it
	// came from disk. Applying checks that the file still has this content.
	Base    string
	Version int32
	// Result is the new content (empty for Delete).
	Result string

	// edits turn editsBase into editsResult: the exact, minimal edits the
	// tool that made the change knew (the hunks it resolved), so the
	// editor can be sent them without diffing two whole texts. They hold
	// only while Base and Result are still those texts: a change whose
	// Base or Result is set otherwise (rebased, reviewed, undone) gets
	// its edits by a diff again (see TextEdits). editsKnown tells known
	// edits that change nothing from unknown ones.
	edits                  []TextEdit
	editsBase, editsResult string
	editsKnown             bool
}

// TextEdits returns minimal edits that turn Base into Result, sorted and
// not overlapping: the ones recorded when the change was made, if Base
// and Result are still the texts they were made for, else those of a diff
// of the two (MinimalEdits' edits, with the common prefix and suffix found
// a block of bytes at a time). Lines the change does not touch are in no
// edit, so an editor keeps its cursors there.
func (c *FileChange) TextEdits() []TextEdit {
	if es, ok := c.recordedEdits(); ok {
		return slices.Clone(es) // the caller's to change
	}
	return diffEdits(c.Base, c.Result)
}

// recordedEdits returns the edits recorded for the change, if they still
// turn Base into Result. Comparing a string with itself returns at once
// (same data, same length), so this costs nothing while the texts are the
// recorded ones, and a full comparison only for a text of the same length
// set since.
func (c *FileChange) recordedEdits() ([]TextEdit, bool) {
	if c.editsKnown && c.Base == c.editsBase && c.Result == c.editsResult {
		return c.edits, true
	}
	return nil, false
}

// unchanged reports whether Result is Base. Comparing two texts of the
// same length (a patch that changes "1" to "2") reads them up to the
// change, half of a large file on average; recorded edits say where the
// texts can differ, and only that stretch is compared.
func (c *FileChange) unchanged() bool {
	if len(c.Result) != len(c.Base) {
		return false
	}
	if es, ok := c.recordedEdits(); ok {
		if len(es) == 0 {
			return true
		}
		// The same length: the edits' growth adds up to nothing, so the
		// texts agree before the first edit and after the last.
		from, to := es[0].Start, es[len(es)-1].End
		return c.Result[from:to] == c.Base[from:to]
	}
	return c.Result == c.Base
}

// record keeps es as the edits from Base to Result, if they fit them;
// nil forgets the edits recorded.
func (c *FileChange) record(es []TextEdit) {
	c.edits, c.editsBase, c.editsResult, c.editsKnown = nil, "", "", false
	if es != nil && c.Action == Modify && editsFit(c.Base, c.Result, es) {
		c.edits, c.editsBase, c.editsResult, c.editsKnown = es, c.Base, c.Result, true
	}
}

// UnifiedDiff renders the change as a unified diff (a/ and b/ paths, as
// git does; /dev/null for a created or deleted file).
func (c *FileChange) UnifiedDiff() string {
	from, to := "a/"+c.Path, "b/"+c.Path
	switch c.Action {
	case Create:
		from = "/dev/null"
	case Delete:
		to = "/dev/null"
	}
	return udiff.Unified(from, to, c.Base, c.Result)
}

// A Changeset is the set of file changes one request makes: built and
// checked completely in memory, then applied all together or not at all.
// A file changed several times holds one change, from its first base to its
// last result.
type Changeset struct {
	Label   string
	Changes []*FileChange
}

// Get returns the changeset's content for path: ok is false when the
// changeset does not touch it; exists is false when it deletes it.
func (cs *Changeset) Get(p string) (content string, exists, ok bool) {
	c := cs.find(p)
	if c == nil {
		return "", false, false
	}
	return c.Result, c.Action != Delete, true
}

func (cs *Changeset) find(p string) *FileChange {
	for _, c := range cs.Changes {
		if c.Path == p {
			return c
		}
	}
	return nil
}

// Write records that path becomes result. base and existed describe the
// file before the changeset (ignored when the changeset already changes
// it), version the editor's version of base.
func (cs *Changeset) Write(p, base string, existed bool, version int32, result string) {
	cs.WriteEdits(p, base, existed, version, result, nil)
}

// WriteEdits is Write for a change whose edits are known: es turn the
// file's content as the changeset had it (base, or the result of an
// earlier change to it) into result, sorted and not overlapping (the
// hunks a patch resolved). They are trimmed to the bytes that change and
// kept with the change, composed with those of an earlier change to the
// same file, so sending it costs the size of the edits rather than a diff
// of the whole file. Edits that do not fit base and result are dropped
// (the change is then diffed when sent); nil means none are known.
func (cs *Changeset) WriteEdits(p, base string, existed bool, version int32, result string, es []TextEdit) {
	if c := cs.find(p); c != nil {
		before := c.Result
		earlier, known := c.recordedEdits()
		known = known && es != nil && editsFit(before, result, es)
		c.Result = result
		if c.Action == Delete {
			c.Action = Modify
		}
		c.record(nil)
		if known {
			c.record(composeEdits(c.Base, before, earlier, minimalWithin(before, es)))
		}
		return
	}
	a := Modify
	if !existed {
		a, base = Create, ""
	}
	c := &FileChange{Path: p, Action: a, Base: base, Version: version, Result: result}
	if es != nil && editsFit(base, result, es) {
		c.record(minimalWithin(base, es))
	}
	cs.Changes = append(cs.Changes, c)
}

// Remove records that path is deleted.
func (cs *Changeset) Remove(p, base string, version int32) {
	if c := cs.find(p); c != nil {
		if c.Action == Create {
			cs.Changes = slices.DeleteFunc(cs.Changes, func(x *FileChange) bool { return x == c })
			return
		}
		c.Action, c.Result = Delete, ""
		c.record(nil)
		return
	}
	cs.Changes = append(cs.Changes, &FileChange{Path: p, Action: Delete, Base: base, Version: version})
}

// Effective returns the changes that change something, in path order.
func (cs *Changeset) Effective() []*FileChange {
	var out []*FileChange
	for _, c := range cs.Changes {
		if c.Action == Modify && c.unchanged() {
			continue
		}
		out = append(out, c)
	}
	slices.SortFunc(out, func(a, b *FileChange) int { return strings.Compare(a.Path, b.Path) })
	return out
}

// CleanPath checks a path a model gave and returns it clean and
// slash-separated, relative to the workspace root (an absolute directory):
// absolute paths inside the root are made relative; paths outside it, or
// that climb out of it with "..", or that start with "~" (a shell's home
// folder, which agentls never expands), are refused.
//
// When the root is on disk, symlinks are resolved (ResolveInRoot): a path
// that a symlink leads outside the root is refused, and one that a symlink
// leads elsewhere inside it comes back as the real path, so the file is
// read, named and edited as itself (an editor's buffer is found under its
// real path). A root not on disk (tests, in-memory sources) has no
// symlinks: the path is checked as written.
func CleanPath(root, p string) (string, error) {
	if strings.TrimSpace(p) == "" {
		return "", fmt.Errorf("no path given")
	}
	if startsWithTilde(p) {
		return "", fmt.Errorf("path %s starts with ~: agentls does not expand ~ (the home folder is outside the workspace); give the path relative to the workspace root %s", p, root)
	}
	q := filepath.ToSlash(filepath.Clean(p))
	if filepath.IsAbs(p) {
		rel, err := filepath.Rel(root, filepath.Clean(p))
		if err != nil || rel == ".." || strings.HasPrefix(filepath.ToSlash(rel), "../") {
			return "", fmt.Errorf("path %s is outside the workspace %s", p, root)
		}
		q = filepath.ToSlash(rel)
	}
	switch {
	case q == ".." || strings.HasPrefix(q, "../"):
		return "", fmt.Errorf("path %s is outside the workspace %s", p, root)
	case q == ".":
		return "", fmt.Errorf("path %s is the workspace root, not a file", p)
	}
	realRoot, err := filepath.EvalSymlinks(root)
	if errors.Is(err, fs.ErrNotExist) {
		return q, nil
	}
	if err != nil {
		return "", fmt.Errorf("workspace root %s: %w", root, err)
	}
	abs, err := resolveInRealRoot(realRoot, q)
	if err != nil {
		return "", err
	}
	rel, err := filepath.Rel(realRoot, abs)
	if err != nil || rel == "." {
		return "", fmt.Errorf("path %s resolves to the workspace root, not a file", p)
	}
	return filepath.ToSlash(rel), nil
}
