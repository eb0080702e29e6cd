package edits

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"sync"

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
	// Version is the editor's version of the base the change was
	// computed against (Base), or NotOpen when it came from disk.
	Version int32

	// base is the content the change was computed against (see Base).
	base baseText

	// result is the new content (see Result), nil for none.
	result *resultText
}

// NewModify returns the change of an existing file from base (at the
// editor's version, or NotOpen) to result, with no edits known: they are
// a diff of the two when sent.
func NewModify(path, base string, version int32, result string) *FileChange {
	c := &FileChange{Path: path, Action: Modify, base: textOf(base), Version: version}
	c.SetResult(result)
	return c
}

// Base returns the content the change was computed against (empty for
// Create). Applying checks that the file still has this content. A change
// recorded on an editor's Buffer (Changeset.EditBuffer) joins its text
// here on the first call (once per Buffer): sending its edits to the
// editor reads only the few bytes they touch, so the first patch after a
// keystroke does not copy the document.
func (c *FileChange) Base() string { return c.base.text() }

// SetBase sets the content the change was computed against (a rebase, a
// change turned into a Create), keeping the recorded edits only while it
// is the text they were made on (see TextEdits).
func (c *FileChange) SetBase(text string) { c.base = textOf(text) }

// BaseBuffer returns the editor's Buffer the change was computed on, or
// nil when its base was given as a string: the server places the
// change's edits with that buffer's line index.
func (c *FileChange) BaseBuffer() *Buffer { return c.base.buf }

// A baseText is a change's base: a string, or an editor's Buffer whose
// text is joined only when read whole (Buffer.Text, once per Buffer).
// Its length and the bytes around an edit are read without the join.
type baseText struct {
	s   string
	buf *Buffer // when set, the text; s is unused
}

func textOf(s string) baseText { return baseText{s: s} }

func (t baseText) text() string {
	if t.buf != nil {
		return t.buf.Text()
	}
	return t.s
}

func (t baseText) len() int {
	if t.buf != nil {
		return t.buf.Len()
	}
	return len(t.s)
}

// slice returns text[i:j], as slicing the joined text would (out of
// range panics as the string does).
func (t baseText) slice(i, j int) string {
	if t.buf == nil {
		return t.s[i:j]
	}
	s, err := t.buf.Slice(i, j)
	if err != nil {
		return t.buf.Text()[i:j]
	}
	return s
}

// same reports whether t and u are the same text: at once for one
// Buffer or one string (the same data), by comparing them otherwise.
func (t baseText) same(u baseText) bool {
	switch {
	case t.buf != nil && t.buf == u.buf:
		return true
	case t.len() != u.len():
		return false
	}
	return t.text() == u.text()
}

// A resultText is a change's new content: given whole (a save, a rebase,
// a change accepted from review), or made on first use from a text and
// the edits a tool resolved on it (a patch). An editor is sent the edits,
// so a patch to a large open buffer is sent without the file ever being
// copied; its new text is made when something reads it — the echo check
// and the journal after it was sent, review, the disk, a diff, a later
// tool call of the same batch.
//
// A resultText is not changed once built, except that its text is made
// once (under once, so changes may be read from several goroutines), so
// copies of a FileChange share it safely; a FileChange given a new result
// gets a new resultText.
type resultText struct {
	// whole says text was given whole; otherwise once makes it from base
	// and edits.
	whole bool
	once  sync.Once
	text  string
	size  int // len(text), known before it is made

	// edits turn base into text, sorted, not overlapping and trimmed to
	// the bytes that change (minimalWithin). With ofBase they are the
	// edits from the change's Base (which base then is, when the change
	// was made), the exact, minimal edits the tool knew: sent to the
	// editor instead of a diff of the two whole texts. They hold only
	// while Base is still base: a change whose Base is set otherwise
	// (rebased) is diffed again (see TextEdits), as is one given a new
	// result. Without ofBase, base is the text an earlier change of the
	// same batch made, not the Base (a patch of a file created or saved
	// by an earlier tool call).
	base   baseText
	edits  []TextEdit
	ofBase bool
}

// wholeText is a result given whole, with es (nil for none) as its edits
// from base, if they fit.
func wholeText(base baseText, text string, es []TextEdit) *resultText {
	r := &resultText{whole: true, text: text, size: len(text)}
	if es != nil && editsFit(base.text(), text, es) {
		r.base, r.edits, r.ofBase = base, es, true
	}
	return r
}

