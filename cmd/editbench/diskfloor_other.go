//go:build !linux

package main

import "errors"

// workDiskFloor is measured on Linux only (diskfloor_linux.go).
func workDiskFloor(c peerCase, how string) (timing, string, error) {
	return timing{}, "", errors.New("the disk floor is measured on Linux only")
}
