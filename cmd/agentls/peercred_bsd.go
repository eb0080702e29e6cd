//go:build darwin || freebsd

package main

import "golang.org/x/sys/unix"

// peerUID is the uid of the process at the other end of the Unix socket
// fd, as the kernel recorded it when it connected (LOCAL_PEERCRED).
func peerUID(fd int) (int, error) {
	cred, err := unix.GetsockoptXucred(fd, unix.SOL_LOCAL, unix.LOCAL_PEERCRED)
	if err != nil {
		return -1, err
	}
	return int(cred.Uid), nil
}
