package lsp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agentls/agentls/acp"
	"github.com/agentls/agentls/agent/modeltest"
	"github.com/agentls/agentls/internal/statedir"
	"github.com/agentls/agentls/lsp/lsptest"
)

// TestServerAndACPShareJournal: the language server and an ACP agent
// (agentls acp, as an editor's agent panel starts it) on one workspace
// record their edits in one undo journal, and while both edit at once
// they never give the same edit or turn number: the counters are the
// journal's, under its flock, in the state folder both read.
func TestServerAndACPShareJournal(t *testing.T) {
	t.Parallel()
	const n = 3 // edits each
	var replies []modeltest.Reply
	for i := range n {
		replies = append(replies, modeltest.Text(fmt.Sprintf("```save b.txt\nagent %d\n```\n", i), 8), modeltest.Text("Saved.", 5))
	}
	srv := modeltest.New(replies...)
	defer srv.Close()
	root, err := filepath.EvalSymlinks(writeFiles(t, map[string]string{"a.txt": "a\n", "b.txt": "b\n"}))
	if err != nil {
		t.Fatal(err)
	}
	state, config := t.TempDir(), t.TempDir()
	e := lsptest.Start(t, root, lsptest.VSCode(), lsptest.Env(map[string]string{"XDG_STATE_HOME": state}))

	env := map[string]string{"AGENTLS_MODEL": "m", "OPENAI_BASE_URL": srv.URL, "OPENAI_API_KEY": "k",
		"XDG_STATE_HOME": state, "XDG_CONFIG_HOME": config, "HOME": config, "PATH": os.Getenv("PATH")}
	getenv := func(k string) string { return env[k] }
	client := &panelClient{}
	conn := serveACP(t, getenv, client)
	if _, err := conn.Initialize(t.Context(), sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber}); err != nil {
		t.Fatal(err)
	}
	sess, err := conn.NewSession(t.Context(), sdk.NewSessionRequest{Cwd: root, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}

	// The agent's turns run while the server applies replies.
	prompted := make(chan error, 1)
	go func() {
		for i := range n {
			if _, err := conn.Prompt(context.Background(), sdk.PromptRequest{SessionId: sess.SessionId,
				Prompt: []sdk.ContentBlock{sdk.TextBlock(fmt.Sprintf("write b.txt, %d", i))}}); err != nil {
				prompted <- err
				return
			}
		}
		prompted <- nil
	}()
	serverTurns := map[int]bool{}
	for i := range n {
		var started struct{ Turn int }
		if err := e.Call("workspace/executeCommand", map[string]any{"command": "agentls.applyReply",
			"arguments": []any{map[string]any{"text": fmt.Sprintf("```save a.txt\nserver %d\n```\n", i)}}}, &started); err != nil {
			t.Fatal(err)
		}
		serverTurns[started.Turn] = true
		e.Await(lsptest.ShownMessage("applied", fmt.Sprintf("agent turn %d", started.Turn)))
	}
	if err := <-prompted; err != nil {
		t.Fatalf("session/prompt: %v", err)
	}

	// The clients' view: the server's turns and the agent's (its tool
	// calls' ids are "call-TURN-N") are apart.
	agentTurns := map[int]bool{}
	for _, id := range client.callIDs() {
		var turn, call int
		if _, err := fmt.Sscanf(string(id), "call-%d-%d", &turn, &call); err != nil {
			t.Fatalf("tool call id %q: %v", id, err)
		}
		agentTurns[turn] = true
	}
	if len(serverTurns) != n || len(agentTurns) != n {
		t.Fatalf("%d server turns, %d agent turns, want %d each", len(serverTurns), len(agentTurns), n)
	}
	for turn := range agentTurns {
		if serverTurns[turn] {
			t.Errorf("turn %d is both the server's and the agent's", turn)
		}
	}

	// The journal's view: every edit of both, each number once, under
	// the turn that made it.
	dir, err := statedir.Dir(getenv, "journal", root)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(dir, "journal.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	edits := map[int]string{}
	var byServer, byAgent int
	for sc := bufio.NewScanner(f); sc.Scan(); {
		var op struct {
			Op    string
			ID    int
			Turn  int
			Label string
		}
		if err := json.Unmarshal(sc.Bytes(), &op); err != nil || op.Op != "record" {
			continue
		}
		if earlier, ok := edits[op.ID]; ok {
			t.Errorf("edit %d is both %q and %q", op.ID, earlier, op.Label)
		}
		edits[op.ID] = op.Label
		switch {
		case serverTurns[op.Turn] && strings.Contains(op.Label, "a.txt"):
			byServer++
		case agentTurns[op.Turn] && strings.HasPrefix(op.Label, fmt.Sprintf("ACP turn %d (b.txt)", op.Turn)):
			byAgent++
		default:
			t.Errorf("edit %d %q of turn %d is neither the server's nor the agent's", op.ID, op.Label, op.Turn)
		}
	}
	if byServer != n || byAgent != n {
		t.Errorf("the journal holds %d of the server's edits and %d of the agent's, want %d each", byServer, byAgent, n)
	}
}

// serveACP serves an ACP agent reading getenv to client on pipes,
// stopped when the test ends.
func serveACP(t *testing.T, getenv func(string) string, client sdk.Client) *sdk.ClientSideConnection {
	t.Helper()
	toAgentR, toAgentW := io.Pipe()
	toClientR, toClientW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- acp.Serve(ctx, acp.Options{Getenv: getenv, Version: "test"}, toAgentR, toClientW) }()
	t.Cleanup(func() {
		cancel()
		toAgentW.Close()
		<-served
		toClientW.Close()
	})
	return sdk.NewClientSideConnection(client, toAgentW, toClientR)
}

