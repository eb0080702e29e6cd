package acp

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agentls/agentls/agent/modeltest"
)

// fakeClient is an ACP client with buffers of its own: it reads and
// writes them for fs/*, answers each permission request with the next
// of answers, and records what the agent sent.
type fakeClient struct {
	mu       sync.Mutex
	buffers  map[string]string // absolute path → unsaved text
	writes   []string          // paths written, in order
	failOn   string            // a path whose write fails
	answers  []string          // option ids, in order ("" cancels)
	asked    []sdk.RequestPermissionRequest
	updates  []sdk.SessionUpdate
	onUpdate func(sdk.SessionUpdate)
	term     *fakeTerminals // the client's terminals (nil: it offers none)
}

func (c *fakeClient) ReadTextFile(_ context.Context, p sdk.ReadTextFileRequest) (sdk.ReadTextFileResponse, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if text, ok := c.buffers[p.Path]; ok {
		return sdk.ReadTextFileResponse{Content: text}, nil
	}
	data, err := os.ReadFile(p.Path)
	return sdk.ReadTextFileResponse{Content: string(data)}, err
}

func (c *fakeClient) WriteTextFile(_ context.Context, p sdk.WriteTextFileRequest) (sdk.WriteTextFileResponse, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if p.Path == c.failOn {
		return sdk.WriteTextFileResponse{}, sdk.NewInternalError(map[string]any{"error": "disk full"})
	}
	c.buffers[p.Path] = p.Content
	c.writes = append(c.writes, p.Path)
	return sdk.WriteTextFileResponse{}, nil
}

func (c *fakeClient) RequestPermission(_ context.Context, p sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.asked = append(c.asked, p)
	answer := ""
	if len(c.answers) > 0 {
		answer, c.answers = c.answers[0], c.answers[1:]
	}
	if answer == "" {
		return sdk.RequestPermissionResponse{Outcome: sdk.NewRequestPermissionOutcomeCancelled()}, nil
	}
	return sdk.RequestPermissionResponse{Outcome: sdk.NewRequestPermissionOutcomeSelected(sdk.PermissionOptionId(answer))}, nil
}

func (c *fakeClient) SessionUpdate(_ context.Context, n sdk.SessionNotification) error {
	c.mu.Lock()
	c.updates = append(c.updates, n.Update)
	on := c.onUpdate
	c.mu.Unlock()
	if on != nil {
		on(n.Update)
	}
	return nil
}

// The terminal methods are term's (nil: the client offers none).
func (c *fakeClient) CreateTerminal(ctx context.Context, p sdk.CreateTerminalRequest) (sdk.CreateTerminalResponse, error) {
	if c.term == nil {
		return sdk.CreateTerminalResponse{}, sdk.NewMethodNotFound("terminal/create")
	}
	return c.term.create(ctx, p)
}
func (c *fakeClient) KillTerminal(ctx context.Context, p sdk.KillTerminalRequest) (sdk.KillTerminalResponse, error) {
	if c.term == nil {
		return sdk.KillTerminalResponse{}, sdk.NewMethodNotFound("terminal/kill")
	}
	return c.term.kill(ctx, p)
}
func (c *fakeClient) TerminalOutput(ctx context.Context, p sdk.TerminalOutputRequest) (sdk.TerminalOutputResponse, error) {
	if c.term == nil {
		return sdk.TerminalOutputResponse{}, sdk.NewMethodNotFound("terminal/output")
	}
	return c.term.output(ctx, p)
}
func (c *fakeClient) ReleaseTerminal(ctx context.Context, p sdk.ReleaseTerminalRequest) (sdk.ReleaseTerminalResponse, error) {
	if c.term == nil {
		return sdk.ReleaseTerminalResponse{}, sdk.NewMethodNotFound("terminal/release")
	}
	return c.term.release(ctx, p)
}
func (c *fakeClient) WaitForTerminalExit(ctx context.Context, p sdk.WaitForTerminalExitRequest) (sdk.WaitForTerminalExitResponse, error) {
	if c.term == nil {
		return sdk.WaitForTerminalExitResponse{}, sdk.NewMethodNotFound("terminal/wait_for_exit")
	}
	return c.term.wait(ctx, p)
}

