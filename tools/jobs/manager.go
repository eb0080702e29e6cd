package jobs

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/agentls/agentls/tools/proc"
)

// Stream names given to Options.Output.
const (
	Stdout = "stdout"
	Stderr = "stderr"
	// Note is text from the manager itself, not the job: it says how much
	// output the callback missed because it fell behind.
	Note = "note"
)

const (
	defaultKeepBytes = 1 << 20 // per stream, gptme's cap
	defaultKillGrace = 2 * time.Second
	// readSize is large so that a job printing fast costs few reads (and
	// few race-detector checks): a Linux pipe holds 64 KiB.
	readSize = 64 << 10
	// pipeGrace is how long the output of a job whose main process has
	// exited may still take to reach EOF before the job's group is killed,
	// and then again before the pipes are abandoned.
	pipeGrace = 500 * time.Millisecond
	// outputBacklog bounds the output queued for a slow Options.Output
	// callback; past it, output is counted and reported instead.
	outputBacklog = 4 << 20
)

// quietEnv keeps a job from waiting on a pager or an editor nobody can see,
// and from buffering output the user is waiting for (gptme.md §7.1).
var quietEnv = []string{
	"PAGER=", "GH_PAGER=", "GIT_PAGER=cat",
	"EDITOR=true", "GIT_EDITOR=true", "VISUAL=true",
	"PYTHONUNBUFFERED=1", "TERM=dumb",
}

// ErrNoJob is returned for a job id the manager does not know.
var ErrNoJob = errors.New("no such job")

// ErrClosed is returned by Start after Close.
var ErrClosed = errors.New("job manager closed")

// Options configure a Manager. The zero value works.
type Options struct {
	// Dir is the working directory of jobs started with an empty dir.
	Dir string
	// Env holds KEY=VALUE pairs added on top of os.Environ() and the
	// quiet defaults (PAGER= GIT_PAGER=cat EDITOR=true PYTHONUNBUFFERED=1
	// TERM=dumb ...); later entries win.
	Env []string
	// LogDir, if set, receives each job's full output, both streams
	// interleaved as they arrive, in LogDir/job-<id>.log. It is created if
	// missing; an existing file of that name is replaced, so give each
	// Manager its own directory.
	LogDir string
	// KeepBytes is how many of the last bytes of each stream stay in
	// memory; 0 means 1 MiB.
	KeepBytes int
	// KillGrace is how long Kill and Close wait after SIGTERM before
	// SIGKILL; 0 means 2 s.
	KillGrace time.Duration
	// Output, if set, gets all output live, for the editor's output
	// channel: stream is Stdout, Stderr or Note, and p is only valid
	// during the call. Calls for one job come one at a time, in order,
	// from a goroutine of their own: a slow callback never blocks the
	// job; if it falls more than 4 MiB behind, output is skipped and a
	// Note says how much (the log file has everything).
	Output func(id int, stream string, p []byte)
	// Exited, if set, is called once when a job has ended: its process
	// was reaped, its output fully read and delivered to Output. Wait,
	// Kill and Close return after Exited does, so Exited must not Wait
	// for or Kill its own job, nor Close; it may read it (Info, Output).
	Exited func(info Info)
	// Guard, if set, starts the jobs, and its watchdog kills their sessions if the
	// server dies without Close; it is the caller's to close, after this
	// Manager's Close. Nil: the Manager makes its own and closes it in Close. A host
	// running shells, jobs and terminals gives them one, so that one
	// watchdog process serves them all.
	Guard *proc.Guard
}

// A Manager runs background jobs. Its methods are safe for concurrent use.
type Manager struct {
	opts Options
	// guard starts every job, and its watchdog kills the jobs' sessions
	// if the server dies without Close.
	guard    *proc.Guard
	ownGuard bool // made by NewManager, so closed by Close

	mu     sync.Mutex
	jobs   map[int]*job
	nextID int
	closed bool

	running sync.WaitGroup // one per job, done when the job has fully ended
}

// NewManager returns a manager with no jobs.
func NewManager(opts Options) *Manager {
	if opts.KeepBytes <= 0 {
		opts.KeepBytes = defaultKeepBytes
	}
	if opts.KillGrace <= 0 {
		opts.KillGrace = defaultKillGrace
	}
	m := &Manager{opts: opts, guard: opts.Guard, jobs: make(map[int]*job), nextID: 1}
	if m.guard == nil {
		m.guard, m.ownGuard = proc.NewGuard(), true
	}
	return m
}

// Info describes a job at one moment.
type Info struct {
	ID      int
	Command string
	Dir     string
	Pid     int // also the process group id
	Running bool
	// ExitCode is the main process's exit status once the job has ended;
	// killed by a signal, it is 128+signal, as a shell reports it.
	ExitCode int
	// Signal names the signal that ended the job ("SIGTERM"), if one did.
	Signal string
	// Killed is set when Kill or Close ended the job.
	Killed   bool
	Started  time.Time
	Duration time.Duration // so far, while running
	LogPath  string        // "" without Options.LogDir
	// LogError says why the log file is incomplete, if it is.
	LogError    string
	StdoutBytes int64 // every byte the job wrote, kept or not
	StderrBytes int64
}

