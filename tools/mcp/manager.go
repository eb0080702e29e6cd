package mcp

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentls/agentls/procs/proc"
	"github.com/agentls/agentls/tools"
)

// Options are a Manager's surroundings.
type Options struct {
	// Dir is where stdio servers run: the workspace folder.
	Dir string
	// Log receives what the user should be able to read about servers:
	// their stderr, their starts, exits and restarts, as from stream
	// ("mcp fs"). nil discards it.
	Log func(stream string, p []byte)
	// Version is agentls's, told to servers when connecting.
	Version string
}

// A Manager runs the user's MCP servers: each starts when a turn first
// offers its tools, and is restarted after a crash, after a backoff that
// grows with each failure in a row. Its methods are safe for concurrent
// use; a nil Manager has no servers.
type Manager struct {
	opts  Options
	guard *proc.Guard

	mu      sync.Mutex
	cfg     Config
	servers map[string]*server
	warned  map[string]bool // servers whose left-out tools were warned about
	always  map[string]bool // tools the user answered "Always" for
	closed  bool
	stops   sync.WaitGroup // servers being stopped

	tokens atomic.Int64 // progress tokens
}

// NewManager returns a Manager with no servers; SelectTurn configures it.
func NewManager(opts Options) *Manager {
	return &Manager{opts: opts, guard: proc.NewGuard(), servers: map[string]*server{}, warned: map[string]bool{}, always: map[string]bool{}}
}

// State is where a server is in its life.
type State string

const (
	StateIdle     State = "not started" // no turn offered its tools yet
	StateStarting State = "starting"
	StateRunning  State = "running"
	StateFailed   State = "failed" // did not start, or exited; restarted when next needed
	StateClosed   State = "closed"
)

// A Status is what the user is shown about one server.
type Status struct {
	Name  string
	State State
	// Transport is "stdio" or "http"; Target the command line or URL
	// (never Env or Headers, which may hold secrets).
	Transport, Target string
	// Err is the last failure; RetryAt when the next start may be tried.
	Err     string
	RetryAt time.Time
	// Restarts counts starts after the first.
	Restarts int
	// Pid is a running stdio server's process (its group and session).
	Pid   int
	Tools []ToolInfo
}

// A ToolInfo is one tool of a server.
type ToolInfo struct {
	Name        string // <server>.<tool>
	Description string
	ReadOnly    bool // the server annotates it read-only
}

// server is one configured server.
type server struct {
	m    *Manager
	name string
	cfg  ServerConfig

	starting sync.Mutex // held while starting: one start at a time

	mu       sync.Mutex
	state    State
	conn     *conn // nil unless running
	lastErr  error
	failures int // failed starts and exits in a row
	restarts int
	started  bool
	retryAt  time.Time
	progress map[string]*progressSink // by token, of the calls in flight
	closed   bool
}

// conn is one running session of a server.
type conn struct {
	session *sdk.ClientSession
	stdio   *stdioServer // nil for http
	// toolset is the server's tools as last listed: replaced whole when
	// the server says its list changed, so a turn reads one list.
	toolset atomic.Pointer[toolset]
	stale   atomic.Bool   // the server said its tools changed since
	done    chan struct{} // closed once the session ended and state says so
	exit    string        // how it ended, once done
}

// A toolset is a server's tools as listed once.
type toolset struct {
	tools   []*sdk.Tool
	specs   []*tools.ToolSpec // without Run
	kept    []*sdk.Tool       // the tool of each spec
	skipped []string          // tools whose names cannot be called
}

// configure makes the servers those of cfg: a server whose entry changed
// or went is stopped (its replacement starts when next offered).
func (m *Manager) configure(cfg Config) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.cfg = cfg
	if m.closed {
		return
	}
	for name, s := range m.servers {
		if c, ok := cfg.Servers[name]; !ok || !sameServer(c, s.cfg) {
			delete(m.servers, name)
			m.stopLocked(s)
		}
	}
	for name, c := range cfg.Servers {
		if _, ok := m.servers[name]; !ok {
			m.servers[name] = &server{m: m, name: name, cfg: c, state: StateIdle, progress: map[string]*progressSink{}}
		}
	}
}

// stopLocked stops s in the background; Close waits for it.
func (m *Manager) stopLocked(s *server) {
	m.stops.Add(1)
	go func() {
		defer m.stops.Done()
		s.close()
	}()
}

// Close stops every server, kills what they started and waits for it.
// It may be called more than once.
func (m *Manager) Close() error {
	if m == nil {
		return nil
	}
	m.mu.Lock()
	if !m.closed {
		m.closed = true
		for _, s := range m.servers {
			m.stopLocked(s)
		}
	}
	m.mu.Unlock()
	m.stops.Wait()
	return m.guard.Close()
}

// Configure sets the servers and settings (as SelectTurn does), without
// starting anything: for a listing.
func (m *Manager) Configure(cfg Config) {
	if m != nil {
		m.configure(cfg)
	}
}

