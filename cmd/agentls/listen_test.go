package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/agent/modeltest"
)

// listening is what a started `agentls serve --listen` says in its log.
type listening struct {
	addr      string // where it listens
	tokenFile string // "" on a Unix socket
}

var (
	listenAddr  = regexp.MustCompile(`msg=listening .*addr=(\S+)`)
	listenToken = regexp.MustCompile(`token=(\S+)`)
)

// startServe runs `agentls serve ARGS` in-process until the test ends
// and returns where it listens, read from its log on stderr.
func startServe(t *testing.T, args ...string) listening {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	r, w := io.Pipe()
	done := make(chan int, 1)
	go func() {
		done <- runServe(ctx, args, strings.NewReader(""), io.Discard, w)
		w.Close()
	}()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	lines := bufio.NewScanner(r)
	for lines.Scan() {
		line := lines.Text()
		m := listenAddr.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		go io.Copy(io.Discard, r)
		l := listening{addr: strings.Trim(m[1], `"`)}
		if m := listenToken.FindStringSubmatch(line); m != nil {
			l.tokenFile, _ = strconv.Unquote(m[1])
			if l.tokenFile == "" {
				l.tokenFile = m[1]
			}
		}
		return l
	}
	t.Fatalf("agentls serve %q ended without listening (exit %d)", args, <-done)
	return listening{}
}

// lspClient is a raw LSP connection, as an attacker or an editor has.
type lspClient struct {
	t    *testing.T
	conn net.Conn
	in   *bufio.Reader
}

