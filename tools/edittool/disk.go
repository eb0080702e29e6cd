package edittool

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"unsafe"

	"github.com/agentls/agentls/edits"
)

// DiskSource reads files from the disk under Root, for the CLI and for
// files no editor has open. Like writes, reads never leave the root, even
// through a symlink: the path is checked with edits.ResolveInRoot (for a
// clear refusal), then read through an os.Root, which cannot be led out
// by a symlink swapped in after the check.
type DiskSource struct {
	Root string // absolute, symlinks resolved
}

// Read implements Source.
func (d DiskSource) Read(_ context.Context, path string) (string, int32, bool, error) {
	if _, err := edits.ResolveInRoot(d.Root, path); err != nil {
		return "", edits.NotOpen, false, err
	}
	root, err := os.OpenRoot(d.Root)
	if err != nil {
		return "", edits.NotOpen, false, fmt.Errorf("workspace root: %w", err)
	}
	defer root.Close()
	// O_NONBLOCK: a FIFO in a file's place must not hang the read.
	f, err := root.OpenFile(filepath.FromSlash(path), os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return "", edits.NotOpen, false, nil
	}
	if err != nil {
		return "", edits.NotOpen, false, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return "", edits.NotOpen, false, err
	}
	if !info.Mode().IsRegular() {
		return "", edits.NotOpen, false, fmt.Errorf("%s is %s, not a regular file", path, kindOf(info.Mode()))
	}
	text, err := readAllString(f, info.Size())
	if err != nil {
		return "", edits.NotOpen, false, err
	}
	return text, edits.NotOpen, true, nil
}

// readAllString reads f to its end as a string, into one buffer of the
// size its Stat gave (and a byte more, to see the end), as os.ReadFile
// does, and makes the string of that buffer without copying it, since
// nothing else holds it: io.ReadAll grows its buffer from 512 bytes (a
// 10 MB file is copied about 15 times over 20 MB of garbage) and
// string(data) copies it once more.
func readAllString(f *os.File, size int64) (string, error) {
	if size < 0 || size > 1<<40 {
		size = 0
	}
	data := make([]byte, 0, int(size)+1)
	for {
		n, err := f.Read(data[len(data):cap(data)])
		data = data[:len(data)+n]
		if err == io.EOF {
			return unsafe.String(unsafe.SliceData(data), len(data)), nil
		}
		if err != nil {
			return "", err
		}
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)] // the file grew: let append pick the next size
		}
	}
}

// kindOf names what a non-regular file is.
func kindOf(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a folder"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return fmt.Sprintf("a special file (%v)", m.Type())
}
