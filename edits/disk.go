package edits

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// ApplyToDisk applies a changeset to the files under root, all or nothing.
//
// Every file is checked first: its path must resolve (symlinks followed)
// inside root, and its content must still be the change's Base (a file to
// create must not exist); read-only, setuid and setgid files and anything
// but regular files are refused. Then each file is written without a
// window between check and use: the root is opened once and every folder
// on the way is opened beneath it with no symlink allowed (openat2 with
// RESOLVE_BENEATH|RESOLVE_NO_SYMLINKS, or one O_NOFOLLOW openat per folder
// where the kernel lacks it), so a folder swapped for a symlink meanwhile
// fails the write instead of redirecting it. A changed file gets a
// temporary file in its folder, renamed over it, keeping its mode; a new
// file is created exclusively (never over one that appeared meanwhile);
// deleted files are renamed aside until the end. If any step fails, the
// files already replaced are put back as they were, and the error says
// so. Every refusal ends with "Nothing was written.".
//
// A changed file is never seen half written, since the rename replaces
// it whole, and a crash of agentls leaves the old file or the new one.
// Whether a file is synced (fsync) before its rename depends on the
// filesystem the workspace is on (syncBeforeRename): ext4 and btrfs
// write a renamed-over file's data before the rename commits, so a power
// loss or a kernel crash keeps the old file or the new one without it, as
// gptme, aider, VS Code, git (by default) and os.WriteFile rely on; tmpfs
// keeps nothing across either. Elsewhere (xfs, network and overlay
// filesystems, other systems) each file is synced first, since a rename
// there may reach the disk before the data and leave an empty file. A
// sync costs more than all the rest of a small patch (0.3–1 ms for
// 10 KB on a virtual disk).
func ApplyToDisk(root string, cs *Changeset) error {
	return applyToDisk(root, cs, diskOptions{})
}

// diskOptions are what tests vary.
type diskOptions struct {
	// beforeWrite runs before each file is written; an error (or a
	// panic) fails the apply there.
	beforeWrite func(c *FileChange) error
	// walkOnly walks folders one openat at a time, as on kernels
	// without openat2.
	walkOnly bool
	// sync syncs each written file before its rename whatever the
	// filesystem: for BenchmarkPatchToDisk, to measure what a sync costs,
	// and the tests of the path that syncs.
	sync bool
}

// nothingWritten closes every refusal made before anything was written.
const nothingWritten = "Nothing was written."

// refused ends err's message with nothingWritten.
func refused(err error) error {
	sep := ". "
	if strings.HasSuffix(err.Error(), ".") {
		sep = " "
	}
	return fmt.Errorf("%w%s%s", err, sep, nothingWritten)
}

func applyToDisk(root string, cs *Changeset, opts diskOptions) error {
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return refused(fmt.Errorf("workspace root %s: %w", root, err))
	}
	rootDir, err := openRootFolder(realRoot)
	if err != nil {
		return refused(fmt.Errorf("workspace root %s: %w", realRoot, err))
	}
	ws := &workspace{realRoot: realRoot, root: rootDir, walkOnly: opts.walkOnly, sync: opts.sync || syncBeforeRename(rootDir), folders: map[string]folder{"": rootDir}}
	defer ws.closeAll()

	changes := cs.Effective()
	targets := make([]*target, len(changes))
	for i, c := range changes {
		t, err := ws.prepare(c)
		if err != nil {
			return refused(err)
		}
		targets[i] = t
	}

	// started holds every target apply began on, the one in progress
	// included, so that a failure (or a panic) anywhere puts back all of
	// them.
	var started []*target
	settled := false
	defer func() {
		if !settled { // a panic: leave the files as they were, then go on panicking
			ws.rollback(started)
		}
	}()
	for _, t := range targets {
		started = append(started, t)
		err := error(nil)
		if opts.beforeWrite != nil {
			err = opts.beforeWrite(t.change)
		}
		if err == nil {
			err = ws.apply(t)
		}
		if err != nil {
			settled = true
			written := len(started) - 1
			if rerr := ws.rollback(started); rerr != nil {
				return fmt.Errorf("%s %s: %w; putting back the files already written failed too: %v", t.change.Action, t.change.Path, err, rerr)
			}
			if written == 0 {
				return refused(fmt.Errorf("%s %s: %w", t.change.Action, t.change.Path, err))
			}
			putBack := fmt.Sprintf("the %d files already written were put back as they were", written)
			if written == 1 {
				putBack = "the file already written was put back as it was"
			}
			return fmt.Errorf("%s %s: %w; %s, so nothing changed", t.change.Action, t.change.Path, err, putBack)
		}
	}
	settled = true
	for _, t := range targets {
		ws.commit(t)
	}
	return nil
}

