package jobs

import (
	"os"
	"os/exec"
	"sync"
	"time"

	"github.com/agentls/agentls/procs/proc"
)

// A job is one background command and everything kept about it.
type job struct {
	id       int
	command  string
	dir      string
	cmd      *exec.Cmd
	proc     *proc.Process // the main process, leader of the job's session
	pid      int           // also its process group and session id
	started  time.Time
	pipes    []*os.File // read ends of stdout and stderr
	logPath  string
	fwd      *forwarder // nil without Options.Output
	killOnce sync.Once

	exited    chan struct{} // closed when the main process has exited (maybe not reaped yet)
	readsDone chan struct{} // closed when both pipes are done
	done      chan struct{} // closed when the job has fully ended and Exited returned

	mu             sync.Mutex // guards what follows (and proc, once the job has ended)
	stdout, stderr *Ring
	log            *os.File
	logErr         error
	killed         bool
	ended          time.Time
	exitCode       int
	signalName     string
	// keptSize is what the finished job takes in memory (its rings,
	// strings and a fixed overhead), set when it ends.
	keptSize int64
}

// releaseLocked lets go of what only a running job needs, once it has
// ended and been reaped: the exec.Cmd (with its copy of the
// environment), the process, the pipes and the forwarder (closed by the
// caller); the rings give back the room they hold beyond their bytes.
// What stays is counted in keptSize.
func (j *job) releaseLocked() {
	j.cmd, j.proc, j.pipes, j.fwd = nil, nil, nil, nil
	j.stdout.compact()
	j.stderr.compact()
	j.keptSize = int64(cap(j.stdout.buf)+cap(j.stderr.buf)+len(j.command)+len(j.dir)+len(j.logPath)) + jobOverhead
}

func (j *job) info() Info {
	j.mu.Lock()
	defer j.mu.Unlock()
	info := Info{
		ID:          j.id,
		Command:     j.command,
		Dir:         j.dir,
		Pid:         j.pid,
		Running:     j.ended.IsZero(),
		ExitCode:    j.exitCode,
		Signal:      j.signalName,
		Killed:      j.killed,
		Started:     j.started,
		LogPath:     j.logPath,
		StdoutBytes: j.stdout.Written(),
		StderrBytes: j.stderr.Written(),
	}
	if info.Running {
		info.Duration = time.Since(j.started)
	} else {
		info.Duration = j.ended.Sub(j.started)
	}
	if j.logErr != nil {
		info.LogError = j.logErr.Error()
	}
	return info
}

// read copies one of the job's streams into its ring, the log and the
// live output until EOF (or until the supervisor gives up on the pipe).
func (j *job) read(wg *sync.WaitGroup, f *os.File, stream string, ring *Ring) {
	defer wg.Done()
	defer f.Close()
	buf := make([]byte, readSize)
	for {
		n, err := f.Read(buf)
		if n > 0 {
			j.record(stream, ring, buf[:n])
		}
		if err != nil {
			return
		}
	}
}

func (j *job) record(stream string, ring *Ring, p []byte) {
	j.mu.Lock()
	defer j.mu.Unlock()
	ring.Write(p)
	if j.log != nil && j.logErr == nil {
		// Unbuffered on purpose: reads already come in chunks of up to
		// 64 KiB when a job prints fast, and a slow job's log stays
		// current for `tail -f`.
		if _, err := j.log.Write(p); err != nil {
			j.logErr = err
		}
	}
	if j.fwd != nil {
		// Under j.mu, so the live output has the log's order.
		j.fwd.send(stream, p)
	}
}

func (j *job) closeLog() {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.closeLogLocked()
}

func (j *job) closeLogLocked() {
	if j.log == nil {
		return
	}
	if err := j.log.Close(); err != nil && j.logErr == nil {
		j.logErr = err
	}
	j.log = nil
}

// terminate sends SIGTERM to the job's group, and SIGKILL after grace if
// the main process is still alive then. It does not wait; once is enough.
func (j *job) terminate(grace time.Duration) {
	j.killOnce.Do(func() {
		select {
		case <-j.exited:
			return // ended on its own; the supervisor cleans up the rest
		default:
		}
		j.mu.Lock()
		j.killed = true
		j.mu.Unlock()
		j.signal(sigTerm)
		go func() {
			if !waitFor(j.exited, grace) {
				j.signal(sigKill)
			}
		}()
	})
}
