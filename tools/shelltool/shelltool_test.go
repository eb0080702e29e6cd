package shelltool

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/approval"
	"github.com/agentls/agentls/tools/toolstest"
)

// answerer is a user who answers every question the same way and
// remembers what was asked.
type answerer struct {
	mu    sync.Mutex
	ans   approval.Answer
	asked []approval.Question
}

func (a *answerer) Confirm(_ context.Context, q approval.Question) (approval.Answer, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.asked = append(a.asked, q)
	return a.ans, nil
}

func (a *answerer) questions() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.asked)
}

func newHost(t *testing.T, opts Options) *Host {
	t.Helper()
	if opts.Root == "" {
		opts.Root = t.TempDir()
	}
	h, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	return h
}

func shellUse(script string) tools.ToolUse { return tools.ToolUse{Tool: "shell", Content: script} }

// TestShellPolicy: allowlisted commands run without a question; others
// are asked about once per block and run, skipped, remembered or stop the
// turn as the user says; denied ones never run.
func TestShellPolicy(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name      string
		script    string
		ans       approval.Answer
		wantAsked int
		wantErr   string // "" for none
		wantOut   string
		created   bool // the script's touch ran
	}{
		{name: "allowlisted", script: "echo hi", wantOut: "hi"},
		{name: "run", script: "echo hi && touch made", ans: approval.Run, wantAsked: 1, wantOut: "hi", created: true},
		{name: "skip", script: "touch made", ans: approval.Skip, wantAsked: 1, wantErr: "the user declined to run `touch made`"},
		{name: "stop", script: "touch made", ans: approval.StopTurn, wantAsked: 1, wantErr: "stopped the turn"},
		{name: "denied", script: "touch made\ngit reset --hard", ans: approval.Run, wantErr: "command denied: git reset --hard"},
		{name: "denied after a quoted mention", script: `echo "git reset --hard" && git reset --hard`, ans: approval.Run, wantErr: "command denied"},
		{name: "denied job", script: "bg rm -rf /", ans: approval.Run, wantErr: "command denied"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHost(t, Options{})
			user := &answerer{ans: tt.ans}
			out, err := h.RunTool(ctx, shellUse(tt.script), user)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q (out %q)", err, tt.wantErr, out)
				}
			} else if err != nil || !strings.Contains(out, tt.wantOut) {
				t.Fatalf("out %q, err %v", out, err)
			}
			if tt.ans == approval.StopTurn && !errors.Is(err, approval.ErrStopTurn) {
				t.Errorf("stop: err %v is not ErrStopTurn", err)
			}
			if user.questions() != tt.wantAsked {
				t.Errorf("asked %d times, want %d: %+v", user.questions(), tt.wantAsked, user.asked)
			}
			if _, err := os.Stat(filepath.Join(h.opts.Root, "made")); (err == nil) != tt.created {
				t.Errorf("made exists = %v, want %v", err == nil, tt.created)
			}
		})
	}
}

// TestShellAlways: "Always" remembers the block's command patterns for
// the rest of the session; without anyone to ask, a command that needs
// approval does not run and the model is told why.
func TestShellAlways(t *testing.T) {
	ctx := context.Background()
	h := newHost(t, Options{})
	user := &answerer{ans: approval.Always}
	if _, err := h.RunTool(ctx, shellUse("touch a"), user); err != nil {
		t.Fatal(err)
	}
	if len(user.asked) != 1 || user.asked[0].Pattern != "touch a" {
		t.Fatalf("asked %+v", user.asked)
	}
	if _, err := h.RunTool(ctx, shellUse("touch a"), user); err != nil || user.questions() != 1 {
		t.Errorf("second run: err %v, asked %d", err, user.questions())
	}
	_, err := h.RunTool(ctx, shellUse("touch b"), nil)
	if err == nil || !strings.Contains(err.Error(), "allowlist") {
		t.Errorf("no confirmer: %v", err)
	}
}

