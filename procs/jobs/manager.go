package jobs

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/agentls/agentls/internal/text"
	"github.com/agentls/agentls/procs/proc"
	"github.com/agentls/agentls/procs/shell"
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
	// defaultKeepFinished and defaultKeepFinishedBytes bound the finished
	// jobs kept in memory: a session that runs a job a minute all day
	// would otherwise hold every one's output (up to 2 MiB each).
	defaultKeepFinished      = 50
	defaultKeepFinishedBytes = 32 << 20
	// maxForgottenRecords bounds the records kept of forgotten jobs (their
	// command's first line, how they ended); an older forgotten job is
	// still told apart from one that never was, by its id.
	maxForgottenRecords = 1000
	// jobOverhead is what a finished job costs besides its output and
	// strings (the struct, its channels, its rings), counted against
	// KeepFinishedBytes.
	jobOverhead = 1 << 10
)

// ErrNoJob is returned for a job id the manager does not know.
var ErrNoJob = errors.New("no such job")

// ErrClosed is returned by Start after Close.
var ErrClosed = errors.New("job manager closed")

// ErrForgotten is matched (errors.Is) by the error Output returns for a
// job that ended and was forgotten to bound memory (a *ForgottenError;
// it matches ErrNoJob too).
var ErrForgotten = errors.New("job forgotten")

// A ForgottenError says that a job's output is no longer in memory: it
// ended and was forgotten, because newer finished jobs filled what the
// Manager keeps (Options.KeepFinished, Options.KeepFinishedBytes) or
// Forget was called. Its message says where the log file is, for the
// model to read.
type ForgottenError struct {
	Info Info // what is left of the job: Forgotten is set
	// keepJobs and keepBytes are the Manager's bounds, for the message.
	keepJobs  int
	keepBytes int64
}

func (e *ForgottenError) Error() string {
	i := e.Info
	var b strings.Builder
	fmt.Fprintf(&b, "job #%d", i.ID)
	if i.Command != "" {
		fmt.Fprintf(&b, " (%s)", text.InlineCode(shortCommand(i.Command)))
	}
	if i.Started.IsZero() {
		b.WriteString(" ended and was forgotten")
	} else {
		fmt.Fprintf(&b, " ended (%s) and was forgotten", i.ending())
	}
	fmt.Fprintf(&b, ": only the newest %d finished jobs, with at most %d MiB of their output, are kept in memory", e.keepJobs, e.keepBytes>>20)
	if i.LogPath != "" {
		fmt.Fprintf(&b, "; its full output is in %s", i.LogPath)
	} else {
		b.WriteString("; no log file was kept, so its output is gone (run the command again to see it)")
	}
	return b.String()
}

// Is makes a forgotten job both ErrForgotten and ErrNoJob: it has no
// output any more, as a job that never was.
func (e *ForgottenError) Is(target error) bool {
	return target == ErrForgotten || target == ErrNoJob
}

// Options configure a Manager. The zero value works.
type Options struct {
	// Dir is the working directory of jobs started with an empty dir.
	Dir string
	// Env holds KEY=VALUE pairs added on top of os.Environ() and the
	// quiet defaults (PAGER= GIT_PAGER=cat EDITOR=true PYTHONUNBUFFERED=1
	// TERM=dumb ...); later entries win. Git's pins come after them, as
	// in the shell (shell.Environ).
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
	// KeepFinished and KeepFinishedBytes bound the finished jobs kept in
	// memory: the newest are kept, up to KeepFinished jobs (0 means 50)
	// whose output and strings take up to KeepFinishedBytes (0 means
	// 32 MiB); the job that ended last is always kept. Older ones are
	// forgotten: Info, Wait and Kill still describe them (Forgotten set),
	// Output returns a *ForgottenError naming the log file. Running jobs
	// are never forgotten.
	KeepFinished      int
	KeepFinishedBytes int64
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
	// finished holds the finished jobs still in jobs, oldest first (in
	// the order they ended), and finishedBytes what they take.
	finished      []*job
	finishedBytes int64
	// forgotten describes forgotten jobs, up to maxForgottenRecords (the
	// ids in forgottenOrder, oldest first).
	forgotten      map[int]Info
	forgottenOrder []int

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
	if opts.KeepFinished <= 0 {
		opts.KeepFinished = defaultKeepFinished
	}
	if opts.KeepFinishedBytes <= 0 {
		opts.KeepFinishedBytes = defaultKeepFinishedBytes
	}
	m := &Manager{opts: opts, guard: opts.Guard, jobs: make(map[int]*job), nextID: 1, forgotten: make(map[int]Info)}
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
	Killed bool
	// Forgotten is set for a job that ended and whose output is no
	// longer in memory (Options.KeepFinished): Output fails, the log file
	// has it. Command is then its first line only, and a job forgotten
	// long ago is known by its ID and LogPath alone.
	Forgotten bool
	Started   time.Time
	Duration  time.Duration // so far, while running
	LogPath   string        // "" without Options.LogDir
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
		j.logPath = m.logPath(id)
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
	// The shell's environment: quiet defaults, then Env, then git's pins,
	// so a job's git is as safe from a rewritten .git/config as the
	// shell's.
	cmd.Env = shell.Environ(m.opts.Env)
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

	fwd := j.fwd
	j.mu.Lock()
	j.ended = time.Now()
	j.exitCode, j.signalName = exitStatus(j.cmd.ProcessState)
	j.closeLogLocked()
	j.releaseLocked()
	j.mu.Unlock()

	if fwd != nil {
		fwd.close()
	}
	if m.opts.Exited != nil {
		m.opts.Exited(j.info())
	}
	// Kept before done closes, so that Forget, which needs done closed,
	// always finds the job among the finished ones.
	m.keepFinished(j)
	close(j.done)
}

