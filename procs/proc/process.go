package proc

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"sync"
	"syscall"
)

// ExitStatus is how a process ended: its exit code, or the signal that
// killed it (then Code is -1).
type ExitStatus struct {
	Code   int
	Signal syscall.Signal
}

// A Process is a child started by Guard.Start: the leader of its own
// session and process group, watched until Reap.
type Process struct {
	cmd    *exec.Cmd
	guard  *Guard
	pid    int
	exited chan struct{} // closed when the leader has exited; status is set
	status ExitStatus

	mu     sync.Mutex // held while signalling, so Reap cannot free the id meanwhile
	reaped bool

	reapOnce sync.Once
	reapErr  error
	// waitErr is set, before exited closes, where the leader had to be
	// reaped to learn that it exited (no waitid(WNOWAIT)).
	waitErr     error
	reapedEarly bool
}

// Start starts cmd as the leader of a new session, with Pdeathsig SIGKILL
// where the kernel has it, and tells the guard's watchdog to kill the
// session should this process die before Reap. start, if not nil, is
// called instead of cmd.Start (pty.Start, which adds Setctty); it must
// keep the SysProcAttr and ExtraFiles it finds. The caller must Reap the
// Process, after which the watchdog forgets it.
//
// The child runs nothing of its own until the watchdog has been told of
// its session: it starts as `sh -c` waiting on a pipe (gate), which Start
// opens only once the line is on its way, then execs cmd's program. Were
// it to run at once, what it started in the moments before (`sleep 300
// &`) would outlive a server killed then: Pdeathsig reaches the leader
// only.
func (g *Guard) Start(cmd *exec.Cmd, start func(*exec.Cmd) error) (*Process, error) {
	if start == nil {
		start = (*exec.Cmd).Start
	}
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setsid = true
	setDeathSignal(cmd.SysProcAttr)
	if err := g.ready(); err != nil {
		return nil, err
	}
	open, err := gate(cmd)
	if err != nil {
		return nil, fmt.Errorf("start %s: %w", cmd.Path, err)
	}
	p := &Process{cmd: cmd, guard: g, exited: make(chan struct{})}
	started := make(chan error, 1)
	go func() {
		// The kernel sends Pdeathsig when the thread that forked the child
		// ends, not the process: keep this thread, and this goroutine on
		// it, until the child has exited.
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		if err := start(cmd); err != nil {
			started <- err
			return
		}
		p.pid = cmd.Process.Pid
		started <- nil
		p.awaitExit()
		close(p.exited)
	}()
	if err := <-started; err != nil {
		open(false)
		return nil, err
	}
	if err := g.watch(p.pid); err != nil {
		// Unwatched, it could outlive us: better not run it at all.
		open(false)
		syscall.Kill(-p.pid, syscall.SIGKILL)
		p.Reap()
		return nil, fmt.Errorf("start %s: %w", cmd.Path, err)
	}
	open(true)
	return p, nil
}

// gate makes cmd wait, before its program runs, for open(true): it runs
// as `sh -c 'read from the gate, close it, exec the program'` with the
// read end of a pipe as an extra descriptor. open(false), or the server's
// death (the kernel closes the write end), ends it without running the
// program. The program's argv[0] becomes its path; its descriptors,
// environment, directory and session are its own as before.
func gate(cmd *exec.Cmd) (open func(ok bool), err error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	fd := 3 + len(cmd.ExtraFiles)
	cmd.ExtraFiles = append(cmd.ExtraFiles, r)
	script := fmt.Sprintf(`IFS= read -r go <&%[1]d && [ "$go" = go ] || exit 126; exec %[1]d<&-; exec "$0" "$@"`, fd)
	args := append([]string{"sh", "-c", script, cmd.Path}, cmd.Args[1:]...)
	sh, err := exec.LookPath("sh")
	if err != nil {
		r.Close()
		w.Close()
		return nil, err
	}
	cmd.Path, cmd.Args = sh, args
	var once sync.Once
	return func(ok bool) {
		once.Do(func() {
			r.Close() // the child has its own copy
			if ok {
				w.Write([]byte("go\n"))
			}
			w.Close()
		})
	}, nil
}

// Pid is the leader's process id, which is also its group and session id.
func (p *Process) Pid() int { return p.pid }

// Exited is closed when the leader has exited. Until Reap it stays a
// zombie (on Linux), so its id is not reused.
func (p *Process) Exited() <-chan struct{} { return p.exited }

// ExitStatus is how the leader ended; valid once Exited is closed.
func (p *Process) ExitStatus() ExitStatus {
	<-p.exited
	return p.status
}

// Signal sends sig to the leader's process group (0 checks that it has
// members, zombies included). After Reap it sends nothing and returns
// os.ErrProcessDone: the id may be someone else's by then.
func (p *Process) Signal(sig syscall.Signal) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.reaped {
		return os.ErrProcessDone
	}
	if err := syscall.Kill(-p.pid, sig); err != nil {
		return fmt.Errorf("signal process group %d: %w", p.pid, err)
	}
	return nil
}

// GroupAlive reports whether any process of the leader's group is still
// running: zombies, the leader's included, do not count.
func (p *Process) GroupAlive() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.reaped {
		return false
	}
	return groupAlive(p.pid)
}

// Kill sends SIGKILL to the leader's process group and to every process
// left in its session in another group (an interactive shell puts its
// jobs in groups of their own; signalling the group misses them). After
// Reap it does nothing.
func (p *Process) Kill() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.reaped {
		return
	}
	killSessions(map[int]bool{p.pid: true})
}

// Reap waits for the leader to exit, kills whatever is left of its
// session, has the watchdog forget it and reaps the leader. Only the first
// call does this; every call returns what cmd.Wait returned.
func (p *Process) Reap() error {
	p.reapOnce.Do(func() {
		<-p.exited
		p.Kill()
		p.mu.Lock()
		p.reaped = true
		p.mu.Unlock()
		// Forget before reaping: once the zombie is gone, the id is free.
		p.guard.unwatch(p.pid)
		if p.reapedEarly {
			p.reapErr = p.waitErr
		} else {
			p.reapErr = p.cmd.Wait()
		}
	})
	return p.reapErr
}

// errGuardClosed is returned by Start on a closed Guard.
var errGuardClosed = errors.New("process guard closed")