// A folder is an open directory that file operations are made relative
// to, so that no path is looked up again between a check and a write. No
// operation follows a symlink in the name it is given.
type folder interface {
	// openBeneath opens the folder at rel (slash-separated, below this
	// one) with no symlink allowed on the way.
	openBeneath(rel string, walkOnly bool) (folder, error)
	openFile(name string, flag int, perm fs.FileMode) (*os.File, error)
	mkdir(name string) error
	rename(from, to string) error
	remove(name string) error
	removeFolder(name string) error
	close() error
}

// A workspace is the open root of one apply and the folders opened under
// it, by their path relative to the root ("" is the root).
type workspace struct {
	realRoot string
	root     folder
	walkOnly bool
	sync     bool // diskOptions.sync
	folders  map[string]folder
	extra    []folder // folders created during the apply
}

func (ws *workspace) closeAll() {
	for _, f := range ws.folders {
		f.close()
	}
	for _, f := range ws.extra {
		f.close()
	}
}

// A target is one change on its way to the disk: what was checked, then
// what was done, so that it can be undone.
type target struct {
	change  *FileChange
	rel     string   // the resolved path, relative to the real root
	dir     folder   // the file's folder, or its nearest existing ancestor while missing folders remain
	missing []string // folders to create under dir, outermost first
	name    string   // the file's name in its folder
	existed bool
	same    bool        // its content is the change's Base (not looked at for a Create)
	mode    fs.FileMode // its permission bits

	made  []madeFolder // folders created for the file, outermost first
	wrote bool         // the file now has the change's result
	aside string       // a deleted file's temporary name
}

type madeFolder struct {
	parent folder
	name   string
}

// prepare resolves and checks one change, reading the file through the
// folder it will be written in.
func (ws *workspace) prepare(c *FileChange) (*target, error) {
	abs, err := resolveInRealRoot(ws.realRoot, c.Path)
	if err != nil {
		return nil, err
	}
	relOS, err := filepath.Rel(ws.realRoot, abs)
	if err != nil || relOS == "." {
		return nil, fmt.Errorf("%s resolves to the workspace root, not a file", c.Path)
	}
	rel := filepath.ToSlash(relOS)
	dirRel, name := path.Split(rel)
	dirRel = strings.TrimSuffix(dirRel, "/")
	dir, missing, err := ws.nearestFolder(dirRel)
	if err != nil {
		return nil, fmt.Errorf("%s: open its folder %s: %w", c.Path, dirRel, err)
	}
	t := &target{change: c, rel: rel, dir: dir, missing: missing, name: name}
	if len(missing) == 0 {
		if err := t.compareOld(); err != nil {
			return nil, err
		}
	}
	if err := t.check(); err != nil {
		return nil, err
	}
	return t, nil
}

// nearestFolder opens dirRel beneath the root, or, when it does not exist
// yet, its nearest existing ancestor and the names of the folders missing
// below it.
func (ws *workspace) nearestFolder(dirRel string) (folder, []string, error) {
	if f, ok := ws.folders[dirRel]; ok {
		return f, nil, nil
	}
	f, err := ws.root.openBeneath(dirRel, ws.walkOnly)
	if err == nil {
		ws.folders[dirRel] = f
		return f, nil, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return nil, nil, err
	}
	parent, name := path.Split(dirRel)
	f, missing, err := ws.nearestFolder(strings.TrimSuffix(parent, "/"))
	return f, append(missing, name), err
}

