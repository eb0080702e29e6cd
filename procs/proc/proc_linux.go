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
// already, and reaping them is their parent's business. It reads
// /proc/PID/stat of every process (three syscalls each, no allocation
// per process): BenchmarkMembers.
func members(ids map[int]bool, groupOnly bool) []int {
	dir, err := os.Open("/proc")
	if err != nil {
		return nil
	}
	names, _ := dir.Readdirnames(-1)
	dir.Close()
	var pids []int
	var buf [512]byte // the fields up to the session come well before that
	path := make([]byte, 0, 32)
	for _, name := range names {
		if name[0] < '1' || name[0] > '9' {
			continue // not a process
		}
		path = append(append(append(path[:0], "/proc/"...), name...), "/stat"...)
		stat := readStat(path, buf[:])
		state, pgrp, sid, ok := parseStat(stat)
		if !ok || state == 'Z' || state == 'X' {
			continue // gone meanwhile, or dead
		}
		if ids[pgrp] || !groupOnly && ids[sid] {
			if pid, err := strconv.Atoi(name); err == nil {
				pids = append(pids, pid)
			}
		}
	}
	return pids
}

// readStat reads the start of a stat file into buf (nil if it is gone).
func readStat(path []byte, buf []byte) []byte {
	fd, err := unix.Open(unsafe.String(&path[0], len(path)), unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil
	}
	n, err := unix.Read(fd, buf)
	unix.Close(fd)
	if err != nil || n <= 0 {
		return nil
	}
	return buf[:n]
}

// parseStat reads the state, process group and session out of a stat
// line: "pid (comm) state ppid pgrp session ...", where comm may hold
// spaces and parentheses, so the fields are counted from the last ')'.
func parseStat(stat []byte) (state byte, pgrp, sid int, ok bool) {
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, 0, 0, false
	}
	var fields [4][]byte // state ppid pgrp session
	rest := stat[i+1:]
	for k := range fields {
		rest = bytes.TrimLeft(rest, " ")
		end := bytes.IndexByte(rest, ' ')
		if end < 0 {
			return 0, 0, 0, false // cut short: not a whole stat line
		}
		fields[k], rest = rest[:end], rest[end:]
	}
	if len(fields[0]) != 1 {
		return 0, 0, 0, false
	}
	pgrp, err1 := atoiBytes(fields[2])
	sid, err2 := atoiBytes(fields[3])
	return fields[0][0], pgrp, sid, err1 && err2
}

// atoiBytes parses a non-negative decimal number without allocating.
func atoiBytes(b []byte) (int, bool) {
	if len(b) == 0 {
		return 0, false
	}
	n := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}