// Output is the tail of a job's streams.
type Output struct {
	Stdout, Stderr string
	// StdoutDropped and StderrDropped count the bytes the job wrote
	// before the returned text: dropped from memory, or left out to honour
	// the size asked for. The log file has them.
	StdoutDropped, StderrDropped int64
}

// Start starts command as `bash -c command` in dir (Options.Dir if empty)
// and returns at once. ctx bounds only the start: the job outlives it,
// until it ends or is killed.
func (m *Manager) Start(ctx context.Context, command, dir string) (Info, error) {
	if err := ctx.Err(); err != nil {
		return Info{}, fmt.Errorf("start job: %w", err)
	}
	if dir == "" {
		dir = m.opts.Dir
	}
	if dir == "" {
		dir, _ = os.Getwd() // only to show it: the job starts in our directory anyway
	}
	// Starting under the lock keeps ids in start order without gaps, and
	// keeps Close from missing a job being started.
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return Info{}, ErrClosed
	}
	id := m.nextID
	j, err := m.start(id, command, dir)
	if err != nil {
		return Info{}, err
	}
	m.nextID++
	m.jobs[id] = j
	m.running.Add(1)
	go m.supervise(j)
	return j.info(), nil
}

// start starts job id's process and its readers.
func (m *Manager) start(id int, command, dir string) (*job, error) {
	j := &job{
		id:        id,
		command:   command,
		dir:       dir,
		stdout:    NewRing(m.opts.KeepBytes),
		stderr:    NewRing(m.opts.KeepBytes),
		exited:    make(chan struct{}),
		readsDone: make(chan struct{}),
		done:      make(chan struct{}),
	}
	if m.opts.LogDir != "" {
		if err := os.MkdirAll(m.opts.LogDir, 0o755); err != nil {
			return nil, fmt.Errorf("start job #%d: log dir: %w", id, err)
		}
		j.logPath = filepath.Join(m.opts.LogDir, fmt.Sprintf("job-%d.log", id))
		f, err := os.OpenFile(j.logPath, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
		if err != nil {
			return nil, fmt.Errorf("start job #%d: %w", id, err)
		}
		j.log = f
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		j.closeLog()
		return nil, fmt.Errorf("start job #%d: stdout pipe: %w", id, err)
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		j.closeLog()
		outR.Close()
		outW.Close()
		return nil, fmt.Errorf("start job #%d: stderr pipe: %w", id, err)
	}
	growPipe(outR)
	growPipe(errR)
	cmd := exec.Command("bash", "-c", command)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), quietEnv...), m.opts.Env...)
	cmd.Stdout = outW
	cmd.Stderr = errW
	// A session of its own, so a process group of its own (pgid = pid)
	// that Kill signals as a whole; it also detaches the job from the
	// editor's terminal: a job that opens /dev/tty fails instead of
	// fighting the editor for it.
	child, err := m.guard.Start(cmd, nil)
	// The child has its own copies of the write ends; ours must go, or the
	// readers would never see EOF.
	outW.Close()
	errW.Close()
	if err != nil {
		j.closeLog()
		outR.Close()
		errR.Close()
		return nil, fmt.Errorf("start job #%d in %s: %w", id, dir, err)
	}
	j.cmd = cmd
	j.proc = child
	j.pid = child.Pid()
	j.started = time.Now()
	j.pipes = []*os.File{outR, errR}
	if m.opts.Output != nil {
		j.fwd = newForwarder(id, m.opts.Output)
	}
	var readers sync.WaitGroup
	readers.Add(2)
	go j.read(&readers, outR, Stdout, j.stdout)
	go j.read(&readers, errR, Stderr, j.stderr)
	go func() {
		readers.Wait()
		close(j.readsDone)
	}()
	return j, nil
}

// supervise waits for j to end, makes sure nothing of it is left (output
// pipes, processes in its group, the zombie), records how it ended and
// tells Options.Exited.
func (m *Manager) supervise(j *job) {
	defer m.running.Done()
	// On Linux the main process stays a zombie until Reap: its pid, which
	// is also the group id, cannot be reused, so the group may be
	// signalled safely until then.
	<-j.proc.Exited()
	close(j.exited)

	// A grandchild that inherited the pipes (`sleep 100 &`) would keep
	// them open forever: kill the group after a grace, and if something
	// outside the group (a daemon that called setsid) still holds them,
	// stop reading.
	if !waitFor(j.readsDone, pipeGrace) {
		j.proc.Kill() // the group, and what job control moved out of it
		if !waitFor(j.readsDone, pipeGrace) {
			for _, p := range j.pipes {
				p.SetReadDeadline(time.Now())
			}
			<-j.readsDone
		}
	}
	// A job is its session: whatever the main process left behind dies
	// with it (Reap kills it), or nothing could ever kill it. No signal
	// is sent after: the pid may be reused.
	j.proc.Reap() // its error is in the ProcessState, or there is none

	j.mu.Lock()
	j.ended = time.Now()
	j.exitCode, j.signalName = exitStatus(j.cmd.ProcessState)
	j.closeLogLocked()
	j.mu.Unlock()

	if j.fwd != nil {
		j.fwd.close()
	}
	if m.opts.Exited != nil {
		m.opts.Exited(j.info())
	}
	close(j.done)
}

