package proc

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// The watchdog is the running binary again, told by this variable (set in
// its environment only, so nothing the tools run inherits it) to be one.
// The value is one nobody sets by accident.
const (
	watchdogEnv   = "AGENTLS_PROC_WATCHDOG"
	watchdogValue = "read-stdin-then-kill"
)

// writeTimeout bounds a line to the watchdog: one that stopped reading
// (SIGSTOP) is replaced rather than left to block the server.
const writeTimeout = 5 * time.Second

// init turns the process into a watchdog when a Guard started it. It is
// in init, not in a main, so that every binary that can start a Guard's
// children can be one: agentls, and the test binaries of the packages
// that use this one.
func init() {
	if os.Getenv(watchdogEnv) == watchdogValue {
		// Stray terminal signals must not end it early; it has no
		// terminal.
		signal.Ignore(syscall.SIGHUP, syscall.SIGINT, syscall.SIGQUIT)
		os.Exit(runWatchdog(os.Stdin))
	}
}

// A Guard starts children (Start) and keeps a watchdog process that kills
// their sessions if this process dies before reaping them. Its methods
// are safe for concurrent use. The zero value is not usable: NewGuard.
type Guard struct {
	mu      sync.Mutex
	watched map[int]bool // session ids the watchdog kills if we die
	dog     *watchdog    // nil until needed, or after it died
	closed  bool
}

// NewGuard returns a Guard; its watchdog starts with the first child.
func NewGuard() *Guard {
	return &Guard{watched: map[int]bool{}}
}

// Close ends the watchdog, which first kills any session still watched
// (a child the owner never reaped), and waits for it. Start fails after
// Close; Close may be called more than once.
func (g *Guard) Close() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.closed = true
	if g.dog != nil {
		g.dog.stop(false)
		g.dog = nil
	}
	return nil
}

// ready makes sure the Guard can watch a child.
func (g *Guard) ready() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return errGuardClosed
	}
	if g.dog == nil {
		return g.restart()
	}
	return nil
}

// watch adds session id to the watchdog's list.
func (g *Guard) watch(id int) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return errGuardClosed
	}
	g.watched[id] = true
	return g.tell("+" + strconv.Itoa(id) + "\n")
}

// unwatch takes session id off the watchdog's list.
func (g *Guard) unwatch(id int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.watched[id] {
		return
	}
	delete(g.watched, id)
	if g.dog == nil {
		return
	}
	// A failure here means the watchdog died; the next watch starts a new
	// one, which is told the list without id.
	_ = g.tell("-" + strconv.Itoa(id) + "\n")
}

// tell sends a line to the watchdog; if it has died or stopped reading,
// a new one is started and told the whole list instead. Under g.mu, so
// lines arrive in the order the list changed.
func (g *Guard) tell(line string) error {
	if g.dog != nil {
		if err := g.dog.send(line); err == nil {
			return nil
		}
		g.dog.stop(true)
		g.dog = nil
	}
	return g.restart()
}

// restart starts a watchdog and tells it every watched session.
func (g *Guard) restart() error {
	d, err := startWatchdog()
	if err != nil {
		return err
	}
	var list strings.Builder
	for id := range g.watched {
		fmt.Fprintf(&list, "+%d\n", id)
	}
	if list.Len() > 0 {
		if err := d.send(list.String()); err != nil {
			d.stop(true)
			return fmt.Errorf("start the watchdog that ends the tools' processes if agentls dies: %w", err)
		}
	}
	g.dog = d
	return nil
}

// watchdog is the server's side of a watchdog process.
type watchdog struct {
	cmd  *exec.Cmd
	w    *os.File      // the pipe it reads; only we hold this end
	done chan struct{} // closed when it has been reaped
}

func startWatchdog() (*watchdog, error) {
	fail := func(err error) (*watchdog, error) {
		return nil, fmt.Errorf("start the watchdog that ends the tools' processes if agentls dies: %w", err)
	}
	exe, err := selfExecutable()
	if err != nil {
		return fail(err)
	}
	r, w, err := os.Pipe() // close-on-exec: no child of ours inherits w
	if err != nil {
		return fail(err)
	}
	cmd := exec.Command(exe)
	cmd.Env = []string{watchdogEnv + "=" + watchdogValue}
	cmd.Dir = "/"
	cmd.Stdin = r
	// A session of its own: killing the server's process group, or the
	// hangup of the terminal the editor ran in, must not take it along
	// before it has done its work. No Pdeathsig: it must outlive us.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	err = cmd.Start()
	r.Close()
	if err != nil {
		w.Close()
		return fail(err)
	}
	d := &watchdog{cmd: cmd, w: w, done: make(chan struct{})}
	go func() {
		cmd.Wait()
		close(d.done)
	}()
	return d, nil
}

func (d *watchdog) send(line string) error {
	if err := d.w.SetWriteDeadline(time.Now().Add(writeTimeout)); err != nil {
		return err
	}
	_, err := io.WriteString(d.w, line)
	return err
}

// stop closes the pipe, so the watchdog kills what it still watches and
// exits, and waits for it; with kill, it is killed first (it died or
// stopped reading: what it watches is told to its successor).
func (d *watchdog) stop(kill bool) {
	if kill {
		d.cmd.Process.Kill()
	}
	d.w.Close()
	<-d.done
}

// runWatchdog is the watchdog's whole life: read "+ID" and "-ID" lines
// from the server until end of file, which comes when the server closes
// the pipe or dies, then SIGKILL every session still listed.
func runWatchdog(in io.Reader) int {
	watched := map[int]bool{}
	lines := bufio.NewScanner(in)
	for lines.Scan() {
		line := lines.Text()
		if len(line) < 2 {
			continue
		}
		id, err := strconv.Atoi(line[1:])
		if err != nil || id <= 1 {
			continue // never signal init or everything
		}
		switch line[0] {
		case '+':
			watched[id] = true
		case '-':
			delete(watched, id)
		}
	}
	if len(watched) > 0 {
		killSessions(watched)
	}
	return 0
}

// killSessions SIGKILLs the process groups with ids in ids and every
// process whose session is one of them, until a scan finds none left
// that was not signalled already (SIGKILL cannot be caught: one is
// enough; a second scan catches what forked meanwhile).
func killSessions(ids map[int]bool) {
	for id := range ids {
		syscall.Kill(-id, syscall.SIGKILL)
	}
	signalled := map[int]bool{}
	for round := 0; round < 100; round++ {
		fresh := 0
		for _, pid := range members(ids, false) {
			if !signalled[pid] {
				syscall.Kill(pid, syscall.SIGKILL)
				signalled[pid] = true
				fresh++
			}
		}
		if fresh == 0 {
			return
		}
	}
}
