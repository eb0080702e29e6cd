package edits

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// ApplyToDisk applies a changeset to the files under root, all or nothing.
//
// Every file is checked first: its path must resolve (symlinks followed)
// inside root, and its content must still be the change's Base (a file to
// create must not exist). Then each new content is written to a temporary
// file in the same folder and renamed over the old one, keeping its mode;
// deleted files are renamed aside. If any step fails, the files already
// replaced are put back as they were, and the error says so.
func ApplyToDisk(root string, cs *Changeset) error {
	return applyToDisk(root, cs, writeAtomic)
}

// writeFunc writes a file's new content; tests make it fail.
type writeFunc func(target string, data []byte, mode fs.FileMode) error

func applyToDisk(root string, cs *Changeset, write writeFunc) error {
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return fmt.Errorf("workspace root %s: %w", root, err)
	}
	changes := cs.Effective()
	targets := make([]string, len(changes))
	for i, c := range changes {
		t, err := resolveInRoot(realRoot, c.Path)
		if err != nil {
			return err
		}
		if err := checkBase(t, c); err != nil {
			return err
		}
		targets[i] = t
	}
	var done []undo
	for i, c := range changes {
		u, err := applyOne(targets[i], c, write)
		if err != nil {
			rerr := rollback(done)
			if rerr != nil {
				return fmt.Errorf("%s %s: %w; restoring the files already written failed too: %v", c.Action, c.Path, err, rerr)
			}
			return fmt.Errorf("%s %s: %w (the %d files already written were restored; nothing changed)", c.Action, c.Path, err, len(done))
		}
		done = append(done, u)
	}
	for _, u := range done {
		u.commit()
	}
	return nil
}

// resolveInRoot returns the real path of rel under root, refusing one that
// a symlink leads outside root.
func resolveInRoot(root, rel string) (string, error) {
	p := filepath.Join(root, filepath.FromSlash(rel))
	// Resolve the longest existing prefix: the file or a parent folder.
	existing, rest := p, ""
	for {
		if _, err := os.Lstat(existing); err == nil {
			break
		}
		parent := filepath.Dir(existing)
		if parent == existing {
			break
		}
		rest = filepath.Join(filepath.Base(existing), rest)
		existing = parent
	}
	real, err := filepath.EvalSymlinks(existing)
	if err != nil {
		return "", fmt.Errorf("%s: %w", rel, err)
	}
	real = filepath.Join(real, rest)
	if r, err := filepath.Rel(root, real); err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return "", fmt.Errorf("%s resolves to %s, outside the workspace %s: refused", rel, real, root)
	}
	return real, nil
}

// checkBase refuses a change computed against content the file no longer
// has.
func checkBase(target string, c *FileChange) error {
	data, err := os.ReadFile(target)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if c.Action != Create {
			return fmt.Errorf("%s: the file no longer exists", c.Path)
		}
		return nil
	case err != nil:
		return fmt.Errorf("%s: %w", c.Path, err)
	case c.Action == Create:
		return fmt.Errorf("%s: the file already exists; read it and patch it instead", c.Path)
	case string(data) != c.Base:
		return fmt.Errorf("%s: the file changed on disk since the edit was made; read it again and redo the edit", c.Path)
	}
	return nil
}

// An undo puts one file back as it was.
type undo struct {
	target  string
	existed bool
	old     []byte      // the previous content
	mode    fs.FileMode // its mode
	aside   string      // a deleted file renamed here
	newDirs []string    // folders created for the file, deepest first
}

func applyOne(target string, c *FileChange, write writeFunc) (undo, error) {
	u := undo{target: target}
	if info, err := os.Stat(target); err == nil {
		u.existed = true
		u.mode = info.Mode().Perm()
		if u.old, err = os.ReadFile(target); err != nil {
			return u, err
		}
	}
	if c.Action == Delete {
		aside := filepath.Join(filepath.Dir(target), fmt.Sprintf(".%s.agentls-deleted-%d", filepath.Base(target), os.Getpid()))
		if err := os.Rename(target, aside); err != nil {
			return u, err
		}
		u.aside = aside
		return u, nil
	}
	dirs, err := mkdirs(filepath.Dir(target))
	u.newDirs = dirs
	if err != nil {
		return u, err
	}
	mode := u.mode
	if !u.existed {
		mode = 0o644
	}
	return u, write(target, []byte(c.Result), mode)
}

// mkdirs creates dir and its missing parents and returns those it created,
// deepest first.
func mkdirs(dir string) ([]string, error) {
	var created []string
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(d); err == nil || filepath.Dir(d) == d {
			break
		}
		created = append(created, d)
	}
	return created, os.MkdirAll(dir, 0o755)
}

// writeAtomic replaces target with data: a temporary file in the same
// folder, synced, then renamed over it.
func writeAtomic(target string, data []byte, mode fs.FileMode) error {
	f, err := os.CreateTemp(filepath.Dir(target), "."+filepath.Base(target)+".agentls-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(mode)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, target)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}

// rollback undoes applied changes, newest first.
func rollback(done []undo) error {
	var errs []error
	for i := len(done) - 1; i >= 0; i-- {
		u := done[i]
		switch {
		case u.aside != "":
			errs = append(errs, os.Rename(u.aside, u.target))
		case u.existed:
			errs = append(errs, writeAtomic(u.target, u.old, u.mode))
		default:
			errs = append(errs, os.Remove(u.target))
			for _, d := range u.newDirs {
				os.Remove(d) // only empty folders go
			}
		}
	}
	return errors.Join(errs...)
}

// commit finishes a change once every change has succeeded.
func (u undo) commit() {
	if u.aside != "" {
		os.Remove(u.aside)
	}
}
