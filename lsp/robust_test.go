package lsp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agentls/agentls/agent/modeltest"
	"github.com/agentls/agentls/lsp"
	"github.com/agentls/agentls/lsp/lsptest"
)

// A rawClient talks to a server in frames it writes itself, hostile ones
// included; a goroutine reads the server's frames as they come (net.Pipe
// has no buffer: a server answering a bad frame must find a reader).
type rawClient struct {
	t      *testing.T
	w      io.WriteCloser // to the server
	frames chan map[string]json.RawMessage
	ended  chan struct{} // the server returned
}

// startRaw runs a server in-process over a pipe.
func startRaw(t *testing.T) *rawClient {
	t.Helper()
	serverEnd, clientEnd := net.Pipe()
	c := newRawClient(t, clientEnd, clientEnd)
	go func() {
		defer close(c.ended)
		lsp.Serve(context.Background(), serverEnd, lsp.Options{})
		serverEnd.Close()
	}()
	t.Cleanup(func() {
		clientEnd.Close()
		select {
		case <-c.ended:
		case <-time.After(10 * time.Second):
			t.Error("the server did not end after its stream closed")
		}
	})
	return c
}

// newRawClient reads the server's frames from r as they come.
func newRawClient(t *testing.T, w io.WriteCloser, r io.Reader) *rawClient {
	c := &rawClient{t: t, w: w, frames: make(chan map[string]json.RawMessage, 100), ended: make(chan struct{})}
	go func() {
		defer close(c.frames)
		in := bufio.NewReader(r)
		for {
			var length int
			for {
				line, err := in.ReadString('\n')
				if err != nil {
					return
				}
				if line = strings.TrimSpace(line); line == "" {
					break
				}
				if v, ok := strings.CutPrefix(line, "Content-Length: "); ok {
					length, _ = strconv.Atoi(v)
				}
			}
			body := make([]byte, length)
			if _, err := io.ReadFull(in, body); err != nil {
				return
			}
			var msg map[string]json.RawMessage
			if err := json.Unmarshal(body, &msg); err != nil {
				t.Errorf("the server wrote a frame that is not JSON: %q", body)
				return
			}
			c.frames <- msg
		}
	}()
	return c
}

func (c *rawClient) send(body string) {
	c.t.Helper()
	if conn, ok := c.w.(net.Conn); ok {
		conn.SetWriteDeadline(time.Now().Add(10 * time.Second))
	}
	if _, err := fmt.Fprintf(c.w, "Content-Length: %d\r\n\r\n%s", len(body), body); err != nil {
		c.t.Fatalf("write %.40q: %v (the server stopped reading)", body, err)
	}
}

// next returns the server's next frame, failing the test if the server
// writes none (it ended, or hangs).
func (c *rawClient) next() map[string]json.RawMessage {
	c.t.Helper()
	select {
	case msg, ok := <-c.frames:
		if !ok {
			c.t.Fatal("the server ended the session")
		}
		return msg
	case <-time.After(10 * time.Second):
		c.t.Fatal("the server wrote nothing for 10 s")
	}
	return nil
}

// responsesUntil returns the responses the server wrote up to the one for
// id (not included), skipping its notifications.
func (c *rawClient) responsesUntil(id string) (before []map[string]json.RawMessage, last map[string]json.RawMessage) {
	c.t.Helper()
	for {
		msg := c.next()
		if _, isRequest := msg["method"]; isRequest {
			continue
		}
		if string(msg["id"]) == id {
			return before, msg
		}
		before = append(before, msg)
	}
}

// request waits for the server's request of a method, skipping the rest.
func (c *rawClient) request(method string) map[string]json.RawMessage {
	c.t.Helper()
	for {
		if msg := c.next(); string(msg["method"]) == strconv.Quote(method) {
			return msg
		}
	}
}

// messageContaining waits for a window/showMessage with s.
func (c *rawClient) messageContaining(s string) {
	c.t.Helper()
	for {
		msg := c.next()
		if string(msg["method"]) != `"window/showMessage"` {
			continue
		}
		var p protocol.ShowMessageParams
		json.Unmarshal(msg["params"], &p)
		if strings.Contains(p.Message, s) {
			return
		}
	}
}

