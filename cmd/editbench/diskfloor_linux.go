package main

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// workDiskFloor times the least a patch tool on disk can do here, as the
// operating system's calls alone: read the file (open, read, close), then
// write its new content (the file with one byte changed) either as
// agentls writes it, "replace" (a temporary file created beside it,
// written, closed, renamed over it), or as gptme's patch tool writes it,
// "in-place" (open truncating, write, close). No parsing, no checks, no
// mode kept. The file is put back untimed before each call, as in the
// patch-disk row. On a filesystem mounted with online discard (this
// machine's ext4 is), freeing the old content's blocks — at the rename,
// or at the truncation — waits for the disk in both.
func workDiskFloor(c peerCase, how string) (timing, string, error) {
	orig, err := os.ReadFile(c.File)
	if err != nil {
		return timing{}, "", err
	}
	changed := append([]byte(nil), orig...)
	changed[len(changed)/2] ^= 1
	dir := filepath.Join(c.Work, "floor-"+how)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return timing{}, "", err
	}
	dfd, err := syscall.Open(dir, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return timing{}, "", err
	}
	defer syscall.Close(dfd)
	name := filepath.Base(c.File)
	path := filepath.Join(dir, name)
	defer os.Remove(path)
	buf := make([]byte, len(orig)+1)
	var failed error
	call := func() {
		fd, err := syscall.Openat(dfd, name, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
		if err != nil {
			failed = err
			return
		}
		for n := 0; ; {
			m, err := syscall.Read(fd, buf[n:])
			if m <= 0 || err != nil {
				break
			}
			n += m
		}
		syscall.Close(fd)
		switch how {
		case "replace":
			const tmp = ".floor.tmp"
			fd, err = syscall.Openat(dfd, tmp, syscall.O_WRONLY|syscall.O_CREAT|syscall.O_EXCL|syscall.O_CLOEXEC, 0o644)
			if err == nil {
				_, err = syscall.Write(fd, changed)
				syscall.Close(fd)
			}
			if err == nil {
				err = syscall.Renameat(dfd, tmp, dfd, name)
			}
		default:
			fd, err = syscall.Openat(dfd, name, syscall.O_WRONLY|syscall.O_TRUNC|syscall.O_CLOEXEC, 0)
			if err == nil {
				_, err = syscall.Write(fd, changed)
				syscall.Close(fd)
			}
		}
		if err != nil {
			failed = err
		}
	}
	t := timeCallsReset(budgetOf(c), func() error { return os.WriteFile(path, orig, 0o644) }, call)
	if failed != nil {
		return timing{}, "", fmt.Errorf("disk floor %s: %w", how, failed)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		return timing{}, "", err
	}
	return t, fmt.Sprintf("wrote:%d", len(got)), nil
}
