package acp

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agentls/agentls/agent/modeltest"
)

// fakeTerminals are a client's terminals: each runs its command for
// real, in its own process group, and records what it was asked.
type fakeTerminals struct {
	mu       sync.Mutex
	next     int
	running  map[string]*fakeTerminal
	created  []sdk.CreateTerminalRequest
	killed   []string
	released []string
}

type fakeTerminal struct {
	cmd  *exec.Cmd
	out  lockedBuffer
	done chan struct{}
	code int
}

type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func (f *fakeTerminals) create(_ context.Context, p sdk.CreateTerminalRequest) (sdk.CreateTerminalResponse, error) {
	t := &fakeTerminal{done: make(chan struct{})}
	t.cmd = exec.Command(p.Command, p.Args...)
	if p.Cwd != nil {
		t.cmd.Dir = *p.Cwd
	}
	t.cmd.Env = os.Environ()
	for _, e := range p.Env {
		t.cmd.Env = append(t.cmd.Env, e.Name+"="+e.Value)
	}
	t.cmd.Stdout, t.cmd.Stderr = &t.out, &t.out
	t.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := t.cmd.Start(); err != nil {
		return sdk.CreateTerminalResponse{}, sdk.NewInternalError(map[string]any{"error": err.Error()})
	}
	go func() {
		t.cmd.Wait()
		t.code = t.cmd.ProcessState.ExitCode()
		close(t.done)
	}()
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.running == nil {
		f.running = map[string]*fakeTerminal{}
	}
	f.next++
	id := fmt.Sprintf("term-%d", f.next)
	f.running[id] = t
	f.created = append(f.created, p)
	return sdk.CreateTerminalResponse{TerminalId: id}, nil
}

func (f *fakeTerminals) get(id string) (*fakeTerminal, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	t, ok := f.running[id]
	if !ok {
		return nil, sdk.NewInvalidParams(map[string]any{"error": "no terminal " + id})
	}
	return t, nil
}

func (f *fakeTerminals) wait(ctx context.Context, p sdk.WaitForTerminalExitRequest) (sdk.WaitForTerminalExitResponse, error) {
	t, err := f.get(p.TerminalId)
	if err != nil {
		return sdk.WaitForTerminalExitResponse{}, err
	}
	select {
	case <-t.done:
		return sdk.WaitForTerminalExitResponse{ExitCode: sdk.Ptr(t.code)}, nil
	case <-ctx.Done():
		return sdk.WaitForTerminalExitResponse{}, ctx.Err()
	}
}

func (f *fakeTerminals) output(_ context.Context, p sdk.TerminalOutputRequest) (sdk.TerminalOutputResponse, error) {
	t, err := f.get(p.TerminalId)
	if err != nil {
		return sdk.TerminalOutputResponse{}, err
	}
	resp := sdk.TerminalOutputResponse{Output: t.out.String()}
	select {
	case <-t.done:
		resp.ExitStatus = &sdk.TerminalExitStatus{ExitCode: sdk.Ptr(t.code)}
	default:
	}
	return resp, nil
}

func (f *fakeTerminals) kill(_ context.Context, p sdk.KillTerminalRequest) (sdk.KillTerminalResponse, error) {
	t, err := f.get(p.TerminalId)
	if err != nil {
		return sdk.KillTerminalResponse{}, err
	}
	syscall.Kill(-t.cmd.Process.Pid, syscall.SIGKILL)
	<-t.done
	f.mu.Lock()
	f.killed = append(f.killed, p.TerminalId)
	f.mu.Unlock()
	return sdk.KillTerminalResponse{}, nil
}

func (f *fakeTerminals) release(_ context.Context, p sdk.ReleaseTerminalRequest) (sdk.ReleaseTerminalResponse, error) {
	t, err := f.get(p.TerminalId)
	if err != nil {
		return sdk.ReleaseTerminalResponse{}, err
	}
	syscall.Kill(-t.cmd.Process.Pid, syscall.SIGKILL)
	<-t.done
	f.mu.Lock()
	delete(f.running, p.TerminalId)
	f.released = append(f.released, p.TerminalId)
	f.mu.Unlock()
	return sdk.ReleaseTerminalResponse{}, nil
}

// terminalRefs are the terminals the updates embedded in tool calls.
func terminalRefs(updates []sdk.SessionUpdate) []string {
	var ids []string
	for _, u := range updates {
		if u.ToolCallUpdate != nil {
			for _, c := range u.ToolCallUpdate.Content {
				if c.Terminal != nil {
					ids = append(ids, c.Terminal.TerminalId)
				}
			}
		}
	}
	return ids
}