func (c *rawClient) initialize(params string) {
	c.t.Helper()
	c.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":` + params + `}`)
	if _, res := c.responsesUntil("1"); res["error"] != nil {
		c.t.Fatalf("initialize: %s", res["error"])
	}
	c.send(`{"jsonrpc":"2.0","method":"initialized","params":{}}`)
}

type rpcError struct {
	Code    int64  `json:"code"`
	Message string `json:"message"`
}

// TestMalformedMessagesAreAnswered: a framed message that is no JSON-RPC
// request is logged, answered with ParseError or InvalidRequest (with its
// id when one can be read), and the session goes on: the request behind
// it is answered. jsonrpc2's own stream ended the session (exit 1).
func TestMalformedMessagesAreAnswered(t *testing.T) {
	t.Parallel()
	c := startRaw(t)
	c.initialize(fmt.Sprintf(`{"processId":null,"rootUri":%q,"capabilities":{}}`, uri.File(t.TempDir())))
	tests := []struct {
		name string
		body string
		code int64  // 0: not answered (it looks like a response)
		id   string // the id answered
	}{
		{"truncated object", `{`, -32700, "null"},
		{"empty batch", `[]`, -32600, "null"},
		{"batch", `[{"jsonrpc":"2.0","id":50,"method":"shutdown"}]`, -32600, "null"},
		{"numeric method", `{"jsonrpc":"2.0","id":51,"method":5}`, -32600, "51"},
		{"invalid UTF-8", "{\"jsonrpc\":\"2.0\",\"id\":52,\"method\":\"workspace/executeCommand\",\"params\":{\"command\":\"agentls.run\",\"arguments\":[{\"command\":\"\xff\"}]}}", -32700, "52"},
		{"invalid UTF-8 in didOpen", "{\"jsonrpc\":\"2.0\",\"method\":\"textDocument/didOpen\",\"params\":{\"textDocument\":{\"uri\":\"file:///x.go\",\"languageId\":\"go\",\"version\":1,\"text\":\"\xc3(\"}}}", -32700, "null"},
		{"not a request", `{"jsonrpc":"2.0","hello":"world"}`, -32600, "null"},
		{"a string", `"initialize"`, -32600, "null"},
		{"id beyond 32 bits", `{"jsonrpc":"2.0","id":4294967296,"method":"shutdown"}`, -32600, "4294967296"},
		{"stray response", `{"jsonrpc":"2.0","id":999,"result":{"applied":true}}`, 0, ""},
		{"broken response", `{"jsonrpc":"2.0","id":998,"error":"no"}`, 0, ""},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c.t = t
			c.send(tt.body)
			ping := strconv.Itoa(100 + i)
			c.send(`{"jsonrpc":"2.0","id":` + ping + `,"method":"agentls/ping"}`)
			before, res := c.responsesUntil(ping)
			var pingErr rpcError
			json.Unmarshal(res["error"], &pingErr)
			if pingErr.Code != -32601 {
				t.Errorf("the request after it got %s, want MethodNotFound", res["error"])
			}
			if tt.code == 0 {
				if len(before) > 0 {
					t.Errorf("a response was answered: %v", before)
				}
				return
			}
			if len(before) != 1 {
				t.Fatalf("%d answers before the next request's, want 1: %v", len(before), before)
			}
			var e rpcError
			json.Unmarshal(before[0]["error"], &e)
			if e.Code != tt.code || string(before[0]["id"]) != tt.id || e.Message == "" {
				t.Errorf("answer: id %s, error %s; want id %s, code %d", before[0]["id"], before[0]["error"], tt.id, tt.code)
			}
		})
	}
	c.t = t
	c.send(`{"jsonrpc":"2.0","id":2,"method":"shutdown"}`)
	if _, res := c.responsesUntil("2"); res["error"] != nil {
		t.Fatalf("shutdown: %s", res["error"])
	}
	c.send(`{"jsonrpc":"2.0","method":"exit"}`)
	select {
	case <-c.ended:
	case <-time.After(10 * time.Second):
		t.Fatal("no exit")
	}
}

