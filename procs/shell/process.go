package shell

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"time"

	"github.com/agentls/agentls/procs/proc"
)

// process is one bash and the two goroutines reading its output.
type process struct {
	proc    *proc.Process
	stdin   *os.File // we write scripts here
	stdout  *demux
	stderr  *demux
	pipes   [2]*os.File   // read ends of stdout and stderr, closed when both readers end
	exited  chan struct{} // closed once bash has exited (it is reaped by kill)
	readers chan struct{} // closed once both readers have ended
}

// startProcess starts `bash --noprofile --norc` in dir through guard, as
// the leader of a new session (so of a new process group, which is how
// everything it starts can be killed at once, also by guard's watchdog if
// the server dies; and without a controlling terminal, so a command that
// opens /dev/tty fails at once instead of stopping the process group).
func startProcess(guard *proc.Guard, dir string, env []string, output func(int, string, []byte)) (*process, error) {
	var files []*os.File // every end, closed on failure
	pipe := func() (r, w *os.File, err error) {
		r, w, err = os.Pipe()
		if err == nil {
			files = append(files, r, w)
		}
		return r, w, err
	}
	closeAll := func() {
		for _, f := range files {
			f.Close()
		}
	}
	inR, inW, err := pipe()
	if err != nil {
		return nil, fmt.Errorf("start shell in %s: %w", dir, err)
	}
	outR, outW, err := pipe()
	if err != nil {
		closeAll()
		return nil, fmt.Errorf("start shell in %s: %w", dir, err)
	}
	errR, errW, err := pipe()
	if err != nil {
		closeAll()
		return nil, fmt.Errorf("start shell in %s: %w", dir, err)
	}
	cmd := exec.Command("bash", "--noprofile", "--norc")
	cmd.Dir = dir
	cmd.Env = env
	// *os.File values go to the child as they are: no copying goroutines
	// inside exec, so Wait never waits for a grandchild's pipe.
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	child, err := guard.Start(cmd, nil)
	if err != nil {
		closeAll()
		return nil, fmt.Errorf("start shell in %s: %w", dir, err)
	}
	// The child has its copies; ours would keep the pipes open forever.
	inR.Close()
	outW.Close()
	errW.Close()

	p := &process{
		proc:    child,
		stdin:   inW,
		stdout:  newDemux("stdout", output),
		stderr:  newDemux("stderr", output),
		pipes:   [2]*os.File{outR, errR},
		exited:  make(chan struct{}),
		readers: make(chan struct{}),
	}
	go func() {
		<-child.Exited()
		close(p.exited)
	}()
	go p.stdout.run(outR)
	go p.stderr.run(errR)
	go func() {
		<-p.stdout.eof
		<-p.stderr.eof
		outR.Close()
		errR.Close()
		close(p.readers)
	}()
	// Never blocks: the pipe is empty and far larger than the framing.
	if _, err := inW.Write([]byte(framing)); err != nil {
		p.kill(0)
		return nil, fmt.Errorf("start shell in %s: %w", dir, err)
	}
	return p, nil
}

// alive reports whether bash is still running.
func (p *process) alive() bool {
	select {
	case <-p.exited:
		return false
	default:
		return true
	}
}

// exitCode is how bash ended, once it has: its exit status, or 128 plus
// the signal that killed it, as shells report it.
func (p *process) exitCode() int {
	status := p.proc.ExitStatus()
	if status.Signal != 0 {
		return 128 + int(status.Signal)
	}
	return status.Code
}

// kill ends bash and every process in its session: SIGTERM to the group
// first, so programs can clean up, and SIGKILL to the group and the rest
// of the session once the group has gone quiet or the grace period is
// over. It returns when bash has been reaped and both pipes are closed,
// so no goroutine, file or zombie of ours is left. A process that left
// the session (setsid) and still holds a pipe cannot make it hang: the
// pipe is closed under it after a while. Calling it again does nothing.
func (p *process) kill(grace time.Duration) {
	// An error means bash has been reaped by an earlier kill.
	if err := p.proc.Signal(syscall.SIGTERM); err == nil {
		// The group is gone when bash is waited for and nobody holds its
		// pipes any more (polling the group would count zombies that our
		// parent may never reap).
		timer := time.NewTimer(grace)
		select {
		case <-p.exitedAndDrained():
		case <-timer.C:
		}
		timer.Stop()
		p.proc.Kill()
	}
	p.stdin.Close()
	<-p.exited
	select {
	case <-p.readers:
	case <-time.After(grace):
		p.pipes[0].Close()
		p.pipes[1].Close()
		<-p.readers
	}
	p.proc.Reap() // the exit status is kept by exitCode's ExitStatus
}

// exitedAndDrained is closed when bash has exited and both pipes have
// reached end of file.
func (p *process) exitedAndDrained() <-chan struct{} {
	ch := make(chan struct{})
	go func() {
		<-p.exited
		<-p.readers
		close(ch)
	}()
	return ch
}
