package mcp

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/approval"
	"github.com/agentls/agentls/tools/parse"
)

func TestMain(m *testing.M) {
	if os.Getenv(serverEnv) == "1" {
		os.Exit(runTestServer())
	}
	os.Exit(m.Run())
}

// fixture is a Manager with one test server "t", its marker folder and
// a turn that answers every question with answer.
type fixture struct {
	m       *Manager
	cfg     Config
	markers string
	turn    *fakeTurn
}

func newFixture(t testing.TB, mutate func(*Config)) *fixture {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	markers := t.TempDir()
	cfg := Config{
		Servers:   map[string]ServerConfig{"t": {Command: exe, Env: map[string]string{serverEnv: "1", markerEnv: markers}}},
		Allowlist: []string{"t.*"},
	}
	if mutate != nil {
		mutate(&cfg)
	}
	f := &fixture{m: NewManager(Options{Dir: t.TempDir()}), cfg: cfg, markers: markers, turn: &fakeTurn{answer: approval.Run}}
	t.Cleanup(func() { f.m.Close() })
	return f
}

// registry is the turn's registry with the default tools setting.
func (f *fixture) registry(t testing.TB, ctx context.Context) *tools.Registry {
	t.Helper()
	reg, warnings, err := f.m.SelectTurn(ctx, f.cfg, empty(t), nil, false, f.turn.Turn())
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range warnings {
		t.Logf("warning: %s", w)
	}
	return reg
}

// call runs one tool of the test server with JSON arguments, as a
// markdown block would.
func (f *fixture) call(t *testing.T, ctx context.Context, tool, args string) (string, error) {
	t.Helper()
	spec, ok := f.registry(t, ctx).Get("t." + tool)
	if !ok {
		t.Fatalf("no tool t.%s", tool)
	}
	return spec.Run(ctx, tools.ToolUse{Tool: spec.Name, Content: args, Format: tools.FormatMarkdown})
}

func empty(t testing.TB) *tools.Registry {
	reg, err := tools.NewRegistry()
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

type fakeTurn struct {
	mu        sync.Mutex
	answer    approval.Answer
	err       error
	questions []approval.Question
	output    strings.Builder
	progress  []string
}

// Turn is what a call reaches of the fake turn: it asks, shows output
// and progress.
func (f *fakeTurn) Turn() Turn { return Turn{Confirm: f, Output: f.Output, Progress: f.Progress} }

func (f *fakeTurn) Progress(msg string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.progress = append(f.progress, msg)
}

func (f *fakeTurn) Confirm(_ context.Context, q approval.Question) (approval.Answer, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.questions = append(f.questions, q)
	return f.answer, f.err
}

func (f *fakeTurn) Output(stream string, p []byte) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.output.WriteString(stream + ": " + string(p))
}

func (f *fakeTurn) asked() []approval.Question {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.questions)
}

// awaitFile waits for the server to leave a mark.
func awaitFile(t *testing.T, name string) string {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if b, err := os.ReadFile(name); err == nil {
			return string(b)
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("%s never appeared", name)
	return ""
}

// TestCallResults: what the model reads of each kind of answer, and
// that a failing call leaves the server (and the turn) going.
func TestCallResults(t *testing.T) {
	f := newFixture(t, nil)
	ctx := context.Background()
	cases := []struct {
		tool, args string
		want       string // in the result
		wantErr    string // in the error
	}{
		{tool: "echo", args: `{"text": "hello", "n": 3}`, want: "hello n=3"},
		{tool: "echo", args: ``, want: "<nil>"},
		{tool: "fail", wantErr: "t.fail failed: disk on fire"},
		{tool: "echo", args: `{"text": `, wantErr: "must be one JSON object"},
		{tool: "image", want: "a chart:\n[image 2 (image/png, 8 bytes): not shown to the model: view_image image 2: not an image view_image reads (its bytes look like text/plain; charset=utf-8); it shows PNG, JPEG, GIF and WebP files]"},
		{tool: "echo", args: `{"text": "still here"}`, want: "still here"},
	}
	for _, c := range cases {
		got, err := f.call(t, ctx, c.tool, c.args)
		switch {
		case c.wantErr != "":
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Errorf("%s %s: err = %v, want %q", c.tool, c.args, err, c.wantErr)
			}
		case err != nil:
			t.Errorf("%s %s: %v", c.tool, c.args, err)
		case got != c.want:
			t.Errorf("%s %s = %q, want %q", c.tool, c.args, got, c.want)
		}
	}
}