// waitFor reports whether ch closed within d.
func waitFor(ch <-chan struct{}, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ch:
		return true
	case <-t.C:
		return false
	}
}

func (m *Manager) job(id int) (*job, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	j, ok := m.jobs[id]
	if !ok {
		return nil, fmt.Errorf("job #%d: %w", id, ErrNoJob)
	}
	return j, nil
}

// List returns every job, finished ones too, in id order.
func (m *Manager) List() []Info {
	m.mu.Lock()
	js := make([]*job, 0, len(m.jobs))
	for _, j := range m.jobs {
		js = append(js, j)
	}
	m.mu.Unlock()
	sort.Slice(js, func(a, b int) bool { return js[a].id < js[b].id })
	infos := make([]Info, len(js))
	for i, j := range js {
		infos[i] = j.info()
	}
	return infos
}

// Info describes job id.
func (m *Manager) Info(id int) (Info, bool) {
	j, err := m.job(id)
	if err != nil {
		return Info{}, false
	}
	return j.info(), true
}

// Output returns the last maxStdout and maxStderr bytes of job id's streams
// that are still in memory (0 means all of them). Text is cut at a
// character boundary, never inside a UTF-8 sequence.
func (m *Manager) Output(id int, maxStdout, maxStderr int) (Output, error) {
	j, err := m.job(id)
	if err != nil {
		return Output{}, err
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	var out Output
	out.Stdout, out.StdoutDropped = tail(j.stdout, maxStdout)
	out.Stderr, out.StderrDropped = tail(j.stderr, maxStderr)
	return out, nil
}

// tail returns the last n bytes of r (all if n <= 0) from a character
// boundary on, and how many bytes written to r come before them.
func tail(r *Ring, n int) (string, int64) {
	b := r.Last(n)
	if int64(len(b)) < r.Written() {
		// Cut mid-stream: skip the rest of a character cut in two.
		for k := 0; k < utf8.UTFMax-1 && len(b) > 0 && !utf8.RuneStart(b[0]); k++ {
			b = b[1:]
		}
	}
	return string(b), r.Written() - int64(len(b))
}

// Wait returns when job id has ended (Running is false), when timeout
// has passed (Running is true; a timeout <= 0 means no limit), or when ctx
// is done (with ctx's error).
func (m *Manager) Wait(ctx context.Context, id int, timeout time.Duration) (Info, error) {
	j, err := m.job(id)
	if err != nil {
		return Info{}, err
	}
	var expired <-chan time.Time
	if timeout > 0 {
		t := time.NewTimer(timeout)
		defer t.Stop()
		expired = t.C
	}
	select {
	case <-j.done:
	case <-expired:
	case <-ctx.Done():
		return j.info(), fmt.Errorf("wait for job #%d: %w", id, ctx.Err())
	}
	return j.info(), nil
}

// Kill ends job id: SIGTERM to its process group, SIGKILL after the grace
// period (Options.KillGrace) if the main process is still alive. It
// returns when the job has ended, or with ctx's error when ctx is done
// first (the kill goes on). Killing a finished job does nothing.
func (m *Manager) Kill(ctx context.Context, id int) (Info, error) {
	j, err := m.job(id)
	if err != nil {
		return Info{}, err
	}
	j.terminate(m.opts.KillGrace)
	select {
	case <-j.done:
		return j.info(), nil
	case <-ctx.Done():
		return j.info(), fmt.Errorf("kill job #%d: %w", id, ctx.Err())
	}
}

// Forget drops finished job id and its output (not its log file).
func (m *Manager) Forget(id int) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	j, ok := m.jobs[id]
	if !ok {
		return fmt.Errorf("job #%d: %w", id, ErrNoJob)
	}
	select {
	case <-j.done:
	default:
		return fmt.Errorf("forget job #%d: still running", id)
	}
	delete(m.jobs, id)
	return nil
}

// Close kills every running job and waits until all have ended: no
// process, zombie or open pipe is left. Jobs stay readable. Close may be
// called more than once; Start fails after it.
func (m *Manager) Close() error {
	m.mu.Lock()
	m.closed = true
	js := make([]*job, 0, len(m.jobs))
	for _, j := range m.jobs {
		js = append(js, j)
	}
	m.mu.Unlock()
	for _, j := range js {
		select {
		case <-j.done:
		default:
			j.terminate(m.opts.KillGrace)
		}
	}
	m.running.Wait()
	if m.ownGuard {
		return m.guard.Close()
	}
	return nil
}
