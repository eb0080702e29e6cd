package edits

import (
	"errors"
	"io/fs"
	"os"
	"runtime"
	"strings"
	"syscall"
	"unsafe"
)

// On Linux a folder is a directory file descriptor, and every operation
// is an *at system call relative to it. (edits uses the standard library
// only, so these are syscall's, plus openat2 by its number.)

// fdFolder is an open directory.
type fdFolder struct{ fd int }

func openRootFolder(path string) (folder, error) {
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	return fdFolder{fd: fd}, nil
}

// atRemoveDir is unlinkat's AT_REMOVEDIR (linux/fcntl.h), which syscall
// does not export.
const atRemoveDir = 0x200

// openat2's resolve flags (linux/openat2.h).
const (
	resolveNoMagiclinks = 0x02
	resolveNoSymlinks   = 0x04
	resolveBeneath      = 0x08
)

// openHow is openat2's struct open_how.
type openHow struct {
	flags, mode, resolve uint64
}

// sysOpenat2 is openat2's number: 437 on every architecture Go supports
// but MIPS, whose tables are offset.
func sysOpenat2() uintptr {
	switch runtime.GOARCH {
	case "mips", "mipsle":
		return 4437
	case "mips64", "mips64le":
		return 5437
	}
	return 437
}

func openat2(dirfd int, path string, flags int, resolve uint64) (int, error) {
	p, err := syscall.BytePtrFromString(path)
	if err != nil {
		return -1, err
	}
	how := openHow{flags: uint64(flags), resolve: resolve}
	fd, _, errno := syscall.Syscall6(sysOpenat2(), uintptr(dirfd), uintptr(unsafe.Pointer(p)), uintptr(unsafe.Pointer(&how)), unsafe.Sizeof(how), 0, 0)
	runtime.KeepAlive(p)
	if errno != 0 {
		return -1, errno
	}
	return int(fd), nil
}

const dirFlags = syscall.O_RDONLY | syscall.O_DIRECTORY | syscall.O_NOFOLLOW | syscall.O_CLOEXEC

func (d fdFolder) openBeneath(rel string, walkOnly bool) (folder, error) {
	if !walkOnly {
		fd, err := openat2(d.fd, rel, dirFlags, resolveBeneath|resolveNoSymlinks|resolveNoMagiclinks)
		switch {
		case err == nil:
			return fdFolder{fd: fd}, nil
		// ENOSYS: a kernel before 5.6; EPERM: a seccomp filter that does
		// not know openat2 (older container runtimes). Either way the
		// walk below is as safe, one system call per folder.
		case !errors.Is(err, syscall.ENOSYS) && !errors.Is(err, syscall.EPERM):
			return nil, &fs.PathError{Op: "openat2", Path: rel, Err: err}
		}
	}
	return d.walk(rel)
}

// walk opens rel one folder at a time, each with O_NOFOLLOW relative to
// the one before, so no symlink is followed and ".." never appears (rel is
// clean).
func (d fdFolder) walk(rel string) (folder, error) {
	cur := d.fd
	for _, name := range strings.Split(rel, "/") {
		if name == "" || name == "." || name == ".." {
			if cur != d.fd {
				syscall.Close(cur)
			}
			return nil, &fs.PathError{Op: "openat", Path: rel, Err: syscall.EINVAL}
		}
		fd, err := syscall.Openat(cur, name, dirFlags, 0)
		if cur != d.fd {
			syscall.Close(cur)
		}
		if err != nil {
			return nil, &fs.PathError{Op: "openat", Path: rel, Err: err}
		}
		cur = fd
	}
	return fdFolder{fd: cur}, nil
}

func (d fdFolder) openFile(name string, flag int, perm fs.FileMode) (*os.File, error) {
	flag |= syscall.O_NOFOLLOW | syscall.O_CLOEXEC
	if flag&(os.O_WRONLY|os.O_RDWR) == 0 {
		flag |= syscall.O_NONBLOCK // a FIFO put in a file's place must not hang the apply
	}
	fd, err := syscall.Openat(d.fd, name, flag, uint32(perm.Perm()))
	if err != nil {
		return nil, &fs.PathError{Op: "openat", Path: name, Err: err}
	}
	return os.NewFile(uintptr(fd), name), nil
}

func (d fdFolder) mkdir(name string) error {
	if err := syscall.Mkdirat(d.fd, name, 0o755); err != nil {
		return &fs.PathError{Op: "mkdirat", Path: name, Err: err}
	}
	return nil
}

func (d fdFolder) rename(from, to string) error {
	if err := syscall.Renameat(d.fd, from, d.fd, to); err != nil {
		return &os.LinkError{Op: "renameat", Old: from, New: to, Err: err}
	}
	return nil
}

func (d fdFolder) remove(name string) error {
	if err := syscall.Unlinkat(d.fd, name); err != nil {
		return &fs.PathError{Op: "unlinkat", Path: name, Err: err}
	}
	return nil
}

func (d fdFolder) removeFolder(name string) error {
	p, err := syscall.BytePtrFromString(name)
	if err != nil {
		return err
	}
	_, _, errno := syscall.Syscall(syscall.SYS_UNLINKAT, uintptr(d.fd), uintptr(unsafe.Pointer(p)), atRemoveDir)
	runtime.KeepAlive(p)
	if errno != 0 {
		return &fs.PathError{Op: "unlinkat", Path: name, Err: errno}
	}
	return nil
}

func (d fdFolder) close() error { return syscall.Close(d.fd) }

// isSymlinkRefusal reports whether err is an O_NOFOLLOW or
// RESOLVE_NO_SYMLINKS refusal: a symlink where none may be.
func isSymlinkRefusal(err error) bool { return errors.Is(err, syscall.ELOOP) }

// Filesystem magic numbers (linux/magic.h) of the filesystems that order
// a renamed-over file's data before the rename, or keep nothing.
const (
	ext4Magic  = 0xef53 // ext2, ext3 and ext4: auto_da_alloc, the default
	btrfsMagic = 0x9123683e
	tmpfsMagic = 0x01021994
)

// syncBeforeRename reports whether a file written under dir must be
// synced before it is renamed over another so that a power loss keeps the
// old file or the new one (ApplyToDisk's doc says why): yes unless dir's
// filesystem is one that needs no sync for it, or it cannot be told.
func syncBeforeRename(dir folder) bool {
	d, ok := dir.(fdFolder)
	if !ok {
		return true
	}
	var st syscall.Statfs_t
	if err := syscall.Fstatfs(d.fd, &st); err != nil {
		return true
	}
	return syncFor(int64(st.Type))
}

// syncFor is syncBeforeRename for a filesystem's magic number.
func syncFor(magic int64) bool {
	switch uint32(magic) {
	case ext4Magic, btrfsMagic, tmpfsMagic:
		return false
	}
	return true
}
