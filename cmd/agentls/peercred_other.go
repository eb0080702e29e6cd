//go:build !linux && !darwin && !freebsd

package main

import (
	"fmt"
	"runtime"
)

// peerUID cannot name a Unix socket's peer here: every peer is refused,
// rather than served unchecked.
func peerUID(int) (int, error) {
	return -1, fmt.Errorf("agentls cannot check a Unix socket's peer on %s: use TCP on 127.0.0.1, which asks for the token", runtime.GOOS)
}
