package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"

	"github.com/agentls/agentls/tools"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	args := os.Args[1:]
	stdout := io.Writer(os.Stdout)
	if len(args) == 0 || args[0] == "serve" || args[0] == "acp" {
		// The server's stdout carries only the protocol: anything else that
		// prints goes to stderr.
		stdout = os.Stdout
		os.Stdout = os.Stderr
	}
	code := run(ctx, args, os.Stdin, stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// Exit codes, the same for every subcommand.
const (
	exitOK     = 0 // done
	exitFailed = 1 // refused or failed, with nothing changed
	exitUsage  = 2 // bad command line
)

// A command is one subcommand of agentls.
type command struct {
	name    string
	summary string
	run     func(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int
}

func commands() []command {
	return []command{
		{"acp", "run as an ACP agent on stdio, for editors' agent panels (Zed, JetBrains, Neovim, Emacs)", runAcp},
		{"anchors", "view a file with line anchors, or apply anchored operations to it", runAnchors},
		{"apply", "apply the edits in a model reply read from stdin to the files, all or nothing", runApply},
		{"ask", "run one agent turn from the terminal against the files (needs a model)", runAsk},
		{"demo", "a scripted agent turn with a fake model in a temporary workspace (no key, no network)", runDemo},
		{"mcp", "list the MCP servers of the mcpServers setting and their tools (mcp list)", runMCP},
		{"parse", "print the tool uses (or fenced blocks) in a model reply read from stdin, as JSON", runParse},
		{"policy", "print whether a command line would run, need approval, or be refused (JSON)", runPolicy},
		{"serve", "run the language server (the default): on stdio, or --listen ADDR", runServe},
		{"tools", "list the tools an agent turn offers the model, or with --all every tool and why one is not offered", runTools},
		{"trust", "trust a workspace's .agentls/settings.json as it is now (its keys that decide what runs apply)", runTrust},
		{"version", "print the version", runVersion},
	}
}

// run executes the command line args and returns the exit code.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		return runServe(ctx, nil, stdin, stdout, stderr)
	}
	switch args[0] {
	case "help", "-h", "-help", "--help":
		if len(args) > 1 && args[0] == "help" {
			// `agentls help ask` is `agentls ask -h`.
			return run(ctx, []string{args[1], "-h"}, stdin, stdout, stderr)
		}
		usage(stdout)
		return exitOK
	case "--version", "-version", "-v", "-V":
		// What people type first to check an install; not a serve flag.
		return runVersion(ctx, args[1:], stdin, stdout, stderr)
	}
	if strings.HasPrefix(args[0], "-") {
		// Flags with no command are serve's: editors are configured with
		// `agentls --log FILE`.
		return runServe(ctx, args, stdin, stdout, stderr)
	}
	for _, c := range commands() {
		if c.name == args[0] {
			return c.run(ctx, args[1:], stdin, stdout, stderr)
		}
	}
	fmt.Fprintf(stderr, "agentls: unknown command %q\n\n", args[0])
	usage(stderr)
	return exitUsage
}

func usage(w io.Writer) {
	fmt.Fprintf(w, "agentls: a coding agent's tools in any editor, over LSP.\n\nUsage: agentls [command] [flags] (no command: serve)\n\nCommands:\n")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-10s %s\n", c.name, c.summary)
	}
	fmt.Fprintf(w, "\nRun 'agentls <command> -h' (or 'agentls help <command>') for a command's flags,\n'agentls demo' to see an agent turn with no model to set up.\n")
}

// parseFlags gives a subcommand its usage text (the flags are listed
// after it) and parses its flags; when ok is false the command ends with
// code: 0 after -h, 2 after a bad flag, which is named first in one line
// ("agentls ask: flag provided but not defined: -x").
func parseFlags(fs *flag.FlagSet, args []string, usage string, stderr io.Writer) (code int, ok bool) {
	fs.Usage = func() {
		out := fs.Output()
		fmt.Fprint(out, usage+"\n")
		hasFlags := false
		fs.VisitAll(func(*flag.Flag) { hasFlags = true })
		if hasFlags {
			fmt.Fprint(out, "\nFlags:\n")
			fs.PrintDefaults()
		}
	}
	// The flag package prints its error and the usage itself while it
	// parses; they are printed here instead, the error with the command's
	// name.
	fs.SetOutput(io.Discard)
	err := fs.Parse(args)
	fs.SetOutput(stderr)
	switch {
	case errors.Is(err, flag.ErrHelp):
		fs.Usage()
		return exitOK, false
	case err != nil:
		return usageError(fs, stderr, "%v", err), false
	}
	return exitOK, true
}

// parseFlagsAnywhere is parseFlags for a command whose arguments may come
// before, between or after its flags (`anchors view --json FILE` and
// `anchors view FILE --json` both work); it returns the arguments. After
// "--" everything is an argument.
func parseFlagsAnywhere(fs *flag.FlagSet, args []string, usage string, stderr io.Writer) (positional []string, code int, ok bool) {
	for {
		if code, ok := parseFlags(fs, args, usage, stderr); !ok {
			return nil, code, false
		}
		rest := fs.Args()
		if consumed := len(args) - len(rest); consumed > 0 && args[consumed-1] == "--" {
			return append(positional, rest...), exitOK, true
		}
		if len(rest) == 0 {
			return positional, exitOK, true
		}
		positional = append(positional, rest[0])
		args = rest[1:]
	}
}

// readingNotice is what a command that reads its input on stdin says when
// that is a terminal: a person typed the command without `< FILE`, and it
// would otherwise seem to hang.
func readingNotice(stdinIsTerminal bool, command, what string) string {
	if !stdinIsTerminal {
		return ""
	}
	return fmt.Sprintf("agentls %s: reading %s from the terminal; end it with Ctrl-D (or give it as a file: agentls %s < FILE)", command, what, command)
}

// noteReading prints readingNotice for stdin on stderr.
func noteReading(stdin io.Reader, stderr io.Writer, command, what string) {
	if notice := readingNotice(isTerminal(stdin), command, what); notice != "" {
		fmt.Fprintln(stderr, notice)
	}
}

// usageError tells stderr what was wrong with the command line, in one
// line, then the command's usage, and returns the usage exit code.
func usageError(fs *flag.FlagSet, stderr io.Writer, format string, a ...any) int {
	fmt.Fprintf(stderr, "agentls %s: %s\n", fs.Name(), fmt.Sprintf(format, a...))
	fs.Usage()
	return exitUsage
}

// parseReplyFlags parses the flags of a command that reads a reply on
// stdin, and its --format (whose value *format points at once parsed). ok
// is false when the command must stop with code: after -h (0) or a usage
// error (2, with the usage printed).
func parseReplyFlags(fs *flag.FlagSet, args []string, format *string, usage string, stderr io.Writer) (f tools.Format, code int, ok bool) {
	if code, ok := parseFlags(fs, args, usage, stderr); !ok {
		return "", code, false
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "agentls %s: unexpected argument %q (the reply is read from stdin)\n", fs.Name(), fs.Arg(0))
		fs.Usage()
		return "", exitUsage, false
	}
	f, err := tools.ParseFormat(*format)
	if err != nil {
		fmt.Fprintf(stderr, "agentls %s: %v\n", fs.Name(), err)
		fs.Usage()
		return "", exitUsage, false
	}
	return f, exitOK, true
}