// TestBigResultIsClipped: a server that answers 10 MB gives the model
// 100 KB and a note.
func TestBigResultIsClipped(t *testing.T) {
	f := newFixture(t, nil)
	got, err := f.call(t, context.Background(), "big", "")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) > MaxResultBytes+200 || !strings.Contains(got, "the result was 10485760 bytes; only the first 100 KB are shown") {
		t.Errorf("result of %d bytes ends %q", len(got), got[max(0, len(got)-120):])
	}
}

// TestCrashMidCall: the server exits during a call. The call is a tool
// error that says so; the next call starts the server again and works.
func TestCrashMidCall(t *testing.T) {
	f := newFixture(t, nil)
	ctx := context.Background()
	_, err := f.call(t, ctx, "crash", "")
	if err == nil || !strings.Contains(err.Error(), "ended during the call of t.crash (exit status 3; ") {
		t.Fatalf("err = %v", err)
	}
	got, err := f.call(t, ctx, "echo", `{"text": "back"}`)
	if err != nil || got != "back" {
		t.Fatalf("after the crash: %q, %v", got, err)
	}
	st := f.m.Status()
	if len(st) != 1 || st[0].State != StateRunning || st[0].Restarts != 1 {
		t.Errorf("status = %+v", st)
	}
}

// TestGarbageOnStdout: a server that writes what is not JSON-RPC is a
// clear tool error, and the next call works.
func TestGarbageOnStdout(t *testing.T) {
	f := newFixture(t, func(c *Config) { c.Timeout = 5 * time.Second })
	ctx := context.Background()
	_, err := f.call(t, ctx, "garbage", "")
	if err == nil {
		t.Fatal("garbage read as an answer")
	}
	t.Logf("garbage: %v", err)
	if got, err := f.call(t, ctx, "echo", `{"text": "ok"}`); err != nil || got != "ok" {
		t.Fatalf("after garbage: %q, %v", got, err)
	}
}

// TestHangTimesOut: a call the server never answers ends at mcpTimeout;
// the server is told to stop it (notifications/cancelled) and serves the
// next call.
func TestHangTimesOut(t *testing.T) {
	f := newFixture(t, func(c *Config) { c.Timeout = 500 * time.Millisecond })
	ctx := context.Background()
	_, err := f.call(t, ctx, "hang", "")
	if err == nil || !strings.Contains(err.Error(), "t.hang did not answer within 500ms; it was cancelled") {
		t.Fatalf("err = %v", err)
	}
	awaitFile(t, filepath.Join(f.markers, "cancelled"))
	if got, err := f.call(t, ctx, "echo", `{"text": "ok"}`); err != nil || got != "ok" {
		t.Fatalf("after the timeout: %q, %v", got, err)
	}
}