// TestShellSession: the directory persists, the first failure stops the
// rest (jobs included), every command that ended is reported, and the
// note from BeforeRun leads the result.
func TestShellSession(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	os.Mkdir(filepath.Join(root, "sub"), 0o755)
	var mu sync.Mutex
	var finished []Finished
	h := newHost(t, Options{Root: root,
		Finished:  func(f Finished) { mu.Lock(); finished = append(finished, f); mu.Unlock() },
		BeforeRun: func(context.Context) string { return "Note: a.go is unsaved." },
	})
	yes := &answerer{ans: approval.Run}
	out, err := h.RunTool(ctx, shellUse("cd sub"), yes)
	if err != nil || !strings.HasPrefix(out, "Note: a.go is unsaved.") {
		t.Fatalf("out %q, err %v", out, err)
	}
	out, err = h.RunTool(ctx, shellUse("pwd"), yes)
	if err != nil || !strings.Contains(out, filepath.Join(root, "sub")) {
		t.Errorf("pwd: %q, %v", out, err)
	}
	out, err = h.RunTool(ctx, shellUse("false\necho never\nbg echo never"), yes)
	if err != nil || !strings.Contains(out, "Return code: 1") || strings.Contains(out, "Started background job") || !strings.Contains(out, "Not run") {
		t.Errorf("a failing block: %q, %v", out, err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(finished) != 3 || finished[2].Command != "false" || finished[2].ExitCode != 1 || finished[1].Dir != filepath.Join(root, "sub") {
		t.Errorf("finished = %+v", finished)
	}
}

// TestShellJobs: bg starts a job in the shell's directory; jobs, wait,
// output and kill manage it; a finished job is reported to Finished.
func TestShellJobs(t *testing.T) {
	ctx := context.Background()
	done := make(chan Finished, 4)
	h := newHost(t, Options{Finished: func(f Finished) {
		if f.Job != 0 {
			done <- f
		}
	}})
	yes := &answerer{ans: approval.Run}
	out, err := h.RunTool(ctx, shellUse("bg echo hello from a job"), yes)
	if err != nil || !strings.Contains(out, "Started background job **#1**") {
		t.Fatalf("bg: %q, %v", out, err)
	}
	out, err = h.RunTool(ctx, shellUse("wait 1 30"), yes)
	if err != nil || !strings.Contains(out, "hello from a job") {
		t.Errorf("wait: %q, %v", out, err)
	}
	select {
	case f := <-done:
		if f.ExitCode != 0 || !strings.Contains(f.Output, "hello from a job") {
			t.Errorf("finished job: %+v", f)
		}
	case <-time.After(30 * time.Second):
		t.Error("the job's end was not reported")
	}
	if out, _ := h.RunTool(ctx, shellUse("jobs"), yes); !strings.Contains(out, "#1") {
		t.Errorf("jobs: %q", out)
	}
	if out, _ := h.RunTool(ctx, shellUse("output 7"), yes); !strings.Contains(out, "7") {
		t.Errorf("output of no job: %q", out)
	}
	if _, err := h.RunTool(ctx, shellUse("bg sleep 300"), yes); err != nil {
		t.Fatal(err)
	}
	out, err = h.RunTool(ctx, shellUse("wait 2 0.2"), yes)
	if err != nil || !strings.Contains(out, "still running") {
		t.Errorf("wait with timeout: %q, %v", out, err)
	}
	out, err = h.RunTool(ctx, shellUse("kill 2"), yes)
	if err != nil || !strings.Contains(strings.ToLower(out), "terminated") && !strings.Contains(strings.ToLower(out), "killed") {
		t.Errorf("kill: %q, %v", out, err)
	}
	if info, _ := h.Jobs().Info(2); info.Running {
		t.Error("job 2 still runs after kill")
	}
}

// TestPython: the ipython tool keeps its state between calls, and asks
// once when the user says Always.
func TestPython(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed")
	}
	ctx := context.Background()
	h := newHost(t, Options{})
	user := &answerer{ans: approval.Always}
	if _, err := h.RunTool(ctx, tools.ToolUse{Tool: "ipython", Content: "x = 41"}, user); err != nil {
		t.Fatal(err)
	}
	out, err := h.RunTool(ctx, tools.ToolUse{Tool: "ipython", Content: "x + 1"}, user)
	if err != nil || !strings.Contains(out, "42") || user.questions() != 1 {
		t.Errorf("out %q, err %v, asked %d", out, err, user.questions())
	}
	if out, err := h.RunTool(ctx, tools.ToolUse{Tool: "tmux", Content: "list-sessions"}, nil); err != nil {
		t.Errorf("list-sessions needs no approval: %q, %v", out, err)
	}
}

// nobodyToAsk is where nobody can be asked (agentls ask without a
// terminal): it answers every question with approval.ErrNobodyToAsk.
type nobodyToAsk struct{}

func (nobodyToAsk) Confirm(context.Context, approval.Question) (approval.Answer, error) {
	return approval.Skip, approval.ErrNobodyToAsk
}

// runsIn returns the shell tools bound in a turn that asks c (nil:
// nobody) and whose edit tools record their files in writes (nil: none).
func runsIn(host func() (*Host, error), c approval.Confirmer, writes *tools.TurnWrites) map[string]tools.RunFunc {
	env := toolstest.Env("", c)
	env.Writes = writes
	runs := map[string]tools.RunFunc{}
	for _, t := range Tools(host) {
		runs[t.Spec.Name] = t.Bind(env)
	}
	return runs
}

// TestRuns: the bound shell tools read each call's input their own way,
// start no host until a call needs one, say so where there is none, and
// with nobody to ask refuse what needs approval — a model that sends
// `touch` through tmux rather than the shell gets no further — and tell
// the model how to do without.
func TestRuns(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	h := newHost(t, Options{Root: root})
	made := 0
	runs := runsIn(func() (*Host, error) { made++; return h, nil }, nobodyToAsk{}, nil)
	if made != 0 {
		t.Fatal("binding made the host")
	}
	for _, tc := range []struct {
		name    string
		tool    string
		use     tools.ToolUse
		wantOut string
		wantErr string
	}{
		{"allowlisted from the body", "shell", shellUse("echo hi"), "hi", ""},
		{"allowlisted from the named argument", "shell", tools.ToolUse{Tool: "shell", Kwargs: map[string]any{"command": "echo named"}}, "named", ""},
		{"needs approval, nobody to ask", "shell", shellUse("touch made"), "", "nobody can be asked here; add it to the command allowlist"},
		{"tmux that types, nobody to ask", "tmux", tools.ToolUse{Tool: "tmux", Content: "new-session 'touch made'"}, "", "nobody can be asked here"},
		{"python, nobody to ask", "ipython", tools.ToolUse{Tool: "ipython", Kwargs: map[string]any{"code": "open('made', 'w')"}}, "", "nobody can be asked here"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := runs[tc.tool](ctx, tc.use)
			switch {
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Fatalf("err %v, want %q", err, tc.wantErr)
			case tc.wantErr == "" && (err != nil || !strings.Contains(out, tc.wantOut)):
				t.Fatalf("out %q, err %v; want %q", out, err, tc.wantOut)
			}
			if _, err := os.Stat(filepath.Join(root, "made")); err == nil {
				t.Error("a refused call ran")
			}
		})
	}
	if made == 0 {
		t.Error("the calls never asked for the host")
	}

	none := runsIn(func() (*Host, error) { return nil, nil }, nobodyToAsk{}, nil)
	if _, err := none["shell"](ctx, shellUse("echo hi")); err == nil || !strings.Contains(err.Error(), "this workspace runs no commands") {
		t.Errorf("no host: %v", err)
	}
	broken := runsIn(func() (*Host, error) { return nil, errors.New("no workspace folder") }, nobodyToAsk{}, nil)
	if _, err := broken["tmux"](ctx, tools.ToolUse{Tool: "tmux", Content: "list-sessions"}); err == nil || !strings.Contains(err.Error(), "no workspace folder") {
		t.Errorf("host error: %v", err)
	}
}
