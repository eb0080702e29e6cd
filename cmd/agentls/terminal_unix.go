//go:build linux || darwin || freebsd

package main

import "golang.org/x/sys/unix"

// fdIsTerminal is isatty: the descriptor has terminal attributes.
func fdIsTerminal(fd uintptr) bool {
	_, err := unix.IoctlGetTermios(int(fd), ioctlReadTermios)
	return err == nil
}