// takeUpdates returns the updates since the last call.
func (c *fakeClient) takeUpdates() []sdk.SessionUpdate {
	c.mu.Lock()
	defer c.mu.Unlock()
	u := c.updates
	c.updates = nil
	return u
}

// agentEnv is the environment of an agent under test: the fake model at
// url, and its state and settings folders.
func agentEnv(url, state, config string) map[string]string {
	return map[string]string{"AGENTLS_MODEL": "m", "OPENAI_BASE_URL": url, "OPENAI_API_KEY": "k",
		"XDG_STATE_HOME": state, "XDG_CONFIG_HOME": config, "HOME": config, "PATH": os.Getenv("PATH")}
}

// startAgent serves an agent reading env on pipes, stopped when the test
// ends, and returns client's connection to it (not yet initialized).
func startAgent(t *testing.T, env map[string]string, client *fakeClient) *sdk.ClientSideConnection {
	t.Helper()
	conn, _ := serveAgent(t, env, client)
	return conn
}

// serveAgent is startAgent that also returns stop, which ends the agent
// as a client going away does and returns once it stopped every session
// (a restart's first half); the test's end runs it too.
func serveAgent(t *testing.T, env map[string]string, client *fakeClient) (conn *sdk.ClientSideConnection, stop func()) {
	t.Helper()
	toAgentR, toAgentW := io.Pipe()
	toClientR, toClientW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() {
		served <- Serve(ctx, Options{Getenv: func(k string) string { return env[k] }, Version: "test"}, toAgentR, toClientW)
	}()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			toAgentW.Close()
			<-served
			toClientW.Close()
		})
	}
	t.Cleanup(stop)
	return sdk.NewClientSideConnection(client, toAgentW, toClientR), stop
}

// openAgent is startAgent, initialized without fs or terminals, for a
// client with buffers of its own.
func openAgent(t *testing.T, env map[string]string, client *fakeClient) *sdk.ClientSideConnection {
	t.Helper()
	client.buffers = map[string]string{}
	conn := startAgent(t, env, client)
	if _, err := conn.Initialize(t.Context(), sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber}); err != nil {
		t.Fatal(err)
	}
	return conn
}

// connect starts an agent on pipes with the fake model at url and a
// client offering fs/*, and opens a session on a new workspace.
func connect(t *testing.T, url string, client *fakeClient, fs bool) (*sdk.ClientSideConnection, sdk.SessionId, string) {
	t.Helper()
	return connectWith(t, url, client, fs, "")
}