// TestTurnCancelledDuringCall: cancelling the turn cancels the call, and
// the server hears of it.
func TestTurnCancelledDuringCall(t *testing.T) {
	f := newFixture(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	reg := f.registry(t, ctx)
	spec, _ := reg.Get("t.hang")
	done := make(chan error, 1)
	go func() {
		_, err := spec.Run(ctx, tools.ToolUse{Tool: spec.Name})
		done <- err
	}()
	awaitFile(t, filepath.Join(f.markers, "hanging"))
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if got := awaitFile(t, filepath.Join(f.markers, "cancelled")); got != "context canceled" {
		t.Errorf("the server's context ended with %q", got)
	}
}

// TestApproval: an MCP call asks like a command unless the user allowed
// it: toolAllowlist, or read-only-annotated on a server in mcpReadOnly,
// or "Always" earlier. The model cannot get a call run by itself.
func TestApproval(t *testing.T) {
	cases := []struct {
		name      string
		allowlist []string
		readOnly  []string
		answer    approval.Answer
		nobody    bool
		calls     []string // tools called in order
		asked     []string // the patterns asked about
		wantErr   string   // of the last call
	}{
		{name: "not allowlisted: asked, run", answer: approval.Run, calls: []string{"echo", "echo"}, asked: []string{"t.echo", "t.echo"}},
		{name: "declined", answer: approval.Skip, calls: []string{"echo"}, asked: []string{"t.echo"}, wantErr: "the user declined to run t.echo"},
		{name: "stop turn", answer: approval.StopTurn, calls: []string{"echo"}, asked: []string{"t.echo"}, wantErr: "the user stopped the turn"},
		{name: "nobody to ask", nobody: true, calls: []string{"echo"}, asked: []string{"t.echo"}, wantErr: "nobody can be asked here"},
		{name: "always: asked once", answer: approval.Always, calls: []string{"echo", "echo"}, asked: []string{"t.echo"}},
		{name: "allowlisted by glob", allowlist: []string{"t.ec*"}, calls: []string{"echo"}},
		{name: "allowlist is per tool", allowlist: []string{"t.echo"}, answer: approval.Skip, calls: []string{"echo", "fail"}, asked: []string{"t.fail"}, wantErr: "declined"},
		{name: "read-only annotation alone is not enough", answer: approval.Run, calls: []string{"echo"}, asked: []string{"t.echo"}},
		{name: "read-only server", readOnly: []string{"t"}, answer: approval.Skip, calls: []string{"echo", "fail"}, asked: []string{"t.fail"}, wantErr: "declined"},
		{name: "another server in mcpReadOnly", readOnly: []string{"other"}, answer: approval.Skip, calls: []string{"echo"}, asked: []string{"t.echo"}, wantErr: "declined"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t, func(cfg *Config) { cfg.Allowlist, cfg.ReadOnly = c.allowlist, c.readOnly })
			f.turn.answer = c.answer
			if c.nobody {
				f.turn.err = approval.ErrNobodyToAsk
			}
			var err error
			for _, tool := range c.calls {
				_, err = f.call(t, context.Background(), tool, `{"text": "x"}`)
			}
			var asked []string
			for _, q := range f.turn.asked() {
				asked = append(asked, q.Pattern)
				if !strings.HasPrefix(q.Action, q.Pattern+" {") || q.Reason == "" {
					t.Errorf("question %+v", q)
				}
			}
			if !slices.Equal(asked, c.asked) {
				t.Errorf("asked %q, want %q", asked, c.asked)
			}
			if c.wantErr == "" && err != nil || c.wantErr != "" && (err == nil || !strings.Contains(err.Error(), c.wantErr)) {
				t.Errorf("err = %v, want %q", err, c.wantErr)
			}
		})
	}
}

// TestProgress: a server's progress notifications reach the turn's
// output and progress before the call returns, in the server's order,
// though the SDK hands them over apart from the result.
func TestProgress(t *testing.T) {
	f := newFixture(t, nil)
	for i := range 20 { // the race, when lost, was lost about once in 50 calls under load
		got, err := f.call(t, context.Background(), "progress", "")
		if err != nil || got != "done" {
			t.Fatalf("call %d: %q, %v", i, got, err)
		}
		f.turn.mu.Lock()
		out, progress := f.turn.output.String(), slices.Clone(f.turn.progress)
		f.turn.output.Reset()
		f.turn.progress = nil
		f.turn.mu.Unlock()
		if want := "mcp t: t.progress: 1/2 step 1\nmcp t: t.progress: 2/2 step 2\n"; !strings.Contains(out, want) {
			t.Errorf("call %d: output = %q, want %q in it", i, out, want)
		}
		if want := []string{"t.progress: 1/2 step 1", "t.progress: 2/2 step 2"}; !slices.Equal(progress, want) {
			t.Errorf("call %d: progress = %q, want %q", i, progress, want)
		}
	}
}

// TestMalformedProgress: progress notifications the SDK drops (a token
// under another case, a progress that is no number) show nothing and are
// not waited for; the good one after them still comes before the answer.
func TestMalformedProgress(t *testing.T) {
	f := newFixture(t, nil)
	got, err := f.call(t, context.Background(), "badprogress", "")
	if err != nil || got != "done" {
		t.Fatalf("%q, %v", got, err)
	}
	f.turn.mu.Lock()
	defer f.turn.mu.Unlock()
	if want := []string{"t.badprogress: 3 good"}; !slices.Equal(f.turn.progress, want) {
		t.Errorf("progress = %q, want %q", f.turn.progress, want)
	}
}

