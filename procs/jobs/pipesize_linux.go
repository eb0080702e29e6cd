package jobs

import (
	"os"
	"syscall"
)

// bigPipeSize is asked of the kernel for each output pipe: a job printing
// fast then blocks less often and the reader gets fuller reads. (The
// default is 64 KiB; an unprivileged process may go up to
// /proc/sys/fs/pipe-max-size, 1 MiB by default.)
const bigPipeSize = 1 << 20

// growPipe enlarges p's kernel buffer, if the kernel lets it; it is only
// an optimisation.
func growPipe(p *os.File) {
	const fSetPipeSz = 1031 // F_SETPIPE_SZ
	conn, err := p.SyscallConn()
	if err != nil {
		return
	}
	conn.Control(func(fd uintptr) {
		syscall.Syscall(syscall.SYS_FCNTL, fd, fSetPipeSz, bigPipeSize)
	})
}
