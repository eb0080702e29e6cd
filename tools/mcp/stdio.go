package mcp

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentls/agentls/procs/proc"
)

// A stdioServer is the process of a command server and the transport
// over its stdin and stdout.
type stdioServer struct {
	proc      *proc.Process
	transport sdk.Transport
	stdin     *os.File // the transport's writer, closed first to ask the server to exit

	mu   sync.Mutex
	tail []string // the last lines of its stderr
}

// stderrLines is how many of its last stderr lines a server's failure
// shows.
const stderrLines = 5

// lastWords returns the end of the server's stderr, for a failure's
// message ("" when it wrote none).
func (s *stdioServer) lastWords() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.tail) == 0 {
		return ""
	}
	return "; its stderr ended: " + strings.Join(s.tail, " | ")
}

// startStdio starts c's command in dir under guard (a session of its own,
// killed with everything in it should agentls die), its stderr read line
// by line into logLine. The SDK's CommandTransport is not used: it waits
// for its command itself, and only kills the one process, not what the
// server started (npx's node, a shell's children). Its stdout is tapped
// for progress notifications (see progressSink), each token passed to
// arrived.
func startStdio(guard *proc.Guard, dir string, c ServerConfig, logLine, arrived func(string)) (*stdioServer, error) {
	// Found here, not by the shell that proc.Guard starts it through, so
	// that a missing program says so.
	if _, err := exec.LookPath(c.Command); err != nil {
		return nil, err
	}
	cmd := exec.Command(c.Command, c.Args...)
	cmd.Dir = dir
	cmd.Env = os.Environ()
	for k, v := range c.Env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		outR.Close()
		outW.Close()
		return nil, err
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	p, err := guard.Start(cmd, nil)
	// The child has its own copies of its ends.
	inR.Close()
	outW.Close()
	errW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		errR.Close()
		return nil, fmt.Errorf("start %s: %w", c.Command, err)
	}
	s := &stdioServer{proc: p, stdin: inW, transport: &sdk.IOTransport{Reader: tapStdio(outR, arrived), Writer: inW}}
	go func() {
		defer errR.Close()
		sc := bufio.NewScanner(errR)
		sc.Buffer(make([]byte, 0, 4096), 1<<20)
		for sc.Scan() {
			line := sc.Text()
			logLine(line)
			s.mu.Lock()
			s.tail = append(s.tail, clip(line, 200))
			if len(s.tail) > stderrLines {
				s.tail = s.tail[1:]
			}
			s.mu.Unlock()
		}
	}()
	return s, nil
}

// stopGrace is how long a stdio server has to exit once its stdin is
// closed (MCP's way to ask it to) before its session is killed.
const stopGrace = 2 * time.Second

// finish asks the server to exit the way MCP's stdio transport says, by
// closing its stdin, and waits up to stopGrace for it to go while its
// stdout is still read: a server that writes as it exits (Node's servers
// do) would otherwise die of EPIPE and print a stack trace.
func (s *stdioServer) finish() {
	s.stdin.Close()
	select {
	case <-s.proc.Exited():
	case <-time.After(stopGrace):
	}
}

// stop waits for the process to exit after its stdin was closed, up to
// stopGrace, then kills its session and reaps it: nothing it started is
// left. It returns how the process ended.
func (s *stdioServer) stop() string {
	select {
	case <-s.proc.Exited():
	case <-time.After(stopGrace):
	}
	s.proc.Kill()
	s.proc.Reap()
	return describeExit(s.proc.ExitStatus())
}

func describeExit(st proc.ExitStatus) string {
	if st.Code < 0 {
		return "killed by " + st.Signal.String()
	}
	return fmt.Sprintf("exit status %d", st.Code)
}
