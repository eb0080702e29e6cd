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

// signal sends sig to the job's process group, unless the main process
// has been reaped (then the group id may belong to someone else).
func (j *job) signal(sig syscall.Signal) {
	j.mu.Lock()
	p := j.proc // nil once the job has ended and was released
	j.mu.Unlock()
	if p != nil {
		// An error means the group is empty, or no longer ours.
		_ = p.Signal(sig)
	}
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
