//go:build unix

package jobs

import (
	"fmt"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
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

// signalName is a signal's name as a shell prints it ("SIGTERM").
func signalName(s syscall.Signal) string {
	if name := unix.SignalName(s); name != "" {
		return name
	}
	return fmt.Sprintf("signal %d", int(s))
}