// TestEveryFormat: an MCP tool is called in each format as the model
// writes it, the parser resolving its dotted block type or its native
// name, and the native definition's name fits the APIs.
func TestEveryFormat(t *testing.T) {
	f := newFixture(t, nil)
	reg := f.registry(t, context.Background())
	replies := []struct {
		format tools.Format
		reply  string
	}{
		{tools.FormatMarkdown, "Let me echo.\n\n```t.echo\n{\"text\": \"md\"}\n```\n\n"},
		{tools.FormatXML, "<tool-use>\n<t.echo>{\"text\": \"md\"}</t.echo>\n</tool-use>\n"},
		{tools.FormatXML, "<function_calls>\n<invoke name=\"t.echo\">\n<parameter name=\"text\">md</parameter>\n<parameter name=\"n\">2</parameter>\n</invoke>\n</function_calls>\n"},
		{tools.FormatTool, "@t__echo(call_1): {\"text\": \"md\"}\n"},
	}
	for _, r := range replies {
		p := parse.NewParser(parse.Options{Format: r.format, Lookup: reg.Lookup})
		p.WriteString(r.reply)
		p.Finish()
		uses := p.ToolUses()
		if len(uses) != 1 {
			t.Errorf("%s: %d uses in %q (problems %v)", r.format, len(uses), r.reply, p.Problems())
			continue
		}
		spec, ok := reg.Get(uses[0].Tool)
		if !ok {
			t.Errorf("%s: %q is no tool", r.format, uses[0].Tool)
			continue
		}
		got, err := spec.Run(context.Background(), uses[0])
		if err != nil || !strings.HasPrefix(got, "md") {
			t.Errorf("%s: %q, %v", r.format, got, err)
		}
	}
	spec, _ := reg.Get("t.echo")
	fs := spec.Schema()
	if !regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`).MatchString(fs.Name) || fs.Name != "t__echo" {
		t.Errorf("native name %q", fs.Name)
	}
	if !strings.Contains(string(fs.Parameters), `"text":{"type":"string"}`) || !strings.Contains(string(fs.Parameters), `"required":["text"]`) {
		t.Errorf("parameters %s", fs.Parameters)
	}
	if spec.Description != "Echo the text back." || spec.HasHint("read-only") {
		t.Errorf("description %q, hints %q", spec.Description, spec.Hints)
	}
	if prompt := tools.RenderPrompt(reg, tools.FormatMarkdown); !strings.Contains(prompt, "## t.echo") || !strings.Contains(prompt, "```t.echo\n{...}\n```") {
		t.Errorf("prompt:\n%s", prompt)
	}
}

func TestNativeName(t *testing.T) {
	cases := []struct{ server, tool, want string }{
		{"fs", "read_file", "fs__read_file"},
		{"my-fs", "read.file", "my_fs__read_file"},
		{"s", strings.Repeat("x", 100), "s__" + strings.Repeat("x", 61)},
	}
	for _, c := range cases {
		if got := nativeName(c.server, c.tool, ""); got != c.want {
			t.Errorf("nativeName(%q, %q) = %q, want %q", c.server, c.tool, got, c.want)
		}
	}
}

// TestSelectTurn: which servers a turn offers, and what a configuration
// that cannot work looks like to the user.
func TestSelectTurn(t *testing.T) {
	f := newFixture(t, func(c *Config) {
		c.Servers["broken"] = ServerConfig{Command: "/nonexistent/mcp-server"}
	})
	ctx := context.Background()
	names := func(reg *tools.Registry) []string {
		var out []string
		for _, s := range reg.All() {
			out = append(out, s.Name)
		}
		return out
	}
	// The default tools: every server offered; one that cannot start is
	// a warning, the turn goes on with the rest.
	reg, warnings, err := f.m.SelectTurn(ctx, f.cfg, empty(t), nil, false, f.turn.Turn())
	if err != nil {
		t.Fatal(err)
	}
	if got := names(reg); !slices.Contains(got, "t.echo") || slices.ContainsFunc(got, func(n string) bool { return strings.HasPrefix(n, "broken.") }) {
		t.Errorf("tools %q", got)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "MCP server broken did not start") || !strings.Contains(warnings[0], "left out of this turn") {
		t.Errorf("warnings %q", warnings)
	}
	// An explicit tools setting: only what it names; a server it leaves
	// out is warned about once; an entry that names no tool is a warning.
	for i := range 2 {
		reg, warnings, err = f.m.SelectTurn(ctx, f.cfg, empty(t), []string{"t.echo", "t.nosuch"}, true, f.turn.Turn())
		if err != nil {
			t.Fatal(err)
		}
		if got := names(reg); !slices.Equal(got, []string{"t.echo"}) {
			t.Errorf("tools %q", got)
		}
		wantLeftOut := i == 0
		if got := slices.ContainsFunc(warnings, func(w string) bool {
			return strings.Contains(w, "MCP server broken: the tools setting leaves all its tools out")
		}); got != wantLeftOut {
			t.Errorf("turn %d: warnings %q", i, warnings)
		}
		if !slices.ContainsFunc(warnings, func(w string) bool { return strings.Contains(w, `"t.nosuch" matches no tool of MCP server t`) }) {
			t.Errorf("warnings %q", warnings)
		}
	}
	// Only MCP entries, none of which is there: no tools, not the
	// defaults.
	f.cfg.Servers = map[string]ServerConfig{"broken": {Command: "/nonexistent/mcp-server"}}
	reg, _, err = f.m.SelectTurn(ctx, f.cfg, empty(t), []string{"broken.*"}, true, f.turn.Turn())
	if err != nil || len(reg.All()) != 0 {
		t.Errorf("tools %q, %v", names(reg), err)
	}
}

// TestCloseKillsEveryProcess: closing the manager ends each server's
// process and what it started (its session), which a server exiting by
// itself would leave behind.
func TestCloseKillsEveryProcess(t *testing.T) {
	f := newFixture(t, nil)
	out, err := f.call(t, context.Background(), "spawn", "")
	if err != nil {
		t.Fatal(err)
	}
	child, err := strconv.Atoi(out)
	if err != nil {
		t.Fatal(out)
	}
	st := f.m.Status()
	if len(st) != 1 || st[0].Pid == 0 {
		t.Fatalf("status %+v", st)
	}
	server := st[0].Pid
	if !alive(server) || !alive(child) {
		t.Fatalf("server %d alive %v, child %d alive %v", server, alive(server), child, alive(child))
	}
	f.m.Close()
	for _, pid := range []int{server, child} {
		deadline := time.Now().Add(10 * time.Second)
		for alive(pid) && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		if alive(pid) {
			t.Errorf("process %d outlived the manager", pid)
		}
	}
	if st := f.m.Status(); st[0].State != StateClosed {
		t.Errorf("status after close %+v", st)
	}
}

// TestCloseLetsTheServerFinish: closing asks a stdio server to exit by
// closing its stdin and reads its stdout until it has, so a server that
// writes as it exits (Node's servers) is not killed by EPIPE, whose stack
// trace ended every `agentls ask` that used one.
func TestCloseLetsTheServerFinish(t *testing.T) {
	f := newFixture(t, func(c *Config) {
		s := c.Servers["t"]
		s.Env[goodbyeEnv] = "1"
		c.Servers["t"] = s
	})
	if _, err := f.call(t, context.Background(), "echo", `{"text":"hi"}`); err != nil {
		t.Fatal(err)
	}
	f.m.Close()
	if b, err := os.ReadFile(filepath.Join(f.markers, "epipe")); err == nil {
		t.Errorf("the server's last write failed: %s", b)
	}
	if _, err := os.Stat(filepath.Join(f.markers, "goodbye")); err != nil {
		t.Errorf("the server did not get to write as it exited: %v", err)
	}
}

// alive reports whether pid runs (a zombie, dead and waiting for a
// parent that is not us, does not count).
func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	i := strings.LastIndexByte(string(stat), ')')
	return i < 0 || i+2 >= len(stat) || stat[i+2] != 'Z'
}

// TestToolListChanged: a server that announces a new tool
// (notifications/tools/list_changed) has it offered from the next turn,
// without a restart.
func TestToolListChanged(t *testing.T) {
	f := newFixture(t, nil)
	ctx := context.Background()
	if _, ok := f.registry(t, ctx).Get("t.late"); ok {
		t.Fatal("t.late is there before the server adds it")
	}
	if got, err := f.call(t, ctx, "grow", ""); err != nil || got != "grown" {
		t.Fatalf("%q, %v", got, err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		if spec, ok := f.registry(t, ctx).Get("t.late"); ok {
			if got, err := spec.Run(ctx, tools.ToolUse{Tool: spec.Name}); err != nil || got != "late but here" {
				t.Errorf("t.late: %q, %v", got, err)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the new tool was never offered")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if st := f.m.Status(); st[0].Restarts != 0 {
		t.Errorf("restarted: %+v", st)
	}
}