// keepFinished adds j to the finished jobs and forgets the oldest ones
// past the bounds, never j itself: its output is what the model is about
// to read.
func (m *Manager) keepFinished(j *job) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.finished = append(m.finished, j)
	m.finishedBytes += j.keptSize
	for len(m.finished) > 1 && (len(m.finished) > m.opts.KeepFinished || m.finishedBytes > m.opts.KeepFinishedBytes) {
		m.forgetLocked(0)
	}
}

// forgetLocked forgets m.finished[k]: it leaves jobs, and a short record
// of it is kept for Info and Output's error.
func (m *Manager) forgetLocked(k int) {
	j := m.finished[k]
	m.finished = slices.Delete(m.finished, k, k+1)
	m.finishedBytes -= j.keptSize
	delete(m.jobs, j.id)
	info := j.info()
	info.Command = firstLine(info.Command)
	if len(info.Command) > 200 {
		info.Command = shortCommand(info.Command)
	}
	info.Forgotten = true
	m.forgotten[j.id] = info
	m.forgottenOrder = append(m.forgottenOrder, j.id)
	if len(m.forgottenOrder) > maxForgottenRecords {
		delete(m.forgotten, m.forgottenOrder[0])
		m.forgottenOrder = slices.Delete(m.forgottenOrder, 0, 1)
	}
}

// forgottenLocked describes job id if it was forgotten.
func (m *Manager) forgottenLocked(id int) (Info, bool) {
	if info, ok := m.forgotten[id]; ok {
		return info, true
	}
	if _, ok := m.jobs[id]; ok || id <= 0 || id >= m.nextID {
		return Info{}, false
	}
	// Forgotten so long ago that its record went too: every id below
	// nextID was a job, and its log file is named after it.
	info := Info{ID: id, Forgotten: true}
	if m.opts.LogDir != "" {
		info.LogPath = m.logPath(id)
	}
	return info, true
}

func (m *Manager) logPath(id int) string {
	return filepath.Join(m.opts.LogDir, fmt.Sprintf("job-%d.log", id))
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

// job returns job id; for a forgotten one the error is a
// *ForgottenError.
func (m *Manager) job(id int) (*job, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if j, ok := m.jobs[id]; ok {
		return j, nil
	}
	if info, ok := m.forgottenLocked(id); ok {
		return nil, &ForgottenError{Info: info, keepJobs: m.opts.KeepFinished, keepBytes: m.opts.KeepFinishedBytes}
	}
	return nil, fmt.Errorf("job #%d: %w", id, ErrNoJob)
}

// forgottenInfo is what is left of a forgotten job, if err says id is one.
func forgottenInfo(err error) (Info, bool) {
	var f *ForgottenError
	if errors.As(err, &f) {
		return f.Info, true
	}
	return Info{}, false
}

// List returns every job in id order: the running ones and the finished
// ones still kept (not those forgotten).
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

// Info describes job id; for a forgotten job, what is left of it
// (Forgotten set).
func (m *Manager) Info(id int) (Info, bool) {
	j, err := m.job(id)
	if err != nil {
		return forgottenInfo(err)
	}
	return j.info(), true
}

// Output returns the last maxStdout and maxStderr bytes of job id's streams
// that are still in memory (0 means all of them). Text is cut at a
// character boundary, never inside a UTF-8 sequence. For a forgotten job
// the error is a *ForgottenError, which says where the log file is.
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
	if info, ok := forgottenInfo(err); ok {
		return info, nil // it ended long ago
	}
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
// first (the kill goes on). Killing a finished job does nothing, a
// forgotten one too.
func (m *Manager) Kill(ctx context.Context, id int) (Info, error) {
	j, err := m.job(id)
	if info, ok := forgottenInfo(err); ok {
		return info, nil
	}
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

// Forget drops finished job id's output (not its log file) now, as the
// bounds of Options.KeepFinished do for older jobs. Forgetting a
// forgotten job does nothing.
func (m *Manager) Forget(id int) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	j, ok := m.jobs[id]
	if !ok {
		if _, ok := m.forgottenLocked(id); ok {
			return nil
		}
		return fmt.Errorf("job #%d: %w", id, ErrNoJob)
	}
	select {
	case <-j.done:
	default:
		return fmt.Errorf("forget job #%d: still running (kill it first)", id)
	}
	m.forgetLocked(slices.Index(m.finished, j))
	return nil
}

// Close kills every running job and waits until all have ended: no
// process, zombie or open pipe is left. Jobs stay readable (within the
// bounds of Options.KeepFinished). Close may be
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