// panelClient is an ACP client that offers neither fs/* nor terminals,
// asks nobody, and keeps the ids of the tool calls it was shown.
type panelClient struct {
	mu    sync.Mutex
	calls []sdk.ToolCallId
}

func (c *panelClient) callIDs() []sdk.ToolCallId {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]sdk.ToolCallId(nil), c.calls...)
}

func (c *panelClient) SessionUpdate(_ context.Context, n sdk.SessionNotification) error {
	if n.Update.ToolCall != nil {
		c.mu.Lock()
		c.calls = append(c.calls, n.Update.ToolCall.ToolCallId)
		c.mu.Unlock()
	}
	return nil
}

func (c *panelClient) RequestPermission(context.Context, sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
	return sdk.RequestPermissionResponse{Outcome: sdk.NewRequestPermissionOutcomeCancelled()}, nil
}

func (c *panelClient) ReadTextFile(context.Context, sdk.ReadTextFileRequest) (sdk.ReadTextFileResponse, error) {
	return sdk.ReadTextFileResponse{}, sdk.NewMethodNotFound(sdk.ClientMethodFsReadTextFile)
}

func (c *panelClient) WriteTextFile(context.Context, sdk.WriteTextFileRequest) (sdk.WriteTextFileResponse, error) {
	return sdk.WriteTextFileResponse{}, sdk.NewMethodNotFound(sdk.ClientMethodFsWriteTextFile)
}

func (c *panelClient) CreateTerminal(context.Context, sdk.CreateTerminalRequest) (sdk.CreateTerminalResponse, error) {
	return sdk.CreateTerminalResponse{}, sdk.NewMethodNotFound(sdk.ClientMethodTerminalCreate)
}

func (c *panelClient) KillTerminal(context.Context, sdk.KillTerminalRequest) (sdk.KillTerminalResponse, error) {
	return sdk.KillTerminalResponse{}, sdk.NewMethodNotFound(sdk.ClientMethodTerminalKill)
}

func (c *panelClient) TerminalOutput(context.Context, sdk.TerminalOutputRequest) (sdk.TerminalOutputResponse, error) {
	return sdk.TerminalOutputResponse{}, sdk.NewMethodNotFound(sdk.ClientMethodTerminalOutput)
}

func (c *panelClient) ReleaseTerminal(context.Context, sdk.ReleaseTerminalRequest) (sdk.ReleaseTerminalResponse, error) {
	return sdk.ReleaseTerminalResponse{}, sdk.NewMethodNotFound(sdk.ClientMethodTerminalRelease)
}

func (c *panelClient) WaitForTerminalExit(context.Context, sdk.WaitForTerminalExitRequest) (sdk.WaitForTerminalExitResponse, error) {
	return sdk.WaitForTerminalExitResponse{}, sdk.NewMethodNotFound(sdk.ClientMethodTerminalWaitForExit)
}