// connectWith is connect with the user's settings file holding
// userSettings ("": none).
func connectWith(t *testing.T, url string, client *fakeClient, fs bool, userSettings string) (*sdk.ClientSideConnection, sdk.SessionId, string) {
	t.Helper()
	state, config, root := t.TempDir(), t.TempDir(), t.TempDir()
	root, _ = filepath.EvalSymlinks(root)
	if userSettings != "" {
		os.MkdirAll(filepath.Join(config, "agentls"), 0o755)
		if err := os.WriteFile(filepath.Join(config, "agentls", "settings.json"), []byte(userSettings), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if client.buffers == nil {
		client.buffers = map[string]string{}
	}
	conn := startAgent(t, agentEnv(url, state, config), client)
	init, err := conn.Initialize(context.Background(), sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber,
		ClientCapabilities: sdk.ClientCapabilities{Fs: sdk.FileSystemCapabilities{ReadTextFile: fs, WriteTextFile: fs}, Terminal: client.term != nil}})
	if err != nil {
		t.Fatalf("initialize: %v", err)
	}
	if !init.AgentCapabilities.LoadSession || !init.AgentCapabilities.PromptCapabilities.EmbeddedContext || !init.AgentCapabilities.PromptCapabilities.Image || init.AgentCapabilities.PromptCapabilities.Audio {
		t.Errorf("initialize: capabilities %+v", init.AgentCapabilities)
	}
	sess, err := conn.NewSession(context.Background(), sdk.NewSessionRequest{Cwd: root, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatalf("session/new: %v", err)
	}
	return conn, sess.SessionId, root
}

func prompt(t *testing.T, conn *sdk.ClientSideConnection, id sdk.SessionId, blocks ...sdk.ContentBlock) sdk.StopReason {
	t.Helper()
	resp, err := conn.Prompt(context.Background(), sdk.PromptRequest{SessionId: id, Prompt: blocks})
	if err != nil {
		t.Fatalf("session/prompt: %v", err)
	}
	return resp.StopReason
}

// messages joins the agent's message chunks, and thoughts its thought
// chunks.
func texts(updates []sdk.SessionUpdate) (messages, thoughts string) {
	for _, u := range updates {
		if u.AgentMessageChunk != nil && u.AgentMessageChunk.Content.Text != nil {
			messages += u.AgentMessageChunk.Content.Text.Text
		}
		if u.AgentThoughtChunk != nil && u.AgentThoughtChunk.Content.Text != nil {
			thoughts += u.AgentThoughtChunk.Content.Text.Text
		}
	}
	return messages, thoughts
}

// lastCall is the last tool call's start and its last update.
func lastCall(t *testing.T, updates []sdk.SessionUpdate) (*sdk.SessionUpdateToolCall, *sdk.SessionToolCallUpdate) {
	t.Helper()
	var start *sdk.SessionUpdateToolCall
	var end *sdk.SessionToolCallUpdate
	for _, u := range updates {
		if u.ToolCall != nil {
			start, end = u.ToolCall, nil
		}
		if u.ToolCallUpdate != nil && start != nil && u.ToolCallUpdate.ToolCallId == start.ToolCallId {
			end = u.ToolCallUpdate
		}
	}
	if start == nil || end == nil {
		t.Fatalf("no tool call in %d updates", len(updates))
	}
	return start, end
}

// TestPromptStreamsTextAndThinking: the model's thinking arrives as
// agent_thought_chunks, its text as agent_message_chunks, and the turn
// ends end_turn; an embedded resource and a link reach the model.
func TestPromptStreamsTextAndThinking(t *testing.T) {
	srv := modeltest.New(modeltest.Reasoned("Let me think.", "Hello from agentls.", 4))
	defer srv.Close()
	client := &fakeClient{}
	conn, id, root := connect(t, srv.URL, client, true)
	os.WriteFile(filepath.Join(root, "notes.md"), []byte("on disk\n"), 0o644)
	client.buffers[filepath.Join(root, "notes.md")] = "UNSAVED buffer text\n"
	stop := prompt(t, conn, id, sdk.TextBlock("Say hello, see"),
		sdk.ResourceLinkBlock("notes.md", "file://"+filepath.Join(root, "notes.md")),
		sdk.ResourceBlock(sdk.EmbeddedResourceResource{TextResourceContents: &sdk.TextResourceContents{Uri: "file:///elsewhere/spec.txt", Text: "EMBEDDED spec"}}))
	if stop != sdk.StopReasonEndTurn {
		t.Errorf("stopReason %q", stop)
	}
	msgs, thoughts := texts(client.takeUpdates())
	if msgs != "Hello from agentls." || thoughts != "Let me think." {
		t.Errorf("messages %q, thoughts %q", msgs, thoughts)
	}
	var sent string
	for _, m := range srv.Requests()[0].Body.Messages {
		sent += m.Content + "\n"
	}
	if !strings.Contains(sent, "UNSAVED buffer text") || !strings.Contains(sent, "EMBEDDED spec") {
		t.Errorf("the model was not sent the linked buffer and the embedded resource:\n%s", sent)
	}
}

const twoFilePatch = "```apply_patch\n*** Begin Patch\n*** Update File: a.txt\n@@\n-one\n+ONE\n*** Update File: b.txt\n@@\n-two\n+TWO\n*** End Patch\n```\n"

// TestEditsThroughClient: a two-file patch is computed on the client's
// buffers, written with fs/write_text_file (the disk is not touched),
// and shown as one edit call with a diff per file, old and new text.
func TestEditsThroughClient(t *testing.T) {
	srv := modeltest.New(modeltest.Text(twoFilePatch, 7), modeltest.Text("Changed both.", 5))
	defer srv.Close()
	client := &fakeClient{}
	conn, id, root := connect(t, srv.URL, client, true)
	a, b := filepath.Join(root, "a.txt"), filepath.Join(root, "b.txt")
	os.WriteFile(a, []byte("one\n"), 0o644)
	os.WriteFile(b, []byte("two\n"), 0o644)
	if stop := prompt(t, conn, id, sdk.TextBlock("capitalise a.txt and b.txt")); stop != sdk.StopReasonEndTurn {
		t.Errorf("stopReason %q", stop)
	}
	if client.buffers[a] != "ONE\n" || client.buffers[b] != "TWO\n" {
		t.Errorf("buffers %q", client.buffers)
	}
	if data, _ := os.ReadFile(a); string(data) != "one\n" {
		t.Errorf("the disk was written (%q): edits go to the client's buffers", data)
	}
	start, end := lastCall(t, client.takeUpdates())
	if start.Kind != sdk.ToolKindEdit || *end.Status != sdk.ToolCallStatusCompleted || len(end.Content) != 2 {
		t.Fatalf("call %+v, end %+v", start, end)
	}
	for i, want := range []struct{ path, old, new string }{{a, "one\n", "ONE\n"}, {b, "two\n", "TWO\n"}} {
		d := end.Content[i].Diff
		if d == nil || d.Path != want.path || d.OldText == nil || *d.OldText != want.old || d.NewText != want.new {
			t.Errorf("diff %d: %+v, want %+v", i, d, want)
		}
	}
}

// TestEditsAllOrNothing: when the client fails the second file's write,
// the first gets its old text back and the model is told nothing was
// written.
func TestEditsAllOrNothing(t *testing.T) {
	srv := modeltest.New(modeltest.Text(twoFilePatch, 7), modeltest.Text("Oh.", 5))
	defer srv.Close()
	client := &fakeClient{}
	conn, id, root := connect(t, srv.URL, client, true)
	a, b := filepath.Join(root, "a.txt"), filepath.Join(root, "b.txt")
	os.WriteFile(a, []byte("one\n"), 0o644)
	os.WriteFile(b, []byte("two\n"), 0o644)
	client.failOn = b
	prompt(t, conn, id, sdk.TextBlock("capitalise a.txt and b.txt"))
	if client.buffers[a] != "one\n" || len(client.writes) != 2 {
		t.Errorf("a.txt's buffer %q after writes %q: want it restored", client.buffers[a], client.writes)
	}
	_, end := lastCall(t, client.takeUpdates())
	if *end.Status != sdk.ToolCallStatusFailed {
		t.Errorf("the failed edit ended %q", *end.Status)
	}
	if got := srv.Requests()[1].Body.Messages; !strings.Contains(got[len(got)-1].Content, "restored a.txt") {
		t.Errorf("the model read %q", got[len(got)-1].Content)
	}
}

// TestShellPermission: a command that needs approval is asked with
// request_permission (allow once/always, reject once/always); rejected,
// it does not run; allowed, it runs and its output is in the call.
func TestShellPermission(t *testing.T) {
	srv := modeltest.New(
		modeltest.Text("```shell\ntouch made && echo made it\n```\n", 6), modeltest.Text("Not run.", 5),
		modeltest.Text("```shell\ntouch made && echo made it\n```\n", 6), modeltest.Text("Ran.", 5))
	defer srv.Close()
	client := &fakeClient{answers: []string{optRejectOnce, optAllowOnce}}
	conn, id, root := connect(t, srv.URL, client, true)
	prompt(t, conn, id, sdk.TextBlock("make a file"))
	if _, err := os.Stat(filepath.Join(root, "made")); err == nil {
		t.Fatal("a rejected command ran")
	}
	if len(client.asked) != 1 {
		t.Fatalf("asked %d times", len(client.asked))
	}
	var kinds []sdk.PermissionOptionKind
	for _, o := range client.asked[0].Options {
		kinds = append(kinds, o.Kind)
	}
	if strings.Join(strs(kinds), ",") != "allow_once,allow_always,reject_once,reject_always" {
		t.Errorf("options %v", kinds)
	}
	start, end := lastCall(t, client.takeUpdates())
	if start.Kind != sdk.ToolKindExecute || *end.Status != sdk.ToolCallStatusFailed || client.asked[0].ToolCall.ToolCallId != start.ToolCallId {
		t.Errorf("rejected call %+v ended %+v", start, end)
	}
	prompt(t, conn, id, sdk.TextBlock("make it now, I allow it"))
	if _, err := os.Stat(filepath.Join(root, "made")); err != nil {
		t.Fatalf("an allowed command did not run: %v", err)
	}
	_, end = lastCall(t, client.takeUpdates())
	if *end.Status != sdk.ToolCallStatusCompleted || len(end.Content) != 1 || !strings.Contains(end.Content[0].Content.Content.Text.Text, "made it") {
		t.Errorf("allowed call ended %+v", end)
	}
}

func strs[T ~string](v []T) []string {
	out := make([]string, len(v))
	for i, s := range v {
		out[i] = string(s)
	}
	return out
}

// TestCancel: session/cancel mid-reply ends the prompt "cancelled",
// within a bounded time, with the model's stream still open.
func TestCancel(t *testing.T) {
	stalled := modeltest.Text("I will write a long", 4)
	stalled.Stall = true
	srv := modeltest.New(stalled)
	defer srv.Close()
	client := &fakeClient{}
	conn, id, _ := connect(t, srv.URL, client, true)
	var once sync.Once
	client.onUpdate = func(u sdk.SessionUpdate) {
		if u.AgentMessageChunk != nil {
			once.Do(func() { go conn.Cancel(context.Background(), sdk.CancelNotification{SessionId: id}) })
		}
	}
	start := time.Now()
	if stop := prompt(t, conn, id, sdk.TextBlock("write an essay")); stop != sdk.StopReasonCancelled {
		t.Errorf("stopReason %q", stop)
	}
	if d := time.Since(start); d > cancelGrace {
		t.Errorf("cancel took %s", d)
	}
}

// TestUndo: /undo (offered in available_commands_update) puts back the
// last edited turn's files through the client, without asking the
// model; when a file changed since, nothing is undone.
func TestUndo(t *testing.T) {
	srv := modeltest.New(modeltest.Text(twoFilePatch, 7), modeltest.Text("Changed both.", 5),
		modeltest.Text(twoFilePatch, 7), modeltest.Text("Changed both.", 5))
	defer srv.Close()
	client := &fakeClient{}
	conn, id, root := connect(t, srv.URL, client, true)
	a, b := filepath.Join(root, "a.txt"), filepath.Join(root, "b.txt")
	os.WriteFile(a, []byte("one\n"), 0o644)
	os.WriteFile(b, []byte("two\n"), 0o644)
	prompt(t, conn, id, sdk.TextBlock("capitalise a.txt and b.txt"))
	var offered []string
	for _, u := range client.takeUpdates() {
		if u.AvailableCommandsUpdate != nil {
			for _, c := range u.AvailableCommandsUpdate.AvailableCommands {
				offered = append(offered, c.Name)
			}
		}
	}
	if strings.Join(offered, ",") != "undo,redo,jobs,review,model" {
		t.Errorf("commands offered: %q", offered)
	}
	if stop := prompt(t, conn, id, sdk.TextBlock("/undo")); stop != sdk.StopReasonEndTurn {
		t.Errorf("/undo: stopReason %q", stop)
	}
	if client.buffers[a] != "one\n" || client.buffers[b] != "two\n" {
		t.Errorf("after /undo: buffers %q", client.buffers)
	}
	_, end := lastCall(t, client.takeUpdates())
	if *end.Status != sdk.ToolCallStatusCompleted || len(end.Content) != 2 || end.Content[0].Diff == nil || end.Content[0].Diff.NewText != "one\n" {
		t.Errorf("the undo call ended %+v", end)
	}
	if n := len(srv.Requests()); n != 2 {
		t.Errorf("/undo asked the model (%d requests)", n)
	}
	// Again, then the user edits a.txt: the undo would lose that, so
	// nothing is undone.
	prompt(t, conn, id, sdk.TextBlock("capitalise a.txt and b.txt"))
	client.mu.Lock()
	client.buffers[a] = "ONE, and mine\n"
	client.mu.Unlock()
	client.takeUpdates()
	prompt(t, conn, id, sdk.TextBlock("/undo"))
	if client.buffers[a] != "ONE, and mine\n" || client.buffers[b] != "TWO\n" {
		t.Errorf("a refused undo changed buffers: %q", client.buffers)
	}
	if msgs, _ := texts(client.takeUpdates()); !strings.Contains(msgs, "Nothing was undone: a.txt changed") {
		t.Errorf("the user read %q", msgs)
	}
}

// TestEditsToDisk: a client that offers no fs/* gets its edits on the
// disk, atomically, as agentls ask writes them.
func TestEditsToDisk(t *testing.T) {
	srv := modeltest.New(modeltest.Text(twoFilePatch, 7), modeltest.Text("Changed both.", 5))
	defer srv.Close()
	client := &fakeClient{}
	conn, id, root := connect(t, srv.URL, client, false)
	os.WriteFile(filepath.Join(root, "a.txt"), []byte("one\n"), 0o644)
	os.WriteFile(filepath.Join(root, "b.txt"), []byte("two\n"), 0o644)
	prompt(t, conn, id, sdk.TextBlock("capitalise a.txt and b.txt"))
	for name, want := range map[string]string{"a.txt": "ONE\n", "b.txt": "TWO\n"} {
		if data, _ := os.ReadFile(filepath.Join(root, name)); string(data) != want {
			t.Errorf("%s on disk: %q, want %q", name, data, want)
		}
	}
	if len(client.writes) != 0 {
		t.Errorf("fs/write_text_file was sent to a client that does not offer it: %q", client.writes)
	}
	_, end := lastCall(t, client.takeUpdates())
	if len(end.Content) != 2 || end.Content[1].Diff == nil || end.Content[1].Diff.NewText != "TWO\n" {
		t.Errorf("the edit ended %+v", end)
	}
}

// TestApprovalPolicyDeny: the user's approvalPolicy "deny" refuses what
// needs approval without asking the client; nothing runs.
func TestApprovalPolicyDeny(t *testing.T) {
	srv := modeltest.New(modeltest.Text("```shell\ntouch made\n```\n", 6), modeltest.Text("Refused.", 5))
	defer srv.Close()
	client := &fakeClient{answers: []string{optAllowOnce}}
	conn, id, root := connectWith(t, srv.URL, client, true, `{"approvalPolicy": "deny"}`)
	prompt(t, conn, id, sdk.TextBlock("make a file"))
	if len(client.asked) != 0 {
		t.Errorf("the client was asked %d times under approvalPolicy deny", len(client.asked))
	}
	if _, err := os.Stat(filepath.Join(root, "made")); err == nil {
		t.Error("a command ran under approvalPolicy deny")
	}
	if got := srv.Requests()[1].Body.Messages; !strings.Contains(got[len(got)-1].Content, "approvalPolicy") {
		t.Errorf("the model read %q", got[len(got)-1].Content)
	}
}

// TestAllowAlways: "allow always" is kept by the gate: the same command
// runs again without a question.
func TestAllowAlways(t *testing.T) {
	srv := modeltest.New(
		modeltest.Text("```shell\ntouch made\n```\n", 6), modeltest.Text("```shell\ntouch made\n```\n", 6), modeltest.Text("Done.", 5))
	defer srv.Close()
	client := &fakeClient{answers: []string{optAllowAlways}}
	conn, id, root := connect(t, srv.URL, client, true)
	prompt(t, conn, id, sdk.TextBlock("make a file, twice"))
	if _, err := os.Stat(filepath.Join(root, "made")); err != nil {
		t.Error(err)
	}
	if len(client.asked) != 1 {
		t.Errorf("asked %d times, want once: the pattern was allowed always", len(client.asked))
	}
	if got := srv.Requests()[2].Body.Messages; strings.Contains(got[len(got)-1].Content, "declined") || strings.Contains(got[len(got)-1].Content, "approval") {
		t.Errorf("the second run was refused: %q", got[len(got)-1].Content)
	}
}

// TestLoadSession: a session closed with its connection is loaded by a
// new one: its turns replayed (the prompt as the user's message, the
// text, the calls), and its next turn sent the earlier ones as history.
func TestLoadSession(t *testing.T) {
	srv := modeltest.New(
		modeltest.Text("```shell\necho hi\n```\n", 6), modeltest.Text("It said hi.", 5),
		modeltest.Text("Still here.", 5))
	defer srv.Close()
	client := &fakeClient{answers: []string{optAllowOnce}}
	state, config := t.TempDir(), t.TempDir()
	root, _ := filepath.EvalSymlinks(t.TempDir())
	env := agentEnv(srv.URL, state, config)
	open := func(client *fakeClient) *sdk.ClientSideConnection { return openAgent(t, env, client) }
	conn := open(client)
	sess, err := conn.NewSession(t.Context(), sdk.NewSessionRequest{Cwd: root, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	prompt(t, conn, sess.SessionId, sdk.TextBlock("say hi in the shell"))

	again := &fakeClient{}
	conn2 := open(again)
	if _, err := conn2.LoadSession(t.Context(), sdk.LoadSessionRequest{SessionId: sess.SessionId, Cwd: root, McpServers: []sdk.McpServer{}}); err != nil {
		t.Fatalf("session/load: %v", err)
	}
	replayed := again.takeUpdates()
	var user string
	var kinds []sdk.ToolKind
	for _, u := range replayed {
		if u.UserMessageChunk != nil && u.UserMessageChunk.Content.Text != nil {
			user += u.UserMessageChunk.Content.Text.Text
		}
		if u.ToolCall != nil && u.ToolCall.Status == sdk.ToolCallStatusCompleted {
			kinds = append(kinds, u.ToolCall.Kind)
		}
	}
	msgs, _ := texts(replayed)
	if user != "say hi in the shell" || !strings.HasSuffix(msgs, "It said hi.") || len(kinds) != 1 || kinds[0] != sdk.ToolKindExecute {
		t.Errorf("replayed user %q, agent %q, calls %v", user, msgs, kinds)
	}
	prompt(t, conn2, sess.SessionId, sdk.TextBlock("are you there?"))
	var sent []string
	for _, m := range srv.Requests()[2].Body.Messages {
		sent = append(sent, m.Content)
	}
	if joined := strings.Join(sent, "\n"); !strings.Contains(joined, "say hi in the shell") || !strings.Contains(joined, "It said hi.") {
		t.Errorf("the loaded session's next turn was not sent its history:\n%s", joined)
	}
	// A session id is a name agentls gave, never a path.
	if _, err := conn2.LoadSession(t.Context(), sdk.LoadSessionRequest{SessionId: "../../../etc/passwd", Cwd: root, McpServers: []sdk.McpServer{}}); err == nil {
		t.Error("session/load took a path for a session id")
	}
}

// TestCancelDuringQuestion: a client that cancels the turn while a
// question is open answers it "cancelled": nothing runs, and the prompt
// ends "cancelled".
func TestCancelDuringQuestion(t *testing.T) {
	srv := modeltest.New(modeltest.Text("```shell\ntouch made\n```\n", 6), modeltest.Text("Stopped?", 5))
	defer srv.Close()
	client := &fakeClient{answers: []string{""}} // "" answers cancelled
	conn, id, root := connect(t, srv.URL, client, true)
	if stop := prompt(t, conn, id, sdk.TextBlock("make a file")); stop != sdk.StopReasonCancelled {
		t.Errorf("stopReason %q", stop)
	}
	if _, err := os.Stat(filepath.Join(root, "made")); err == nil {
		t.Error("a command ran after its question was cancelled")
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("the model was asked %d times: a cancelled turn goes no further", n)
	}
}

// TestRedoAndModel: /redo makes again what /undo put back (and nothing
// once a file changed since); /model lists the models the session may use
// and picks one of them for the next turns, never another.
func TestRedoAndModel(t *testing.T) {
	srv := modeltest.New(modeltest.Text(twoFilePatch, 7), modeltest.Text("Changed both.", 5), modeltest.Text("Done.", 5))
	defer srv.Close()
	client := &fakeClient{}
	conn, id, root := connect(t, srv.URL, client, true)
	a, b := filepath.Join(root, "a.txt"), filepath.Join(root, "b.txt")
	os.WriteFile(a, []byte("one\n"), 0o644)
	os.WriteFile(b, []byte("two\n"), 0o644)
	prompt(t, conn, id, sdk.TextBlock("capitalise a.txt and b.txt"))
	changed := map[string]string{a: client.buffers[a], b: client.buffers[b]}
	prompt(t, conn, id, sdk.TextBlock("/undo"))
	if client.buffers[a] != "one\n" || client.buffers[b] != "two\n" {
		t.Fatalf("after /undo: %q", client.buffers)
	}
	client.takeUpdates()
	prompt(t, conn, id, sdk.TextBlock("/redo"))
	if client.buffers[a] != changed[a] || client.buffers[b] != changed[b] {
		t.Errorf("after /redo: %q, want %q", client.buffers, changed)
	}
	if msgs, _ := texts(client.takeUpdates()); !strings.Contains(msgs, "Redid turn 1's edits.") {
		t.Errorf("/redo said %q", msgs)
	}
	prompt(t, conn, id, sdk.TextBlock("/redo"))
	if msgs, _ := texts(client.takeUpdates()); !strings.Contains(msgs, "Nothing to redo") {
		t.Errorf("a second /redo said %q", msgs)
	}
	prompt(t, conn, id, sdk.TextBlock("/jobs"))
	if msgs, _ := texts(client.takeUpdates()); !strings.Contains(msgs, "No background job was started in this session.") {
		t.Errorf("/jobs said %q", msgs)
	}
	prompt(t, conn, id, sdk.TextBlock("/model"))
	if msgs, _ := texts(client.takeUpdates()); !strings.Contains(msgs, "The model is m") {
		t.Errorf("/model said %q", msgs)
	}
	prompt(t, conn, id, sdk.TextBlock("/model gpt-evil"))
	if msgs, _ := texts(client.takeUpdates()); !strings.Contains(msgs, "gpt-evil is not a model this session may use") {
		t.Errorf("/model gpt-evil said %q", msgs)
	}
	prompt(t, conn, id, sdk.TextBlock("hello"))
	reqs := srv.Requests()
	if got := reqs[len(reqs)-1].Body.Model; got != "m" {
		t.Errorf("the next turn asked model %q", got)
	}
	if n := len(reqs); n != 3 {
		t.Errorf("%d model calls: a slash command asked the model", n)
	}
}