// compareOld reads the file's mode, if it exists, and compares its
// content with the change's Base (a file to create is not read: it must
// not exist at all). The content is compared as it is read, a block at a
// time, so checking a large file does not copy it whole into memory: the
// old content is the Base when the change goes ahead, which is what a
// rollback writes back.
func (t *target) compareOld() error {
	f, err := t.dir.openFile(t.name, os.O_RDONLY, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		if isSymlinkRefusal(err) {
			return fmt.Errorf("%s became a symlink while it was checked: refused", t.change.Path)
		}
		return fmt.Errorf("%s: %w", t.change.Path, err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return fmt.Errorf("%s: %w", t.change.Path, err)
	}
	if !info.Mode().IsRegular() {
		return fmt.Errorf("%s is not a regular file (%v): agentls only edits regular files", t.change.Path, info.Mode().Type())
	}
	t.existed = true
	t.mode = info.Mode() & (fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky)
	if t.change.Action == Create {
		return nil
	}
	base := t.change.Base()
	if info.Size() != int64(len(base)) {
		return nil // changed: t.same stays false
	}
	if t.same, err = readsAs(f, base); err != nil {
		return fmt.Errorf("%s: %w", t.change.Path, err)
	}
	return nil
}

// readCompareBlock is the most compareOld reads at a time: a block that
// stays in the processor's cache while it is compared.
const readCompareBlock = 256 << 10

// readsAs reports whether reading r to its end gives want.
func readsAs(r io.Reader, want string) (bool, error) {
	buf := make([]byte, min(len(want)+1, readCompareBlock))
	for {
		n, err := r.Read(buf)
		if n > len(want) || string(buf[:n]) != want[:n] {
			return false, nil
		}
		want = want[n:]
		if err == io.EOF {
			return want == "", nil
		}
		if err != nil {
			return false, err
		}
	}
}

// check refuses a change computed against content the file no longer
// has, and a change to a file that says it must not change that way.
func (t *target) check() error {
	c := t.change
	switch {
	case !t.existed && c.Action != Create:
		return fmt.Errorf("%s: the file no longer exists", c.Path)
	case !t.existed:
		return nil
	case c.Action == Create:
		return fmt.Errorf("%s: the file already exists; read it and patch it instead", c.Path)
	case !t.same:
		return fmt.Errorf("%s: the file changed on disk since the edit was made; read it again and redo the edit", c.Path)
	}
	return CheckMode(c.Path, c.Action, t.mode)
}

// CheckMode refuses a change that a file's mode says must not happen
// unseen, for ApplyToDisk and the server's WorkspaceEdits alike: changing
// or deleting a read-only file (as rm asks before deleting one), and
// changing a setuid or setgid file (keeping the bit would give new code
// its privileges; dropping it silently would break the program).
func CheckMode(path string, a Action, mode fs.FileMode) error {
	switch {
	case a == Create:
		return nil
	case mode.Perm()&0o200 == 0:
		return fmt.Errorf("%s is read-only (mode %04o): agentls does not %s read-only files; make it writable (chmod u+w %s) if it should change", path, mode.Perm(), map[Action]string{Modify: "change", Delete: "delete"}[a], path)
	case a == Modify && mode&(fs.ModeSetuid|fs.ModeSetgid) != 0:
		return fmt.Errorf("%s is setuid or setgid (mode %v): agentls does not change such files, since the new content would run with the bit or lose it; change it yourself", path, mode)
	}
	return nil
}

// apply writes one change: its missing folders, then its content (or
// sets the file aside for a delete). Whatever it did is recorded in t as
// it happens, for rollback.
func (ws *workspace) apply(t *target) error {
	if t.change.Action == Delete {
		aside := tempName(t.name, "deleted")
		if err := t.dir.rename(t.name, aside); err != nil {
			return err
		}
		t.aside = aside
		return nil
	}
	for len(t.missing) > 0 {
		name := t.missing[0]
		err := t.dir.mkdir(name)
		if err == nil {
			t.made = append(t.made, madeFolder{parent: t.dir, name: name})
		} else if !errors.Is(err, fs.ErrExist) {
			return err
		}
		sub, err := t.dir.openBeneath(name, true)
		if err != nil {
			return fmt.Errorf("open the new folder %s: %w", name, err)
		}
		ws.extra = append(ws.extra, sub)
		t.dir, t.missing = sub, t.missing[1:]
	}
	text, es := t.change.resultParts()
	if t.change.Action == Create {
		if err := createFile(t.dir, t.name, text, es, 0o644, ws.sync); err != nil {
			return err
		}
	} else if err := replaceFile(t.dir, t.name, text, es, t.mode.Perm(), ws.sync); err != nil {
		return err
	}
	t.wrote = true
	return nil
}

// commit finishes a change once every change has succeeded.
func (ws *workspace) commit(t *target) {
	if t.aside != "" {
		t.dir.remove(t.aside)
	}
}

// rollback undoes what apply did to targets, newest first.
func (ws *workspace) rollback(targets []*target) error {
	var errs []error
	for i := len(targets) - 1; i >= 0; i-- {
		t := targets[i]
		switch {
		case t.aside != "":
			if err := t.dir.rename(t.aside, t.name); err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", t.change.Path, err))
			}
		case t.wrote && t.existed: // its content was the Base (compareOld)
			if err := replaceFile(t.dir, t.name, t.change.Base(), nil, t.mode.Perm(), ws.sync); err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", t.change.Path, err))
			}
		case t.wrote:
			if err := t.dir.remove(t.name); err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", t.change.Path, err))
			}
		}
		t.aside, t.wrote = "", false
		for j := len(t.made) - 1; j >= 0; j-- {
			t.made[j].parent.removeFolder(t.made[j].name) // only an empty folder goes
		}
		t.made = nil
	}
	return errors.Join(errs...)
}

