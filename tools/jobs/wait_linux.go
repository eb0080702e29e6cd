package jobs

import (
	"os/exec"
	"syscall"
	"unsafe"
)

// waitExited blocks until cmd's process has exited but leaves it a zombie
// (waitid with WNOWAIT), so its pid and process group id stay reserved
// while the supervisor kills what is left of the group; the returned
// function reaps it.
func waitExited(cmd *exec.Cmd) (reap func() error) {
	const pPID = 1 // idtype_t P_PID
	var siginfo [16]uint64
	for {
		_, _, errno := syscall.Syscall6(syscall.SYS_WAITID, pPID, uintptr(cmd.Process.Pid),
			uintptr(unsafe.Pointer(&siginfo)), syscall.WEXITED|syscall.WNOWAIT, 0, 0)
		if errno != syscall.EINTR {
			// On any other error, reaping will tell.
			break
		}
	}
	return cmd.Wait
}
