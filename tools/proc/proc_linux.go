package proc

import (
	"bytes"
	"os"
	"strconv"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// si_code values of a SIGCHLD siginfo (asm-generic/siginfo.h).
const (
	cldExited = 1
	cldKilled = 2
	cldDumped = 3
)

func setDeathSignal(attr *syscall.SysProcAttr) { attr.Pdeathsig = syscall.SIGKILL }

// selfExecutable is the running binary. /proc/self/exe, not the path it
// was started from: that may have been replaced (an upgrade) or removed
// since, and exec of the link still finds the running file.
func selfExecutable() (string, error) { return "/proc/self/exe", nil }

// awaitExit blocks until the leader has exited and records how, leaving
// it a zombie (WNOWAIT) so that its id stays reserved until Reap.
func (p *Process) awaitExit() {
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PID, p.pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			// Not ours to wait for (cannot happen for a child we started):
			// cmd.Wait in Reap will say what went wrong.
			p.status = ExitStatus{Code: -1}
			return
		}
		break
	}
	p.status = sigchldStatus(&info)
}

// sigchldStatus reads the exit status out of the siginfo waitid filled:
// si_status follows si_pid and si_uid at the start of the union, which
// comes after three ints, padded to eight bytes on 64-bit systems. (x/sys
// names si_code, whose place differs on MIPS, but not si_status.)
func sigchldStatus(info *unix.Siginfo) ExitStatus {
	union := uintptr(12)
	if unsafe.Sizeof(uintptr(0)) == 8 {
		union = 16
	}
	status := *(*int32)(unsafe.Add(unsafe.Pointer(info), union+8))
	switch info.Code {
	case cldExited:
		return ExitStatus{Code: int(status)}
	case cldKilled, cldDumped:
		return ExitStatus{Code: -1, Signal: syscall.Signal(status)}
	}
	return ExitStatus{Code: -1}
}

// groupAlive reports whether group pgid has a member that is not a
// zombie (kill(-pgid, 0) counts the leader's zombie too).
func groupAlive(pgid int) bool { return len(members(map[int]bool{pgid: true}, true)) > 0 }

// members returns the live processes whose process group is in ids or,
// unless groupOnly, whose session is. Zombies are left out: they are dead
// already, and reaping them is their parent's business.
func members(ids map[int]bool, groupOnly bool) []int {
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
			continue // gone meanwhile
		}
		// pid (comm) state ppid pgrp session ...; comm may hold spaces and
		// parentheses, so read from the last ')'.
		i := bytes.LastIndexByte(stat, ')')
		if i < 0 {
			continue
		}
		f := bytes.Fields(stat[i+1:])
		if len(f) < 4 || string(f[0]) == "Z" || string(f[0]) == "X" {
			continue
		}
		pgrp, _ := strconv.Atoi(string(f[2]))
		sid, _ := strconv.Atoi(string(f[3]))
		if ids[pgrp] || !groupOnly && ids[sid] {
			pids = append(pids, pid)
		}
	}
	return pids
}
