package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/agentls/agentls/acp"
)

// runAcp runs agentls as an Agent Client Protocol agent on stdio, for
// editors that host agents in a panel (Zed, the JetBrains IDEs, Neovim's
// and Emacs's agent plugins).
func runAcp(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("acp", flag.ContinueOnError)
	if code, ok := parseFlags(fs, args, "usage: agentls acp\n\n"+
		"Runs agentls as an ACP (Agent Client Protocol v1) agent on stdin and stdout, for\n"+
		"an editor that starts it: each session works in the folder the editor names,\n"+
		"with the settings agentls ask reads there (the workspace file's keys that decide\n"+
		"what runs only once you trusted it: agentls trust); the editor's MCP servers are\n"+
		"added, its buffers read and written when it offers them, and every command or\n"+
		"edit that needs approval is asked in the editor. Messages go to stderr.", stderr); !ok {
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "agentls acp: unexpected argument %q\n", fs.Arg(0))
		return exitUsage
	}
	if err := acp.Serve(ctx, acp.Options{Getenv: os.Getenv, Version: version(), Log: stderr}, stdin, stdout); err != nil && ctx.Err() == nil {
		fmt.Fprintf(stderr, "agentls acp: %v\n", err)
		return exitFailed
	}
	return exitOK
}
