package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/agentls/agentls/anchored"
	"github.com/agentls/agentls/edits"
	"github.com/agentls/agentls/tools/edittool"
)

const anchorsUsage = `usage: agentls anchors view FILE [--lines A:B] [--json]
       agentls anchors apply FILE < ops.json

view prints the file with an anchor before each line ("anchor│ text"), or as
JSON [{"line", "anchor", "text"}]. apply reads a JSON list of operations
{"anchor", "op": "replace|delete|insert_before|insert_after", "text",
"expected", "end", "end_expected"} and applies them all, or none (exit 1,
with fresh anchors around the affected lines).
Run 'agentls anchors view -h' or 'agentls anchors apply -h' for more.
`

const anchorsViewUsage = `usage: agentls anchors view FILE [--lines A:B] [--json]

Prints FILE with a short anchor before each line ("anchor│ text"), or with
--json as [{"line", "anchor", "text"}]. An anchor names its line by its
content and its neighbours: patch_anchored and 'agentls anchors apply' take it.`

const anchorsApplyUsage = `usage: agentls anchors apply FILE < ops.json

Reads a JSON list of operations on stdin,
  [{"anchor", "op": "replace|delete|insert_before|insert_after", "text",
    "expected", "end", "end_expected"}]
and applies them all to FILE, or none: a stale anchor or an expected text
that does not match writes nothing, exits 1 and prints fresh anchors around
the lines concerned.`

func runAnchors(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, "agentls anchors: give a subcommand: view FILE or apply FILE\n"+anchorsUsage)
		return exitUsage
	}
	switch args[0] {
	case "view":
		return runAnchorsView(args[1:], stdout, stderr)
	case "apply":
		return runAnchorsApply(ctx, args[1:], stdin, stdout, stderr)
	case "-h", "-help", "--help", "help":
		fmt.Fprint(stdout, anchorsUsage)
		return exitOK
	}
	fmt.Fprintf(stderr, "agentls anchors: unknown subcommand %q (view or apply)\n%s", args[0], anchorsUsage)
	return exitUsage
}

// oneFile is the FILE argument of an anchors subcommand, or a usage error.
func oneFile(fs *flag.FlagSet, positional []string, missing string, stderr io.Writer) (string, int, bool) {
	switch len(positional) {
	case 0:
		return "", usageError(fs, stderr, "%s", missing), false
	case 1:
		return positional[0], exitOK, true
	}
	return "", usageError(fs, stderr, "unexpected argument %q (give one FILE)", positional[1]), false
}

func runAnchorsView(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("anchors view", flag.ContinueOnError)
	lines := fs.String("lines", "", "only lines `A:B` (1-based, inclusive; A: or :B leave an end open)")
	asJSON := fs.Bool("json", false, "print [{\"line\", \"anchor\", \"text\"}]")
	positional, code, ok := parseFlagsAnywhere(fs, args, anchorsViewUsage, stderr)
	if !ok {
		return code
	}
	file, code, ok := oneFile(fs, positional, "give the FILE to view", stderr)
	if !ok {
		return code
	}
	from, to, err := parseLineRange(*lines)
	if err != nil {
		return usageError(fs, stderr, "%v", err)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		fmt.Fprintf(stderr, "agentls anchors view: %v\n", err)
		return exitFailed
	}
	if *asJSON {
		view, err := anchored.View(string(data), from, to, anchored.Options{})
		if err != nil {
			fmt.Fprintf(stderr, "agentls anchors view: %v\n", err)
			return exitFailed
		}
		if view == nil {
			view = []anchored.ViewLine{}
		}
		enc := json.NewEncoder(stdout)
		enc.SetEscapeHTML(false)
		enc.Encode(view)
		return exitOK
	}
	text, err := anchored.RenderText(string(data), from, to, anchored.Options{})
	if err != nil {
		fmt.Fprintf(stderr, "agentls anchors view: %v\n", err)
		return exitFailed
	}
	fmt.Fprint(stdout, text)
	return exitOK
}

func runAnchorsApply(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("anchors apply", flag.ContinueOnError)
	positional, code, ok := parseFlagsAnywhere(fs, args, anchorsApplyUsage, stderr)
	if !ok {
		return code
	}
	file, code, ok := oneFile(fs, positional, "give the FILE to apply the operations to (they are read from stdin)", stderr)
	if !ok {
		return code
	}
	noteReading(stdin, stderr, "anchors apply "+file, "the operations (JSON)")
	ops, err := io.ReadAll(stdin)
	if err != nil {
		fmt.Fprintf(stderr, "agentls anchors apply: reading the operations: %v\n", err)
		return exitFailed
	}
	abs, err := filepath.Abs(file)
	if err == nil {
		abs, err = filepath.EvalSymlinks(abs)
	}
	if err != nil {
		fmt.Fprintf(stderr, "agentls anchors apply: %v\n", err)
		return exitFailed
	}
	root := filepath.Dir(abs)
	batch := &edittool.Batch{Root: root, Source: edittool.DiskSource{Root: root}}
	msg, err := batch.PatchAnchored(ctx, filepath.Base(abs), string(ops))
	if err == nil {
		err = edits.ApplyToDisk(root, &batch.Changes)
	}
	if err != nil {
		fmt.Fprintf(stderr, "agentls anchors apply: %v\n", err)
		return exitFailed
	}
	fmt.Fprintln(stdout, msg)
	return exitOK
}

// parseLineRange reads "A:B", "A:", ":B" or "A".
func parseLineRange(s string) (int, int, error) {
	if s == "" {
		return 0, 0, nil
	}
	a, b, found := strings.Cut(s, ":")
	if !found {
		b = a
	}
	num := func(x string) (int, error) {
		if x == "" {
			return 0, nil
		}
		n, err := strconv.Atoi(x)
		if err != nil || n < 1 {
			return 0, fmt.Errorf("--lines %s: line numbers are whole numbers from 1", s)
		}
		return n, nil
	}
	from, err := num(a)
	if err != nil {
		return 0, 0, err
	}
	to, err := num(b)
	return from, to, err
}
