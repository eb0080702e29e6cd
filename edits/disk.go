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
	// noSync skips the fsync of each written file: only for
	// BenchmarkPatchToDisk, to measure what the sync costs.
	noSync bool
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
	ws := &workspace{realRoot: realRoot, root: rootDir, walkOnly: opts.walkOnly, noSync: opts.noSync, folders: map[string]folder{"": rootDir}}
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
	noSync   bool // diskOptions.noSync
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
	old     []byte      // the content before
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
		if err := t.readOld(); err != nil {
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

// readOld reads the file's current content and mode, if it exists.
func (t *target) readOld() error {
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
	if t.old, err = readAllSized(f, info.Size()); err != nil {
		return fmt.Errorf("%s: %w", t.change.Path, err)
	}
	t.existed = true
	t.mode = info.Mode() & (fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky)
	return nil
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
	case string(t.old) != c.Base():
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
	if t.change.Action == Create {
		if err := createFile(t.dir, t.name, t.change.Result(), 0o644, !ws.noSync); err != nil {
			return err
		}
	} else if err := replaceFile(t.dir, t.name, t.change.Result(), t.mode.Perm(), !ws.noSync); err != nil {
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
		case t.wrote && t.existed:
			if err := replaceFile(t.dir, t.name, string(t.old), t.mode.Perm(), true); err != nil {
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

// createFile creates name in dir with data, failing if it exists; a
// failure (or a panic) removes what it created.
func createFile(dir folder, name, data string, mode fs.FileMode, sync bool) (err error) {
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
	if err := writeAll(f, data, mode, sync); err != nil {
		return err
	}
	done = true
	return nil
}

// replaceFile replaces name in dir with data: a temporary file in the
// same folder, synced, then renamed over it. The temporary file is removed
// on every way out but the rename, a panic included.
func replaceFile(dir folder, name, data string, mode fs.FileMode, sync bool) error {
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
	if err := writeAll(f, data, mode, sync); err != nil {
		return err
	}
	if err := dir.rename(tmp, name); err != nil {
		return err
	}
	renamed = true
	return nil
}

// writeAll writes data to f, sets its mode, syncs (unless a benchmark
// said not to) and closes it. data is a string, written without a copy of
// it as bytes: a large file's new content is made once
// (FileChange.Result), not twice.
func writeAll(f *os.File, data string, mode fs.FileMode, sync bool) error {
	_, err := f.WriteString(data)
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

// readAllSized reads f to its end in one buffer of the size its Stat gave
// (and a byte more, to see the end), as os.ReadFile does: io.ReadAll
// grows its buffer from 512 bytes, copying a 10 MB file about 15 times
// over 20 MB of garbage.
func readAllSized(f *os.File, size int64) ([]byte, error) {
	if size < 0 || size > 1<<40 {
		size = 0
	}
	data := make([]byte, 0, int(size)+1)
	for {
		n, err := f.Read(data[len(data):cap(data)])
		data = data[:len(data)+n]
		if err == io.EOF {
			return data, nil
		}
		if err != nil {
			return data, err
		}
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)] // the file grew: let append pick the next size
		}
	}
}
