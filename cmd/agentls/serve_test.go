package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"
)

func frame(v any) []byte {
	body, _ := json.Marshal(v)
	return append([]byte(fmt.Sprintf("Content-Length: %d\r\n\r\n", len(body))), body...)
}

// readFrames parses stdout as LSP frames and fails on anything else: the
// server's stdout must carry only the protocol.
func readFrames(t *testing.T, out []byte) []map[string]any {
	t.Helper()
	var msgs []map[string]any
	r := bufio.NewReader(bytes.NewReader(out))
	for {
		line, err := r.ReadString('\n')
		if errors.Is(err, io.EOF) && line == "" {
			return msgs
		}
		n, perr := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(line, "Content-Length:")))
		if !strings.HasPrefix(line, "Content-Length:") || perr != nil {
			t.Fatalf("stdout has a non-protocol line %q in:\n%s", line, out)
		}
		if blank, _ := r.ReadString('\n'); blank != "\r\n" {
			t.Fatalf("bad header end %q", blank)
		}
		body := make([]byte, n)
		if _, err := io.ReadFull(r, body); err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(body, &m); err != nil {
			t.Fatalf("frame is not JSON: %s", body)
		}
		msgs = append(msgs, m)
	}
}

// TestServeBinary runs the built server over real stdio.
func TestServeBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := filepath.Join(t.TempDir(), "agentls")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	root := t.TempDir()

	t.Run("lifecycle and stdout hygiene", func(t *testing.T) {
		var in bytes.Buffer
		in.Write(frame(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "shutdown"})) // before initialize
		in.Write(frame(map[string]any{"jsonrpc": "2.0", "id": 2, "method": "initialize", "params": map[string]any{"rootUri": "file://" + root, "capabilities": map[string]any{}}}))
		in.Write(frame(map[string]any{"jsonrpc": "2.0", "method": "initialized", "params": map[string]any{}}))
		in.Write(frame(map[string]any{"jsonrpc": "2.0", "id": 3, "method": "textDocument/hover", "params": map[string]any{}}))
		in.Write(frame(map[string]any{"jsonrpc": "2.0", "id": 4, "method": "shutdown"}))
		in.Write(frame(map[string]any{"jsonrpc": "2.0", "id": 5, "method": "initialize", "params": map[string]any{}})) // after shutdown
		in.Write(frame(map[string]any{"jsonrpc": "2.0", "method": "exit"}))
		// Flags alone are serve's, as editors are configured; --stdio,
		// which many clients pass, is the default.
		logFile := filepath.Join(t.TempDir(), "agentls.log")
		cmd := exec.Command(bin, "--stdio", "--log", logFile)
		cmd.Stdin = &in
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("exit after shutdown: %v\nstderr: %s", err, stderr.String())
		}
		if log, err := os.ReadFile(logFile); err != nil || len(log) == 0 || stderr.Len() != 0 {
			t.Errorf("--log: file %q (%v), stderr %q", log, err, stderr.String())
		}
		byID := map[float64]map[string]any{}
		for _, m := range readFrames(t, stdout.Bytes()) {
			if id, ok := m["id"].(float64); ok {
				byID[id] = m
			}
		}
		code := func(id float64) float64 {
			e, _ := byID[id]["error"].(map[string]any)
			c, _ := e["code"].(float64)
			return c
		}
		if code(1) != -32002 {
			t.Errorf("shutdown before initialize: %v", byID[1])
		}
		caps, _ := byID[2]["result"].(map[string]any)["capabilities"].(map[string]any)
		if caps["positionEncoding"] != "utf-16" {
			t.Errorf("initialize: %v", byID[2])
		}
		if code(3) != -32601 {
			t.Errorf("unknown method: %v", byID[3])
		}
		if _, ok := byID[4]["result"]; !ok || code(4) != 0 {
			t.Errorf("shutdown: %v", byID[4])
		}
		if code(5) != -32600 {
			t.Errorf("request after shutdown: %v", byID[5])
		}
	})

	// A person who runs agentls, or a command that reads stdin, in a
	// terminal is told what it waits for; Ctrl-D ends it.
	for _, tc := range []struct {
		args   []string
		notice string
		code   int
	}{
		{nil, "agentls: a language server, waiting for an LSP client on stdin", 1},
		{[]string{"parse"}, "agentls parse: reading the reply from the terminal; end it with Ctrl-D", 0},
	} {
		t.Run(fmt.Sprintf("a terminal on stdin: agentls %q", tc.args), func(t *testing.T) {
			ptmx, tty, err := pty.Open()
			if err != nil {
				t.Skipf("no pseudo-terminal here: %v", err)
			}
			defer ptmx.Close()
			cmd := exec.Command(bin, tc.args...)
			cmd.Stdin = tty
			var stdout bytes.Buffer
			cmd.Stdout = &stdout
			stderr, _ := cmd.StderrPipe()
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			tty.Close()
			first := make(chan string, 1)
			go func() {
				line, _ := bufio.NewReader(stderr).ReadString('\n')
				first <- line
				io.Copy(io.Discard, stderr)
			}()
			select {
			case line := <-first:
				if !strings.HasPrefix(line, tc.notice) {
					t.Errorf("stderr begins %q, want %q", line, tc.notice)
				}
			case <-time.After(10 * time.Second):
				cmd.Process.Kill()
				t.Fatal("nothing on stderr")
			}
			ptmx.Write([]byte{4}) // Ctrl-D: the end of the terminal's input
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case err := <-done:
				code := 0
				var exit *exec.ExitError
				if errors.As(err, &exit) {
					code = exit.ExitCode()
				} else if err != nil {
					t.Fatal(err)
				}
				if code != tc.code {
					t.Errorf("exit %d after Ctrl-D, want %d", code, tc.code)
				}
			case <-time.After(10 * time.Second):
				cmd.Process.Kill()
				t.Fatal("Ctrl-D did not end it")
			}
		})
	}

	t.Run("exits when stdin closes", func(t *testing.T) {
		cmd := exec.Command(bin, "serve")
		stdin, _ := cmd.StdinPipe()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		stdin.Write(frame(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": map[string]any{"capabilities": map[string]any{}}}))
		stdin.Close()
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() != 1 {
				t.Errorf("exit without shutdown: %v, want code 1", err)
			}
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			t.Fatal("the server did not exit when stdin closed")
		}
	})
}
