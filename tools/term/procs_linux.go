package term

import (
	"bytes"
	"os"
	"strconv"
	"syscall"
)

// sysProcAttr returns the attributes of a session's leader. pty.Start adds
// Setsid and Setctty; Pdeathsig makes the kernel kill the leader if the
// server dies without running Close (a crash, SIGKILL), and the hangup of
// the terminal then reaches the rest of the session.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}

// sessionMembers returns the live processes whose session id is sid: the
// ones a program moved into process groups of their own (an interactive
// shell's jobs, for example), which signalling the leader's group misses.
// Zombies are left out: they are dead already, and their reaping is their
// parent's business.
func sessionMembers(sid int) []int {
	dir, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var pids []int
	for _, e := range dir {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid pgrp session ...; comm may hold spaces and
		// parentheses, so read from the last ')'.
		i := bytes.LastIndexByte(stat, ')')
		if i < 0 {
			continue
		}
		f := bytes.Fields(stat[i+1:])
		if len(f) < 4 || string(f[0]) == "Z" {
			continue
		}
		if s, err := strconv.Atoi(string(f[3])); err == nil && s == sid {
			pids = append(pids, pid)
		}
	}
	return pids
}
