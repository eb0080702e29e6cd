//go:build !linux

package term

import "syscall"

func sysProcAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{} }

// sessionMembers is Linux-only (it reads /proc); elsewhere Kill relies on
// the process group and on the terminal's hangup.
func sessionMembers(sid int) []int { return nil }