// TestNonFileRoot: a root that is no folder on disk (untitled:, a remote
// URI) is no root: initialize is answered (go.lsp.dev/uri panicked on it),
// the user is told, and an edit says a folder is needed.
func TestNonFileRoot(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ name, params string }{
		{"untitled root", `{"processId":null,"rootUri":"untitled:x","capabilities":{}}`},
		{"remote folder", `{"processId":null,"rootUri":null,"workspaceFolders":[{"uri":"vscode-vfs://github/agentls/agentls","name":"remote"}],"capabilities":{}}`},
		{"another host", `{"processId":null,"rootUri":"file://server/share","capabilities":{}}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := startRaw(t)
			c.initialize(tt.params)
			c.messageContaining("is not a folder on disk")
			c.send(`{"jsonrpc":"2.0","id":3,"method":"workspace/executeCommand","params":{"command":"agentls.applyReply","arguments":[{"text":"` + "```save a.go\\npackage a\\n```" + `"}]}}`)
			c.messageContaining("no workspace folder")
		})
	}
}

// TestNonFileDocuments: buffers that are no files (VS Code's untitled,
// vim-fugitive's, an http view, a file on another host) are opened,
// changed, asked for code actions and closed without a panic (the server
// died on the first didOpen); commands that need a file say so; a reply
// pasted into an untitled buffer is still applied to the workspace.
func TestNonFileDocuments(t *testing.T) {
	t.Parallel()
	root := writeFiles(t, files)
	e := lsptest.Start(t, root, lsptest.VSCode())
	e.OpenFile("a.go", "go")
	for _, u := range []protocol.DocumentURI{
		"untitled:Untitled-1",
		"fugitive:///repo/.git//0/a.go",
		"http://example.com/a.go",
		"file://otherhost/a.go",
		"file:a.go",
		"git:/a.go?%7B%22path%22%3A%22a.go%22%7D",
	} {
		t.Run(string(u), func(t *testing.T) {
			open := map[string]any{"textDocument": map[string]any{"uri": u, "languageId": "markdown", "version": 1, "text": "// AI! rename Config\n"}}
			if err := e.Notify(protocol.MethodTextDocumentDidOpen, open); err != nil {
				t.Fatal(err)
			}
			change := map[string]any{"textDocument": map[string]any{"uri": u, "version": 2}, "contentChanges": []map[string]any{{"text": reply}}}
			if err := e.Notify(protocol.MethodTextDocumentDidChange, change); err != nil {
				t.Fatal(err)
			}
			var actions []protocol.CodeAction
			err := e.Call(protocol.MethodTextDocumentCodeAction, map[string]any{"textDocument": map[string]any{"uri": u}, "range": protocol.Range{}, "context": map[string]any{"diagnostics": []any{}}}, &actions)
			if err != nil {
				t.Fatalf("codeAction: %v", err)
			}
			if len(actions) != 1 || !strings.HasPrefix(actions[0].Title, "Apply agent reply") {
				t.Errorf("actions = %+v, want only the reply's", actions)
			}
			for _, cmd := range []struct {
				name string
				arg  any
			}{
				{"agentls.chat.send", map[string]any{"uri": u}},
				{"agentls.ask", map[string]any{"prompt": "x", "uri": u, "range": protocol.Range{End: protocol.Position{Line: 1}}}},
				{"agentls.review.accept", map[string]any{"uri": u}},
				{"agentls.review.diff", map[string]any{"uri": u}},
			} {
				// An error or nothing, and the session goes on.
				e.ExecuteCommand(cmd.name, cmd.arg)
			}
			if err := e.Notify(protocol.MethodTextDocumentDidClose, map[string]any{"textDocument": map[string]any{"uri": u}}); err != nil {
				t.Fatal(err)
			}
			if got := e.CodeActions("a.go", protocol.Range{}); got == nil {
				t.Errorf("the session did not go on")
			}
		})
	}

	// A reply in an untitled buffer, applied from there.
	u := protocol.DocumentURI("untitled:Untitled-2")
	e.Notify(protocol.MethodTextDocumentDidOpen, map[string]any{"textDocument": map[string]any{"uri": u, "languageId": "markdown", "version": 1, "text": reply}})
	if err := e.ExecuteCommand("agentls.applyReply", map[string]any{"uri": u}); err != nil {
		t.Fatal(err)
	}
	e.Await(lsptest.ShownMessage("applied"), lsptest.FileContent("b.go", "package p\n\nvar c Settings\n"))
}

// TestApplyEditUnanswered: an editor that never answers
// workspace/applyEdit. The server stops waiting after ApplyEditTimeout,
// cancels the request, tells the user, and keeps the change as pending
// review, from where it is applied once the editor answers again. (The
// task used to wait for good.)
func TestApplyEditUnanswered(t *testing.T) {
	t.Parallel()
	root := writeFiles(t, files)
	// The editor loses the apply, and answers again for the accept.
	e := lsptest.Start(t, root, lsptest.VSCode(), lsptest.ServerOptions(lsp.Options{ApplyEditTimeout: 200 * time.Millisecond}), lsptest.HoldEdits("apply reply"))
	e.OpenFile("a.go", "go")
	if err := e.ExecuteCommand("agentls.applyReply", map[string]any{"text": reply}); err != nil {
		t.Fatal(err)
	}
	e.Await(
		lsptest.ShownMessage("did not answer the edit", "kept as pending review"),
		lsptest.Diagnostics(lsptest.ForFile("a.go"), lsptest.WithCode("pending-edit")),
		lsptest.CancelledRequests(1),
		lsptest.BufferContent("a.go", files["a.go"]),
	)
	if err := e.ExecuteCommand("agentls.review.accept", map[string]any{"all": true}); err != nil {
		t.Fatal(err)
	}
	e.Await(lsptest.AppliedEdit("accept"), lsptest.FileContent("b.go", "package p\n\nvar c Settings\n"))
	if n := e.EditsApplied(); n != 1 {
		t.Errorf("%d edits applied, want the accept only", n)
	}
}

// TestApplyEditAnsweredLate: an editor that applies an edit after the
// server stopped waiting (and kept it as pending review) has the change
// twice over; the user is told to reject the pending copy.
func TestApplyEditAnsweredLate(t *testing.T) {
	t.Parallel()
	root := writeFiles(t, files)
	e := lsptest.Start(t, root, lsptest.VSCode(), lsptest.ServerOptions(lsp.Options{ApplyEditTimeout: 200 * time.Millisecond}), lsptest.HoldEdits())
	e.OpenFile("a.go", "go")
	if err := e.ExecuteCommand("agentls.applyReply", map[string]any{"text": reply}); err != nil {
		t.Fatal(err)
	}
	e.Await(lsptest.ShownMessage("kept as pending review"), lsptest.Diagnostics(lsptest.ForFile("a.go"), lsptest.WithCode("pending-edit")))
	e.AnswerHeldEdits()
	e.Await(
		lsptest.ShownMessage("after agentls stopped waiting", "reject the pending copy"),
		lsptest.BufferContent("a.go", "package p\n\n// Config holds settings.\ntype Settings struct{}\n"),
	)
}

// TestApplyEditUnansweredAgentTurn: in an agent turn, the model is told
// (the tool's error) that the editor did not answer, and the turn goes on.
func TestApplyEditUnansweredAgentTurn(t *testing.T) {
	t.Parallel()
	srv := modeltest.New(
		modeltest.Text("Renaming.\n```patch a.go\n<<<<<<< ORIGINAL\ntype Config struct{}\n=======\ntype Settings struct{}\n>>>>>>> UPDATED\n```\n\n", 9),
		modeltest.Text("The editor did not take it.", 9),
	)
	defer srv.Close()
	root := writeFiles(t, files)
	e := lsptest.Start(t, root, lsptest.Helix(), lsptest.InitOptions(map[string]any{"model": "test-model", "baseUrl": srv.URL}),
		lsptest.ServerOptions(lsp.Options{ApplyEditTimeout: 200 * time.Millisecond}), lsptest.HoldEdits())
	e.OpenFile("a.go", "go")
	if err := e.ExecuteCommand("agentls.ask", map[string]any{"prompt": "rename Config"}); err != nil {
		t.Fatal(err)
	}
	e.Await(lsptest.ShownMessage("agent turn 1 done"))
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model calls, want 2", len(reqs))
	}
	var told []string
	for _, m := range reqs[1].Body.Messages[1:] {
		told = append(told, m.Content)
	}
	if result := strings.Join(told, "\n"); !strings.Contains(result, "did not answer the edit") || !strings.Contains(result, "pending review") {
		t.Errorf("the model was told %q", result)
	}
}

// TestExitWhileApplyEditUnanswered: with an applyEdit outstanding and no
// timeout in sight, the server still ends at once on shutdown and exit,
// and when its client dies. (Two such servers were found alive after 15
// minutes.) The fake editor fails the test when the server is not gone
// within 10 s.
func TestExitWhileApplyEditUnanswered(t *testing.T) {
	t.Parallel()
	for _, end := range []string{"shutdown and exit", "client dies"} {
		t.Run(end, func(t *testing.T) {
			root := writeFiles(t, files)
			e := lsptest.Start(t, root, lsptest.Neovim07(), lsptest.ServerOptions(lsp.Options{ApplyEditTimeout: time.Hour}), lsptest.HoldEdits())
			if err := e.ExecuteCommand("agentls.applyReply", map[string]any{"text": reply}); err != nil {
				t.Fatal(err)
			}
			e.Await(lsptest.HeldEdits(1))
			if end == "client dies" {
				e.Die()
			} else {
				e.Shutdown()
			}
			if got := readFile(t, root, "b.go"); got != files["b.go"] {
				t.Errorf("b.go changed: %q", got)
			}
		})
	}
}

// TestBinaryEndsWithEditUnanswered runs agentls serve on stdio, as
// editors do, asks for an edit and never answers the server's
// workspace/applyEdit: the process still ends at once on shutdown and
// exit (code 0), and when the editor dies and its stdin closes (code 1).
// Such servers were found alive 15 minutes after their editor.
// Not in parallel: it waits under a deadline for processes to end, which
// other tests' servers on the same cores would slow.
func TestBinaryEndsWithEditUnanswered(t *testing.T) {
	if testing.Short() {
		t.Skip("builds agentls")
	}
	bin := buildAgentls(t)
	for _, tt := range []struct {
		end      string
		wantCode int
	}{{"shutdown and exit", 0}, {"stdin closed", 1}} {
		t.Run(tt.end, func(t *testing.T) {
			root := writeFiles(t, files)
			cmd := exec.Command(bin, "serve")
			cmd.Env = append(os.Environ(), "XDG_STATE_HOME="+t.TempDir(), "XDG_CONFIG_HOME="+t.TempDir())
			stdin, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			exited := make(chan struct{})
			go func() { cmd.Wait(); close(exited) }()
			t.Cleanup(func() {
				cmd.Process.Kill()
				<-exited
			})
			c := newRawClient(t, stdin, stdout)
			c.initialize(fmt.Sprintf(`{"processId":null,"rootUri":%q,"capabilities":{"workspace":{"applyEdit":true,"workspaceEdit":{"documentChanges":true}}}}`, uri.File(root)))
			c.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":"workspace/executeCommand","params":{"command":"agentls.applyReply","arguments":[{"text":%q}]}}`, reply))
			c.request("workspace/applyEdit") // never answered
			if tt.end == "stdin closed" {
				stdin.Close()
			} else {
				c.send(`{"jsonrpc":"2.0","id":3,"method":"shutdown"}`)
				c.responsesUntil("3")
				c.send(`{"jsonrpc":"2.0","method":"exit"}`)
			}
			select {
			case <-exited:
				if got := cmd.ProcessState.ExitCode(); got != tt.wantCode {
					t.Errorf("exit code %d, want %d", got, tt.wantCode)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("agentls serve is still running 10 s after " + tt.end)
			}
		})
	}
}