// Start starts the named server if it is not running, and returns its
// status.
func (m *Manager) Start(ctx context.Context, name string) (Status, error) {
	s, ok := m.server(name)
	if !ok {
		return Status{}, fmt.Errorf("no MCP server is named %s", name)
	}
	_, err := s.ensure(ctx)
	return s.status(), err
}

// Status reports every configured server, by name.
func (m *Manager) Status() []Status {
	if m == nil {
		return nil
	}
	m.mu.Lock()
	servers := slices.Collect(maps.Values(m.servers))
	m.mu.Unlock()
	slices.SortFunc(servers, func(a, b *server) int { return strings.Compare(a.name, b.name) })
	out := make([]Status, 0, len(servers))
	for _, s := range servers {
		out = append(out, s.status())
	}
	return out
}

func (m *Manager) server(name string) (*server, bool) {
	if m == nil {
		return nil, false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	s, ok := m.servers[name]
	return s, ok
}

func (m *Manager) config() Config {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.cfg
}

func (m *Manager) log(stream, text string) {
	if m.opts.Log != nil {
		m.opts.Log(stream, []byte(text+"\n"))
	}
}

func (s *server) stream() string { return "mcp " + s.name }

// backoff is how long to wait before starting a server again after
// failures in a row: a first crash is restarted at once (the next call
// may well work), then 1 s, 2 s, 4 s … up to 30 s, so a server that
// cannot start is not started again at every turn.
func backoff(failures int) time.Duration {
	if failures <= 1 {
		return 0
	}
	return min(30*time.Second, time.Second<<min(failures-2, 5))
}

func (s *server) status() Status {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := Status{Name: s.name, State: s.state, Restarts: s.restarts, RetryAt: s.retryAt}
	if s.cfg.URL != "" {
		st.Transport, st.Target = "http", s.cfg.URL
	} else {
		st.Transport, st.Target = "stdio", commandLine(s.cfg)
	}
	if s.lastErr != nil {
		st.Err = s.lastErr.Error()
	}
	if s.conn != nil {
		if s.conn.stdio != nil {
			st.Pid = s.conn.stdio.proc.Pid()
		}
		for _, t := range s.conn.toolset.Load().tools {
			if !validToolName(t.Name) {
				continue
			}
			st.Tools = append(st.Tools, ToolInfo{Name: s.name + "." + t.Name, Description: firstLine(t.Description), ReadOnly: readOnly(t)})
		}
	}
	return st
}

// ensure returns the running session, starting the server if it is not
// running and its backoff has passed.
func (s *server) ensure(ctx context.Context) (*conn, error) {
	s.starting.Lock()
	defer s.starting.Unlock()
	s.mu.Lock()
	switch {
	case s.closed:
		s.mu.Unlock()
		return nil, fmt.Errorf("MCP server %s is stopped (agentls is closing, or its settings changed)", s.name)
	case s.conn != nil:
		c := s.conn
		s.mu.Unlock()
		if c.stale.CompareAndSwap(true, false) {
			listCtx, cancel := context.WithTimeout(ctx, s.m.config().timeout())
			defer cancel()
			if err := s.list(listCtx, c); err != nil {
				// The list the turn had stays; the next one tries again.
				c.stale.Store(true)
				s.m.log(s.stream(), fmt.Sprintf("agentls: MCP server %s said its tools changed, and listing them failed: %v", s.name, err))
			}
		}
		return c, nil
	case s.state == StateFailed && time.Now().Before(s.retryAt):
		err := fmt.Errorf("MCP server %s failed %d times in a row (last: %v); it is started again after %s", s.name, s.failures, s.lastErr, s.retryAt.Format(time.TimeOnly))
		s.mu.Unlock()
		return nil, err
	}
	s.state = StateStarting
	if s.started {
		s.restarts++
	}
	s.started = true
	s.mu.Unlock()

	c, err := s.connect(ctx)

	s.mu.Lock()
	if err != nil {
		s.failLocked(err)
		s.mu.Unlock()
		s.m.log(s.stream(), fmt.Sprintf("agentls: MCP server %s did not start: %v", s.name, err))
		return nil, fmt.Errorf("MCP server %s did not start: %w", s.name, err)
	}
	closed := s.closed
	if !closed {
		s.state, s.conn, s.lastErr = StateRunning, c, nil
	}
	s.mu.Unlock()
	go s.watch(c)
	if closed {
		c.close()
		return nil, fmt.Errorf("MCP server %s is stopped (agentls is closing, or its settings changed)", s.name)
	}
	s.m.log(s.stream(), fmt.Sprintf("agentls: MCP server %s started: %d tools", s.name, len(c.toolset.Load().specs)))
	return c, nil
}

func (s *server) failLocked(err error) {
	s.state, s.lastErr = StateFailed, err
	s.failures++
	s.retryAt = time.Now().Add(backoff(s.failures))
}

// succeeded is told of a call that worked: failures are counted in a
// row.
func (s *server) succeeded() {
	s.mu.Lock()
	s.failures = 0
	s.mu.Unlock()
}

// watch waits for the session to end. If it ended on its own (a crash,
// not a stop), the server is failed and restarted when next needed.
func (s *server) watch(c *conn) {
	c.session.Wait()
	exit := "the connection closed"
	if c.stdio != nil {
		exit = c.stdio.stop()
	}
	s.mu.Lock()
	c.exit = exit
	if s.conn == c {
		s.conn = nil
		s.failLocked(fmt.Errorf("it exited (%s)", exit))
		s.m.log(s.stream(), fmt.Sprintf("agentls: MCP server %s exited (%s); it is started again when a turn next needs it", s.name, exit))
	}
	s.mu.Unlock()
	close(c.done)
}

// close stops the server for good.
func (s *server) close() {
	s.starting.Lock() // a start under way finishes first
	s.mu.Lock()
	s.closed, s.state = true, StateClosed
	c := s.conn
	s.conn = nil
	s.mu.Unlock()
	s.starting.Unlock()
	if c != nil {
		c.close()
	}
}

// close ends the session (a stdio server is first asked to exit and
// given the time to) and waits until the server and what it started are
// gone.
func (c *conn) close() {
	if c.stdio != nil {
		c.stdio.finish()
	}
	c.session.Close()
	<-c.done
}

// connect starts the server and lists its tools, within the call timeout.
func (s *server) connect(ctx context.Context) (*conn, error) {
	cfg := s.m.config()
	ctx, cancel := context.WithTimeout(ctx, cfg.timeout())
	defer cancel()
	client := sdk.NewClient(&sdk.Implementation{Name: "agentls", Version: cmp.Or(s.m.opts.Version, "dev")}, &sdk.ClientOptions{
		Logger:                      slog.New(slog.NewTextHandler(io.Discard, nil)),
		ProgressNotificationHandler: s.onProgress,
		ToolListChangedHandler:      s.onToolsChanged,
	})
	var (
		transport sdk.Transport
		stdio     *stdioServer
	)
	if s.cfg.URL != "" {
		transport = &sdk.StreamableClientTransport{Endpoint: s.cfg.URL, HTTPClient: &http.Client{Transport: httpTap{headers: s.cfg.Headers, arrived: s.arrived, next: http.DefaultTransport}}}
	} else {
		var err error
		stdio, err = startStdio(s.m.guard, cmp.Or(cfg.Dir, s.m.opts.Dir), s.cfg, func(line string) { s.m.log(s.stream(), line) }, s.arrived)
		if err != nil {
			return nil, err
		}
		transport = stdio.transport
	}
	session, err := client.Connect(ctx, transport, nil)
	if err != nil {
		if stdio != nil {
			stdio.proc.Kill()
			exit := stdio.stop()
			return nil, fmt.Errorf("%w (the server: %s%s)", err, exit, stdio.lastWords())
		}
		return nil, err
	}
	c := &conn{session: session, stdio: stdio, done: make(chan struct{})}
	if err := s.list(ctx, c); err != nil {
		session.Close()
		if stdio != nil {
			stdio.stop()
		}
		return nil, err
	}
	return c, nil
}

// list lists the server's tools into c.
func (s *server) list(ctx context.Context, c *conn) error {
	ts := &toolset{}
	for t, err := range c.session.Tools(ctx, nil) {
		if err != nil {
			return fmt.Errorf("list its tools: %w", err)
		}
		ts.tools = append(ts.tools, t)
	}
	ts.specs, ts.kept, ts.skipped = specsOf(s.name, ts.tools)
	for _, name := range ts.skipped {
		s.m.log(s.stream(), fmt.Sprintf("agentls: MCP server %s: tool %q is left out: its name can hold only letters, digits, '_', '-' and '.'", s.name, name))
	}
	c.toolset.Store(ts)
	return nil
}

// onToolsChanged marks the running session's list stale: the next turn
// that offers the server lists its tools again (notifications/tools/list_changed).
func (s *server) onToolsChanged(context.Context, *sdk.ToolListChangedRequest) {
	s.mu.Lock()
	c := s.conn
	s.mu.Unlock()
	if c != nil {
		c.stale.Store(true)
	}
}

// onProgress passes a progress notification to the call that asked for
// it, and counts it shown.
func (s *server) onProgress(_ context.Context, req *sdk.ProgressNotificationClientRequest) {
	if req == nil || req.Params == nil {
		return
	}
	token := fmt.Sprint(req.Params.ProgressToken)
	s.mu.Lock()
	sink := s.progress[token]
	s.mu.Unlock()
	if sink == nil {
		return
	}
	sink.show(req.Params)
	s.mu.Lock()
	sink.shown++
	s.mu.Unlock()
	select {
	case sink.caught <- struct{}{}:
	default:
	}
}