func dialLSP(t *testing.T, network, addr string) *lspClient {
	t.Helper()
	conn, err := net.Dial(network, addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	// A bound for a server that never answers (today's, to a refused
	// client), not a synchronisation: every read waits for a frame.
	conn.SetDeadline(time.Now().Add(20 * time.Second))
	return &lspClient{t: t, conn: conn, in: bufio.NewReader(conn)}
}

func (c *lspClient) send(v any) {
	c.t.Helper()
	if _, err := c.conn.Write(frame(v)); err != nil {
		c.t.Logf("send: %v", err) // a refused client's writes may fail
	}
}

// next reads the next frame; nil at the stream's end.
func (c *lspClient) next() map[string]any {
	c.t.Helper()
	n := -1
	for {
		line, err := c.in.ReadString('\n')
		if err != nil {
			if line != "" {
				c.t.Errorf("the server wrote %q, which is not a frame", line)
			}
			return nil
		}
		line = strings.TrimSpace(line)
		if line == "" {
			break
		}
		if v, ok := strings.CutPrefix(line, "Content-Length: "); ok {
			n, _ = strconv.Atoi(v)
		}
	}
	body := make([]byte, n)
	if _, err := io.ReadFull(c.in, body); err != nil {
		c.t.Fatalf("read a %d-byte body: %v", n, err)
	}
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil {
		c.t.Fatalf("frame %q: %v", body, err)
	}
	return m
}

// answer reads until the response to id, skipping what the server sends
// meanwhile; nil if the stream ends first.
func (c *lspClient) answer(id float64) map[string]any {
	c.t.Helper()
	for {
		m := c.next()
		if m == nil {
			return nil
		}
		if got, ok := m["id"].(float64); ok && got == id && m["method"] == nil {
			return m
		}
	}
}

func initializeMsg(id int, root string, options map[string]any) map[string]any {
	return map[string]any{"jsonrpc": "2.0", "id": id, "method": "initialize", "params": map[string]any{
		"rootUri": "file://" + root, "capabilities": map[string]any{}, "initializationOptions": options}}
}

func errorText(m map[string]any) string {
	e, _ := m["error"].(map[string]any)
	s, _ := e["message"].(string)
	return s
}

// TestServeListenAttacks is issue 24's attack on `agentls serve --listen`:
// another local user connected to the port, sent its own "editor
// settings" (approvalPolicy allow, its own baseUrl, the victim's key by
// name), and asked; its model's shell block ran as the victim and its
// server got the victim's key. Now a TCP client must first present the
// token the server wrote to a 0600 file in the state folder; one that
// does not is refused before a setting of it is read, and nothing runs.
func TestServeListenAttacks(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	t.Setenv("AGENTLS_TEST_VICTIM_KEY", "sk-victim")
	root := t.TempDir()
	model := modeltest.New(modeltest.Text("```shell\ntouch pwned\n```\n", 1))
	defer model.Close()
	hostile := map[string]any{
		"approvalPolicy": "allow", "baseUrl": model.URL, "apiKeyEnv": "AGENTLS_TEST_VICTIM_KEY", "model": "x",
		"commandAllowlist": []string{"touch"},
	}
	srv := startServe(t, "--listen", "127.0.0.1:0")

	// attack sends the hostile settings and asks, as the attacker did,
	// with the token given (nil: none) and says how the server answered.
	attack := func(t *testing.T, token any) {
		t.Helper()
		c := dialLSP(t, "tcp", srv.addr)
		opts := map[string]any{}
		for k, v := range hostile {
			opts[k] = v
		}
		if token != nil {
			opts["agentlsToken"] = token
		}
		c.send(initializeMsg(1, root, opts))
		c.send(map[string]any{"jsonrpc": "2.0", "method": "initialized", "params": map[string]any{}})
		c.send(map[string]any{"jsonrpc": "2.0", "id": 2, "method": "workspace/executeCommand", "params": map[string]any{
			"command": "agentls.ask", "arguments": []any{map[string]any{"prompt": "run it"}}}})
		got := c.answer(1)
		if !strings.Contains(errorText(got), "refused") || !strings.Contains(errorText(got), "agentlsToken") {
			t.Errorf("initialize without the right token answered %v; want a refusal naming agentlsToken", got)
		}
		if m := c.next(); m != nil {
			t.Errorf("after the refusal the server still sent %v; want the connection closed", m)
		}
	}
	t.Run("no token", func(t *testing.T) { attack(t, nil) })
	t.Run("a wrong token", func(t *testing.T) { attack(t, "0123456789abcdef") })
	t.Run("the token file's name", func(t *testing.T) { attack(t, srv.tokenFile) })
	if n := len(model.Requests()); n != 0 {
		t.Errorf("the attacker's model server got %d requests", n)
	}
	if _, err := os.Stat(filepath.Join(root, "pwned")); err == nil {
		t.Error("the attacker's shell block ran")
	}

	t.Run("an HTTP request is dropped, not answered", func(t *testing.T) {
		c := dialLSP(t, "tcp", srv.addr)
		body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}}`
		fmt.Fprintf(c.conn, "POST /x:y HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", srv.addr, len(body), body)
		rest, _ := io.ReadAll(c.in)
		if len(rest) != 0 {
			t.Errorf("the server answered an HTTP request with %q", rest)
		}
	})

	t.Run("the token file is the user's only", func(t *testing.T) {
		fi, err := os.Stat(srv.tokenFile)
		if err != nil {
			t.Fatalf("the log names no token file (%q): %v", srv.tokenFile, err)
		}
		if fi.Mode().Perm() != 0o600 {
			t.Errorf("%s has mode %v, want 0600", srv.tokenFile, fi.Mode().Perm())
		}
	})

	t.Run("the editor with the token is served", func(t *testing.T) {
		token, err := os.ReadFile(srv.tokenFile)
		if err != nil {
			t.Fatal(err)
		}
		c := dialLSP(t, "tcp", srv.addr)
		c.send(initializeMsg(1, root, map[string]any{"agentlsToken": strings.TrimSpace(string(token)), "model": "m"}))
		got := c.answer(1)
		if _, ok := got["result"].(map[string]any)["capabilities"]; !ok {
			t.Fatalf("initialize with the token: %v", got)
		}
		c.send(map[string]any{"jsonrpc": "2.0", "method": "initialized", "params": map[string]any{}})
		c.send(map[string]any{"jsonrpc": "2.0", "id": 2, "method": "shutdown"})
		if got := c.answer(2); got == nil || got["error"] != nil {
			t.Errorf("shutdown: %v", got)
		}
		c.send(map[string]any{"jsonrpc": "2.0", "method": "exit"})
		// Everything up to the stream's end, as exit closes it.
		for m := c.next(); m != nil; m = c.next() {
			// A settings problem would say "agentlsToken: unknown setting".
			if text, _ := m["params"].(map[string]any)["message"].(string); strings.Contains(text, "agentlsToken") {
				t.Errorf("the token reached the settings: %q", text)
			}
		}
	})
}

// TestServeListenAddresses: TCP listens on this machine only, unless a
// loudly named flag says otherwise (and then the token is still asked).
func TestServeListenAddresses(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	for _, addr := range []string{":0", "0.0.0.0:0", "[::]:0", "example.com:7658", "192.0.2.1:7658"} {
		t.Run(addr, func(t *testing.T) {
			// The bound ends a server that took the address (today's).
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			var stderr strings.Builder
			code := runServe(ctx, []string{"--listen", addr}, strings.NewReader(""), io.Discard, &stderr)
			if code != exitUsage || !strings.Contains(stderr.String(), "--listen-insecure-any-interface") {
				t.Errorf("--listen %s: exit %d, stderr %q; want it refused, naming the flag", addr, code, stderr.String())
			}
		})
	}
	t.Run("every interface, asked for loudly, still needs the token", func(t *testing.T) {
		srv := startServe(t, "--listen", "0.0.0.0:0", "--listen-insecure-any-interface")
		if srv.tokenFile == "" {
			t.Fatal("no token file")
		}
		_, port, _ := net.SplitHostPort(srv.addr)
		c := dialLSP(t, "tcp", net.JoinHostPort("127.0.0.1", port))
		c.send(initializeMsg(1, t.TempDir(), map[string]any{}))
		if got := c.answer(1); !strings.Contains(errorText(got), "refused") {
			t.Errorf("initialize without the token: %v", got)
		}
	})
	t.Run("localhost", func(t *testing.T) {
		srv := startServe(t, "--listen", "localhost:0")
		if host, _, _ := net.SplitHostPort(srv.addr); !net.ParseIP(host).IsLoopback() {
			t.Errorf("localhost:0 listens on %s", srv.addr)
		}
	})
}

// TestServeListenUnix: a Unix socket is the user's alone — mode 0600 from
// the start, each peer's uid checked — and serves that user's editor
// without a token. A path that is not a stale socket of ours is left
// alone.
func TestServeListenUnix(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	dir := t.TempDir()
	sock := filepath.Join(dir, "agentls.sock")
	srv := startServe(t, "--listen", "unix:"+sock)
	if srv.addr != "unix:"+sock || srv.tokenFile != "" {
		t.Fatalf("listening %+v", srv)
	}
	fi, err := os.Lstat(sock)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Type() != os.ModeSocket || fi.Mode().Perm() != 0o600 {
		t.Errorf("the socket's mode is %v, want a socket with 0600", fi.Mode())
	}
	c := dialLSP(t, "unix", sock)
	c.send(initializeMsg(1, t.TempDir(), map[string]any{}))
	if got := c.answer(1); got["result"] == nil {
		t.Errorf("initialize from this user: %v", got)
	}

	t.Run("another user is refused", func(t *testing.T) {
		ln, err := listenUnix(filepath.Join(t.TempDir(), "s"))
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		ln.uid = os.Getuid() + 1 // as if another user started it: we are the other user
		refused := make(chan error, 1)
		ln.refused = func(err error) { refused <- err }
		go ln.Accept()
		c := dialLSP(t, "unix", ln.path)
		c.send(initializeMsg(1, t.TempDir(), map[string]any{"approvalPolicy": "allow"}))
		line, _ := c.in.ReadString('\n')
		if !strings.HasPrefix(line, "agentls: refused: this server answers only uid") {
			t.Errorf("the refused peer read %q", line)
		}
		if rest, _ := io.ReadAll(c.in); len(rest) != 0 {
			t.Errorf("then %q", rest)
		}
		if err := <-refused; !strings.Contains(err.Error(), fmt.Sprintf("uid %d connected", os.Getuid())) {
			t.Errorf("logged %v", err)
		}
	})

	for _, tc := range []struct {
		name    string
		setup   func(path string)
		wantErr string
	}{
		{"a file", func(path string) { os.WriteFile(path, []byte("keep me"), 0o600) }, "is not a socket"},
		{"a symlink", func(path string) { os.Symlink(filepath.Join(dir, "elsewhere"), path) }, "is not a socket"},
		{"a live socket", func(path string) {
			ln, err := listenUnix(path)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { ln.Close() })
		}, "already listens there"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "s")
			tc.setup(path)
			before, _ := os.Lstat(path)
			var stderr strings.Builder
			code := runServe(context.Background(), []string{"--listen", "unix:" + path}, strings.NewReader(""), io.Discard, &stderr)
			if code != exitUsage || !strings.Contains(stderr.String(), tc.wantErr) {
				t.Errorf("exit %d, stderr %q; want %q", code, stderr.String(), tc.wantErr)
			}
			if after, err := os.Lstat(path); err != nil || !os.SameFile(before, after) {
				t.Errorf("the path was replaced (%v)", err)
			}
		})
	}

	t.Run("a stale socket is replaced", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "s")
		stale, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
		if err != nil {
			t.Fatal(err)
		}
		stale.SetUnlinkOnClose(false)
		stale.Close() // a server that died: the socket file stays
		ln, err := listenUnix(path)
		if err != nil {
			t.Fatalf("over a stale socket: %v", err)
		}
		ln.Close()
		if _, err := os.Lstat(path); err == nil {
			t.Error("Close left the socket")
		}
	})
}