// TestTerminalCommand: with the client's terminal capability, an allowed
// command is asked first, then runs in a client terminal (bash -c, the
// whole block as approved, in the workspace, git's program-running
// settings pinned off), embedded in its call while it runs; its output
// reaches the model, and the terminal is released.
func TestTerminalCommand(t *testing.T) {
	script := "echo hi from the terminal && touch made"
	srv := modeltest.New(modeltest.Text("```shell\n"+script+"\n```\n", 6), modeltest.Text("Ran.", 5))
	defer srv.Close()
	client := &fakeClient{answers: []string{optAllowOnce}, term: &fakeTerminals{}}
	conn, id, root := connect(t, srv.URL, client, true)
	if stop := prompt(t, conn, id, sdk.TextBlock("make a file")); stop != sdk.StopReasonEndTurn {
		t.Errorf("stopReason %q", stop)
	}
	if len(client.asked) != 1 {
		t.Errorf("asked %d times, want once: the terminal changes where a command runs, not who allows it", len(client.asked))
	}
	if _, err := os.Stat(filepath.Join(root, "made")); err != nil {
		t.Errorf("the command did not run: %v", err)
	}
	term := client.term
	if len(term.created) != 1 {
		t.Fatalf("%d terminals created", len(term.created))
	}
	c := term.created[0]
	if c.Command != "bash" || strings.Join(c.Args, " ") != "--noprofile --norc -c "+script || c.Cwd == nil || *c.Cwd != root {
		t.Errorf("terminal/create %q %q in %v", c.Command, c.Args, c.Cwd)
	}
	var env []string
	for _, e := range c.Env {
		env = append(env, e.Name+"="+e.Value)
	}
	if !strings.Contains(strings.Join(env, " "), "core.fsmonitor") {
		t.Errorf("the terminal's environment does not pin git's fsmonitor off: %q", env)
	}
	updates := client.takeUpdates()
	refs := terminalRefs(updates)
	if len(refs) < 2 || refs[0] != "term-1" {
		t.Errorf("terminal refs in the call's updates: %q (want it embedded while it runs and when it ends)", refs)
	}
	start, end := lastCall(t, updates)
	if start.Kind != sdk.ToolKindExecute || *end.Status != sdk.ToolCallStatusCompleted {
		t.Errorf("call %+v ended %+v", start, end)
	}
	if strings.Join(term.released, ",") != "term-1" || len(term.killed) != 0 {
		t.Errorf("released %q, killed %q", term.released, term.killed)
	}
	if got := srv.Requests()[1].Body.Messages; !strings.Contains(got[len(got)-1].Content, "hi from the terminal") {
		t.Errorf("the model read %q", got[len(got)-1].Content)
	}
}

// TestAttackTerminalPolicy: the terminal is only where an allowed
// command runs. A command the user rejects, one the policy denies, and
// one under approvalPolicy "deny" never reach terminal/create.
func TestAttackTerminalPolicy(t *testing.T) {
	for _, tc := range []struct {
		name, command, settings string
		answers                 []string
		asked                   int
	}{
		{"rejected", "touch pwned", "", []string{optRejectOnce}, 1},
		{"rejected for good", "touch pwned", "", []string{optRejectAlways}, 1},
		{"denied by the policy", "echo touch pwned | sh", "", []string{optAllowOnce}, 0},
		{"approvalPolicy deny", "touch pwned", `{"approvalPolicy": "deny"}`, []string{optAllowOnce}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := modeltest.New(modeltest.Text("```shell\n"+tc.command+"\n```\n", 6), modeltest.Text("Not run.", 5))
			defer srv.Close()
			client := &fakeClient{answers: tc.answers, term: &fakeTerminals{}}
			conn, id, root := connectWith(t, srv.URL, client, true, tc.settings)
			prompt(t, conn, id, sdk.TextBlock("make a file"))
			if n := len(client.term.created); n != 0 {
				t.Errorf("%d terminals created for a command that may not run: %+v", n, client.term.created)
			}
			if _, err := os.Stat(filepath.Join(root, "pwned")); err == nil {
				t.Error("the command ran")
			}
			if len(client.asked) != tc.asked {
				t.Errorf("asked %d times, want %d", len(client.asked), tc.asked)
			}
		})
	}
}

// TestTerminalCancel: session/cancel while a command runs in a client
// terminal kills it (terminal/kill), releases it, and the prompt ends
// "cancelled" within the bound.
func TestTerminalCancel(t *testing.T) {
	srv := modeltest.New(modeltest.Text("```shell\nsleep 30\n```\n", 6), modeltest.Text("Slept.", 5))
	defer srv.Close()
	client := &fakeClient{answers: []string{optAllowOnce}, term: &fakeTerminals{}}
	conn, id, _ := connect(t, srv.URL, client, true)
	var once sync.Once
	client.onUpdate = func(u sdk.SessionUpdate) {
		if len(terminalRefs([]sdk.SessionUpdate{u})) > 0 {
			once.Do(func() { go conn.Cancel(context.Background(), sdk.CancelNotification{SessionId: id}) })
		}
	}
	start := time.Now()
	if stop := prompt(t, conn, id, sdk.TextBlock("sleep")); stop != sdk.StopReasonCancelled {
		t.Errorf("stopReason %q", stop)
	}
	if d := time.Since(start); d > cancelGrace {
		t.Errorf("cancel took %s", d)
	}
	term := client.term
	term.mu.Lock()
	defer term.mu.Unlock()
	if strings.Join(term.killed, ",") != "term-1" || strings.Join(term.released, ",") != "term-1" {
		t.Errorf("killed %q, released %q: a cancelled command's terminal is killed and released", term.killed, term.released)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("the model was asked %d times after the cancel", n)
	}
}