// editedText is the result of es on base, made on first use.
func editedText(base baseText, es []TextEdit, ofBase bool) *resultText {
	size := base.len()
	for _, e := range es {
		size += len(e.New) - (e.End - e.Start)
	}
	return &resultText{size: size, base: base, edits: es, ofBase: ofBase}
}

func (r *resultText) get() string {
	if r == nil {
		return ""
	}
	if !r.whole {
		r.once.Do(func() { r.text = ApplyEdits(r.base.text(), r.edits) })
	}
	return r.text
}

func (r *resultText) len() int {
	if r == nil {
		return 0
	}
	return r.size
}

// Result returns the new content (empty for Delete). A change whose edits
// were recorded without it (Changeset.Edit) makes it on the first call,
// at the cost of a copy of the file, and keeps it.
func (c *FileChange) Result() string { return c.result.get() }

// SetResult sets the new content, forgetting the edits recorded for the
// old one: the change is diffed when sent.
func (c *FileChange) SetResult(text string) { c.result = wholeText(baseText{}, text, nil) }

// TextEdits returns minimal edits that turn Base into Result, sorted and
// not overlapping: the ones recorded when the change was made, if Base
// and Result are still the texts they were made for, else those of a diff
// of the two (MinimalEdits' edits, with the common prefix and suffix found
// a block of bytes at a time). Lines the change does not touch are in no
// edit, so an editor keeps its cursors there. Recorded edits are returned
// without the Result being made.
func (c *FileChange) TextEdits() []TextEdit {
	if es, ok := c.recordedEdits(); ok {
		return slices.Clone(es) // the caller's to change
	}
	return diffEdits(c.Base(), c.Result())
}

// recordedEdits returns the edits recorded for the change, if they still
// turn Base into Result. Comparing a string with itself returns at once
// (same data, same length), so this costs nothing while Base is the
// recorded one (or the same Buffer), and a full comparison only for a
// text of the same length set since.
func (c *FileChange) recordedEdits() ([]TextEdit, bool) {
	if r := c.result; r != nil && r.ofBase && c.Action == Modify && c.base.same(r.base) {
		return r.edits, true
	}
	return nil, false
}

