//go:build !linux

package proc

import (
	"os"
	"syscall"
)

// Pdeathsig is Linux's; elsewhere the watchdog alone covers a crash.
func setDeathSignal(attr *syscall.SysProcAttr) {}

func selfExecutable() (string, error) { return os.Executable() }

// awaitExit reaps the leader: without waitid(WNOWAIT) there is no other
// way to learn that it exited. Its id is then free while Reap still
// signals its group; a reuse that soon is unlikely, not impossible.
func (p *Process) awaitExit() {
	p.waitErr = p.cmd.Wait()
	p.reapedEarly = true
	p.status = ExitStatus{Code: -1}
	if ws, ok := p.cmd.ProcessState.Sys().(syscall.WaitStatus); ok {
		switch {
		case ws.Exited():
			p.status = ExitStatus{Code: ws.ExitStatus()}
		case ws.Signaled():
			p.status = ExitStatus{Code: -1, Signal: ws.Signal()}
		}
	}
}

// members is Linux-only (it reads /proc); elsewhere only the process
// group is signalled.
func members(ids map[int]bool, groupOnly bool) []int { return nil }

// groupAlive: the leader was reaped on exit, so the group has no zombie
// of ours to count.
func groupAlive(pgid int) bool { return syscall.Kill(-pgid, 0) == nil }