// tempName is a hidden name next to name for a temporary file.
func tempName(name, what string) string {
	return fmt.Sprintf(".%s.agentls-%s-%016x", name, what, rand.Uint64())
}

// createFile creates name in dir with text changed by es (see
// writeAll), failing if it exists; a failure (or a panic) removes what it
// created.
func createFile(dir folder, name, text string, es []TextEdit, mode fs.FileMode, sync bool) (err error) {
	f, err := dir.openFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("%s appeared on disk while the edit was applied", name)
	}
	if err != nil {
		return err
	}
	done := false
	defer func() {
		if !done {
			f.Close()
			dir.remove(name)
		}
	}()
	if err := writeAll(f, text, es, mode, sync); err != nil {
		return err
	}
	done = true
	return nil
}

// replaceFile replaces name in dir with text changed by es (see
// writeAll): a temporary file in the same folder, renamed over it, so
// that name is always the whole old file or the whole new one. The
// temporary file is removed on every way out but the rename, a panic
// included.
func replaceFile(dir folder, name, text string, es []TextEdit, mode fs.FileMode, sync bool) error {
	tmp := tempName(name, "new")
	f, err := dir.openFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	renamed := false
	defer func() {
		if !renamed {
			f.Close()
			dir.remove(tmp)
		}
	}()
	if err := writeAll(f, text, es, mode, sync); err != nil {
		return err
	}
	if err := dir.rename(tmp, name); err != nil {
		return err
	}
	renamed = true
	return nil
}

// writeAll writes text changed by es (sorted, not overlapping; nil for
// text as it is) to f, sets its mode, syncs if asked and closes it. The
// new content is written from the pieces of text and the edits'
// replacements, never made whole in memory: a patch to a large file
// costs no copy of it as a string, nor as bytes.
func writeAll(f *os.File, text string, es []TextEdit, mode fs.FileMode, sync bool) error {
	err := writePieces(f, text, es)
	if err == nil {
		err = f.Chmod(mode)
	}
	if err == nil && sync {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// pieceBuffer is the most writePieces gathers small pieces into before
// a write: a small file goes out in one system call, a large one's long
// stretches between edits straight from the text.
const pieceBuffer = 32 << 10

// writePieces writes to w what es make of text, as ApplyEdits does.
func writePieces(w interface {
	io.Writer
	io.StringWriter
}, text string, es []TextEdit) error {
	if len(es) == 0 {
		_, err := w.WriteString(text)
		return err
	}
	size := len(text)
	for _, e := range es {
		size += len(e.New) - (e.End - e.Start)
	}
	var buf []byte
	put := func(s string) error {
		if len(buf)+len(s) <= cap(buf) {
			buf = append(buf, s...)
			return nil
		}
		if len(buf) > 0 {
			if _, err := w.Write(buf); err != nil {
				return err
			}
			buf = buf[:0]
		}
		if len(s) >= pieceBuffer {
			_, err := w.WriteString(s)
			return err
		}
		if buf == nil {
			buf = make([]byte, 0, min(size, pieceBuffer))
		}
		buf = append(buf, s...)
		return nil
	}
	at := 0
	for _, e := range es {
		if err := put(text[at:e.Start]); err != nil {
			return err
		}
		if err := put(e.New); err != nil {
			return err
		}
		at = e.End
	}
	if err := put(text[at:]); err != nil {
		return err
	}
	if len(buf) > 0 {
		_, err := w.Write(buf)
		return err
	}
	return nil
}