// unchanged reports whether Result is Base. Comparing two texts of the
// same length (a patch that changes "1" to "2") reads them up to the
// change, half of a large file on average; recorded edits say where the
// texts can differ, and only that stretch is compared (made from the
// edits, when the Result is not made yet).
func (c *FileChange) unchanged() bool {
	if c.result.len() != c.base.len() {
		return false
	}
	es, ok := c.recordedEdits()
	if !ok {
		return c.Result() == c.Base()
	}
	if len(es) == 0 {
		return true
	}
	// The same length: the edits' growth adds up to nothing, so the
	// texts agree before the first edit and after the last.
	from, to := es[0].Start, es[len(es)-1].End
	if c.result.whole {
		return c.result.text[from:to] == c.base.slice(from, to)
	}
	var b strings.Builder
	b.Grow(to - from)
	at := from
	for _, e := range es {
		b.WriteString(c.base.slice(at, e.Start))
		b.WriteString(e.New)
		at = e.End
	}
	return b.String() == c.base.slice(from, to)
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
	return udiff.Unified(from, to, c.Base(), c.Result())
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
// changeset does not touch it; exists is false when it deletes it. A
// change recorded by its edits gets its Result made here (a later tool
// call reading the file it changed).
func (cs *Changeset) Get(p string) (content string, exists, ok bool) {
	c := cs.find(p)
	if c == nil {
		return "", false, false
	}
	return c.Result(), c.Action != Delete, true
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

// WriteEdits is Write for a change whose edits are known as well as its
// result: es turn the file's content as the changeset had it (base, or
// the result of an earlier change to it) into result, sorted and not
// overlapping. They are kept as Edit keeps them; edits that do not fit
// base and result are dropped (the change is then diffed when sent); nil
// means none are known. A tool that has only the edits calls Edit.
func (cs *Changeset) WriteEdits(p, base string, existed bool, version int32, result string, es []TextEdit) {
	if c := cs.find(p); c != nil {
		before := c.Result()
		earlier, known := c.recordedEdits()
		known = known && es != nil && editsFit(before, result, es)
		if c.Action == Delete {
			c.Action = Modify
		}
		var composed []TextEdit
		if known {
			composed = composeEdits(c.Base(), before, earlier, minimalWithin(textOf(before), es))
		}
		c.result = wholeText(c.base, result, composed)
		return
	}
	a := Modify
	if !existed {
		a, base = Create, ""
	}
	var trimmed []TextEdit
	if es != nil && a == Modify && editsFit(base, result, es) {
		trimmed = minimalWithin(textOf(base), es)
	}
	cs.Changes = append(cs.Changes, &FileChange{Path: p, Action: a, base: textOf(base), Version: version, result: wholeText(textOf(base), result, trimmed)})
}

// Edit records that the edits es change path: they turn its content as
// the changeset has it (base, for a file it does not change yet; base and
// existed describe the file before the changeset, version the editor's
// version of base) into its new content, sorted and not overlapping (the
// hunks a patch resolved). They are trimmed to the bytes that change and
// kept with the change, composed with those of an earlier change to the
// same file, so sending it costs the size of the edits rather than a
// diff of the whole file; the new content itself is made only when first
// read (FileChange.Result), so a patch to a large file is not copied on
// its way to the editor. Edits that are out of order, overlap or reach
// past the text are refused, and nothing is recorded.
func (cs *Changeset) Edit(p, base string, existed bool, version int32, es []TextEdit) error {
	return cs.edit(p, textOf(base), existed, version, es)
}

// EditBuffer is Edit for a file open in an editor, whose text base is
// (at the editor's version): the change keeps the Buffer, not its text,
// which is joined only when something reads the change's Base or Result
// (FileChange.Base). Trimming the edits and checking them against the
// base read only the bytes they touch, so recording the first patch
// after a keystroke does not copy the document.
func (cs *Changeset) EditBuffer(p string, base *Buffer, version int32, es []TextEdit) error {
	return cs.edit(p, baseText{buf: base}, true, version, es)
}

func (cs *Changeset) edit(p string, base baseText, existed bool, version int32, es []TextEdit) error {
	c := cs.find(p)
	before := base
	switch {
	case c != nil:
		before = textOf(c.Result())
	case !existed:
		before = baseText{}
	}
	if err := checkEdits(before.len(), es); err != nil {
		return fmt.Errorf("edit %s: %w; nothing was recorded", p, err)
	}
	trimmed := minimalWithin(before, es)
	if c == nil {
		a := Modify
		if !existed {
			a, base = Create, baseText{}
		}
		cs.Changes = append(cs.Changes, &FileChange{Path: p, Action: a, base: base, Version: version, result: editedText(base, trimmed, a == Modify)})
		return nil
	}
	if earlier, known := c.recordedEdits(); known {
		c.result = editedText(c.base, composeEdits(c.Base(), before.text(), earlier, trimmed), true)
		return nil
	}
	if c.Action == Delete {
		c.Action = Modify
	}
	c.result = editedText(before, trimmed, false)
	return nil
}

// Remove records that path is deleted.
func (cs *Changeset) Remove(p, base string, version int32) {
	if c := cs.find(p); c != nil {
		if c.Action == Create {
			cs.Changes = slices.DeleteFunc(cs.Changes, func(x *FileChange) bool { return x == c })
			return
		}
		c.Action, c.result = Delete, nil
		return
	}
	cs.Changes = append(cs.Changes, &FileChange{Path: p, Action: Delete, base: textOf(base), Version: version})
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
	if strings.Contains(p, "```") {
		// A fence the model closed on its call's line ("```move a.md
		// docs/a.md```"), read into the path: no file meant has one.
		return "", fmt.Errorf("path %s holds a ``` fence: write the path alone after the block type, and close the block on a line of its own", p)
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

// resultParts returns the Result as a text and the edits that change it
// into the Result (none when the text is the Result itself), so that a
// writer can write it in pieces without making it (ApplyToDisk). A
// Delete's is empty.
func (c *FileChange) resultParts() (string, []TextEdit) {
	r := c.result
	switch {
	case r == nil:
		return "", nil
	case r.whole:
		return r.text, nil
	case checkEdits(r.base.len(), r.edits) != nil:
		return r.get(), nil // as Result has it (never so: Edit checked them)
	}
	return r.base.text(), r.edits
}
