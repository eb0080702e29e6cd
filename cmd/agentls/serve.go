package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"syscall"

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
	listen := fs.String("listen", "", "serve LSP on `addr` instead of stdio: unix:PATH (a socket only you can use), or 127.0.0.1:PORT (a client must send the token the server writes at start)")
	anyInterface := fs.Bool(anyInterfaceFlag, false, "let --listen take an address other machines can reach (:PORT, 0.0.0.0:PORT); a client must still send the token")
	logFile := fs.String("log", "", "write the log to `file` instead of stderr")
	// Many clients pass --stdio by convention (vscode-languageclient's
	// TransportKind.stdio does): it is the default, so it is accepted.
	fs.Bool("stdio", true, "serve on stdio (the default; accepted because many clients pass it)")
	if code, ok := parseFlags(fs, args, "usage: agentls [serve] [--stdio] [--listen ADDR] [--"+anyInterfaceFlag+"] [--log FILE]\n\nRuns the language server, on stdio unless --listen is given.", stderr); !ok {
		return code
	}
	if fs.NArg() > 0 {
		return usageError(fs, stderr, "unexpected argument %q", fs.Arg(0))
	}
	var target listenTarget
	if *listen != "" {
		var err error
		if target, err = parseListen(*listen, *anyInterface); err != nil {
			fmt.Fprintf(stderr, "agentls serve: %v\n", err)
			return exitUsage
		}
	} else if *anyInterface {
		return usageError(fs, stderr, "--%s goes with --listen", anyInterfaceFlag)
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
	return serveListen(ctx, target, opts, os.Getenv, stderr)
}

// serveListen serves every client that connects to target, each with its
// own server, until ctx ends: on a Unix socket, the user's own processes
// only; on TCP, clients that present the token it writes to a file only
// the user can read (listen.go).
func serveListen(ctx context.Context, target listenTarget, opts lsp.Options, getenv func(string) string, stderr io.Writer) int {
	// main stops on Ctrl-C; a service manager's SIGTERM must as cleanly
	// remove the socket and the token file.
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGTERM)
	defer stop()
	var ln net.Listener
	switch target.network {
	case "unix":
		u, err := listenUnix(target.address)
		if err != nil {
			fmt.Fprintf(stderr, "agentls serve: %v\n", err)
			return exitUsage
		}
		u.refused = func(err error) { opts.Log.Warn("refused a connection", "why", err) }
		ln = u
		fmt.Fprintf(stderr, "agentls serve: listening on unix:%s (mode 0600: your user only)\n", target.address)
		opts.Log.Info("listening", "addr", "unix:"+target.address, "mode", "0600, this user only")
	default:
		t, err := net.Listen("tcp", target.address)
		if err != nil {
			fmt.Fprintf(stderr, "agentls serve: %v\n", err)
			return exitUsage
		}
		ln = t
		path, token, err := tokenFile(getenv, t.Addr().(*net.TCPAddr).Port)
		if err != nil {
			ln.Close()
			fmt.Fprintf(stderr, "agentls serve: %v\n", err)
			return exitFailed
		}
		defer removeTokenFile(path, token)
		opts.Token = token
		fmt.Fprintf(stderr, "agentls serve: listening on %s; a client's first message must be initialize with initializationOptions.%s set to the token in %s (a new one each start)\n", t.Addr(), lsp.TokenOption, path)
		opts.Log.Info("listening", "addr", t.Addr().String(), "token", path,
			"how", "a client's first message must be initialize with initializationOptions."+lsp.TokenOption+" set to the token in that file")
	}
	defer ln.Close()
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
