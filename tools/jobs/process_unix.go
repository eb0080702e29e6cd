//go:build unix

package jobs

import (
	"fmt"
	"os"
	"syscall"
)

const (
	sigTerm = syscall.SIGTERM
	sigKill = syscall.SIGKILL
)

// newGroupAttr puts a job in a session of its own, and so in a process
// group of its own (pgid = pid), which Kill signals as a whole. Unlike a
// mere Setpgid it also detaches the job from the editor's terminal: a job
// that opens /dev/tty fails instead of fighting the editor for it.
func newGroupAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setsid: true}
}

// signal sends sig to the job's process group, unless the main process
// is already being reaped (then the group id may belong to someone else).
func (j *job) signal(sig syscall.Signal) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.reaping {
		return
	}
	// ESRCH means the group is already empty.
	_ = syscall.Kill(-j.pid, sig)
}

// exitStatus is how a reaped process ended: its exit code (128+signal
// when a signal killed it, as a shell says) and the signal's name.
func exitStatus(ps *os.ProcessState) (int, string) {
	if ps == nil {
		return -1, "" // Wait failed; nothing is known
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal()), signalName(ws.Signal())
	}
	return ps.ExitCode(), ""
}

func signalName(s syscall.Signal) string {
	switch s {
	case syscall.SIGHUP:
		return "SIGHUP"
	case syscall.SIGINT:
		return "SIGINT"
	case syscall.SIGQUIT:
		return "SIGQUIT"
	case syscall.SIGABRT:
		return "SIGABRT"
	case syscall.SIGKILL:
		return "SIGKILL"
	case syscall.SIGSEGV:
		return "SIGSEGV"
	case syscall.SIGPIPE:
		return "SIGPIPE"
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGBUS:
		return "SIGBUS"
	}
	return fmt.Sprintf("signal %d", int(s))
}
