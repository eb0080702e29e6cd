package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"

	"github.com/agentls/agentls/lsp"
)

// stdio is the server's stream: the process's stdin and the real stdout.
type stdio struct {
	in  io.Reader
	out io.Writer
}

func (s stdio) Read(p []byte) (int, error)  { return s.in.Read(p) }
func (s stdio) Write(p []byte) (int, error) { return s.out.Write(p) }
func (s stdio) Close() error                { return nil }

func runServe(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	listen := fs.String("listen", "", "serve LSP on TCP `addr` (host:port) instead of stdio")
	logFile := fs.String("log", "", "write the log to `file` instead of stderr")
	// Many clients pass --stdio by convention (vscode-languageclient's
	// TransportKind.stdio does): it is the default, so it is accepted.
	fs.Bool("stdio", true, "serve on stdio (the default; accepted because many clients pass it)")
	if code, ok := parseFlags(fs, args, "usage: agentls [serve] [--stdio] [--listen ADDR] [--log FILE]\n\nRuns the language server, on stdio unless --listen is given.", stderr); !ok {
		return code
	}
	if fs.NArg() > 0 {
		return usageError(fs, stderr, "unexpected argument %q", fs.Arg(0))
	}
	logOut := stderr
	if *logFile != "" {
		f, err := openLog(*logFile)
		if err != nil {
			fmt.Fprintf(stderr, "agentls serve: %v\n", err)
			return exitUsage
		}
		defer f.Close()
		logOut = f
	}
	redacted := newRedactingWriter(logOut, os.Environ(), os.Getenv)
	opts := lsp.Options{Log: slog.New(slog.NewTextHandler(redacted, nil)), Version: version()}

	if *listen == "" {
		if notice := serveNotice(isTerminal(stdin), *listen); notice != "" {
			fmt.Fprintln(stderr, notice)
		}
		clean, err := lsp.Serve(ctx, stdio{in: stdin, out: stdout}, opts)
		return serveExit(clean, err, stderr)
	}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		fmt.Fprintf(stderr, "agentls serve: %v\n", err)
		return exitUsage
	}
	defer ln.Close()
	opts.Log.Info("listening", "addr", ln.Addr().String())
	go func() { <-ctx.Done(); ln.Close() }()
	for {
		conn, err := ln.Accept()
		if err != nil {
			if ctx.Err() != nil {
				return exitOK
			}
			fmt.Fprintf(stderr, "agentls serve: %v\n", err)
			return exitFailed
		}
		go func() {
			defer conn.Close()
			if _, err := lsp.Serve(ctx, conn, opts); err != nil {
				opts.Log.Warn("connection ended", "err", err)
			}
		}()
	}
}

// serveExit is the exit code: 0 after shutdown then exit, 1 otherwise (the
// client died or closed the stream first), as LSP asks.
func serveExit(clean bool, err error, stderr io.Writer) int {
	if err != nil {
		fmt.Fprintf(stderr, "agentls serve: %v\n", err)
	}
	if clean {
		return exitOK
	}
	return exitFailed
}

// serveNotice is what bare `agentls` says when a person, not an editor,
// started it: stdin is a terminal and the server would otherwise wait
// there in silence for LSP frames. With --listen it serves on TCP and says
// where in its log; on a pipe, stderr is an editor's log and stays quiet.
func serveNotice(stdinIsTerminal bool, listen string) string {
	if !stdinIsTerminal || listen != "" {
		return ""
	}
	return "agentls: a language server, waiting for an LSP client on stdin (an editor starts it); press Ctrl-D or Ctrl-C to stop. Try `agentls help` for the commands, or `agentls demo` to see it work."
}
