//go:build !linux

package edits

import (
	"io/fs"
	"os"
)

// Elsewhere than Linux a folder is an os.Root: it never leaves its
// directory (a symlink pointing out is refused, races included), though
// unlike the Linux walk it follows a symlink that stays inside.

type rootFolder struct{ r *os.Root }

func openRootFolder(path string) (folder, error) {
	r, err := os.OpenRoot(path)
	if err != nil {
		return nil, err
	}
	return rootFolder{r: r}, nil
}

func (d rootFolder) openBeneath(rel string, _ bool) (folder, error) {
	r, err := d.r.OpenRoot(rel)
	if err != nil {
		return nil, err
	}
	return rootFolder{r: r}, nil
}

func (d rootFolder) openFile(name string, flag int, perm fs.FileMode) (*os.File, error) {
	return d.r.OpenFile(name, flag, perm)
}

func (d rootFolder) mkdir(name string) error        { return d.r.Mkdir(name, 0o755) }
func (d rootFolder) rename(from, to string) error   { return d.r.Rename(from, to) }
func (d rootFolder) remove(name string) error       { return d.r.Remove(name) }
func (d rootFolder) removeFolder(name string) error { return d.r.Remove(name) }
func (d rootFolder) close() error                   { return d.r.Close() }
func isSymlinkRefusal(error) bool                   { return false }

// syncBeforeRename: elsewhere than Linux the filesystem is not looked
// at, and every written file is synced before its rename.
func syncBeforeRename(folder) bool { return true }
