// Command agenteval runs agentls against a real model on a suite of small
// tasks and reports how many it solved, how many of the model's replies
// called tools in a form agentls reads, and what the turns cost:
//
//	go run ./cmd/agenteval --base-url http://127.0.0.1:8765/v1 --model M
//
// It runs only when invoked (it needs a model); its own test drives it
// against the fake model server.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"time"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

const usage = `usage: agenteval --base-url URL --model M [--format markdown|xml|tool] [--runs N]
       [--tasks GLOB] [--dir DIR] [--agentls PATH] [--timeout D] [--max-steps N] [--json FILE] [--keep]

Runs one agentls ask turn per task and run, each in a fresh copy of the
task's files/, then the task's check.sh, and prints a table per task and in
total. Exit 0 when every run was measured (solved or not), 1 on a runner
error, 2 on usage errors.
`

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("agenteval", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, usage); fs.PrintDefaults() }
	baseURL := fs.String("base-url", "", "the OpenAI-compatible API `url` (required)")
	model := fs.String("model", "", "the `model` name (required)")
	format := fs.String("format", "markdown", "tool-call `syntax`: markdown, xml or tool")
	runs := fs.Int("runs", 1, "run each task `n` times")
	glob := fs.String("tasks", "", "only the tasks whose folder name matches `glob`")
	dir := fs.String("dir", "", "the task suite `folder` (default: cmd/agenteval/tasks, or tasks beside it)")
	bin := fs.String("agentls", "", "the agentls `binary` (default: built from ./cmd/agentls)")
	timeout := fs.Duration("timeout", 5*time.Minute, "per-turn `limit`")
	maxSteps := fs.Int("max-steps", 6, "model calls per turn")
	jsonOut := fs.String("json", "", "also write the results as JSON to `file`")
	keep := fs.Bool("keep", false, "keep the workspaces, state and turn logs (the folder is printed)")
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return 0
		}
		return 2
	}
	switch {
	case fs.NArg() > 0:
		fmt.Fprintf(stderr, "agenteval: unexpected argument %q\n", fs.Arg(0))
		return 2
	case *baseURL == "" || *model == "":
		fmt.Fprintln(stderr, "agenteval: --base-url and --model are required")
		fs.Usage()
		return 2
	case *format != "markdown" && *format != "xml" && *format != "tool":
		fmt.Fprintf(stderr, "agenteval: --format %q: want markdown, xml or tool\n", *format)
		return 2
	case *runs < 1 || *maxSteps < 1 || *timeout <= 0:
		fmt.Fprintln(stderr, "agenteval: --runs, --max-steps and --timeout must be positive")
		return 2
	}
	taskDir := *dir
	if taskDir == "" {
		taskDir = defaultTaskDir()
	}
	tasks, err := loadTasks(taskDir, *glob)
	if err != nil {
		fmt.Fprintf(stderr, "agenteval: %v\n", err)
		return 2
	}
	scratch, err := os.MkdirTemp("", "agenteval-")
	if err != nil {
		fmt.Fprintf(stderr, "agenteval: %v\n", err)
		return 1
	}
	if *keep {
		fmt.Fprintf(stderr, "agenteval: workspaces and logs in %s\n", scratch)
	} else {
		defer os.RemoveAll(scratch)
	}
	if *bin == "" {
		*bin = filepath.Join(scratch, "agentls")
		build := exec.CommandContext(ctx, "go", "build", "-o", *bin, "github.com/agentls/agentls/cmd/agentls")
		build.Stdout, build.Stderr = stderr, stderr
		if err := build.Run(); err != nil {
			fmt.Fprintf(stderr, "agenteval: building agentls (run from the repository, or pass --agentls): %v\n", err)
			return 1
		}
	} else if abs, err := filepath.Abs(*bin); err == nil {
		*bin = abs
	}
	rn := runner{
		driver:       agentlsDriver{bin: *bin, baseURL: *baseURL, model: *model, format: *format, maxSteps: *maxSteps},
		tasks:        tasks,
		runs:         *runs,
		timeout:      *timeout,
		checkTimeout: 2 * time.Minute,
		scratch:      scratch,
		progress:     stderr,
	}
	results, err := rn.run(ctx)
	if !*keep {
		for i := range results {
			results[i].Log = "" // removed with the scratch folder
		}
	}
	if werr := writeTable(stdout, results); werr != nil && err == nil {
		err = werr
	}
	if *jsonOut != "" {
		rep := Report{Model: *model, BaseURL: *baseURL, Format: *format, Results: results, Total: summarize(results)}
		f, ferr := os.Create(*jsonOut)
		if ferr == nil {
			ferr = writeJSON(f, rep)
			if cerr := f.Close(); ferr == nil {
				ferr = cerr
			}
		}
		if ferr != nil && err == nil {
			err = fmt.Errorf("--json: %w", ferr)
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "agenteval: %v\n", err)
		return 1
	}
	return 0
}

// defaultTaskDir finds the suite from the repository root (go run
// ./cmd/agenteval) or from this folder (go test).
func defaultTaskDir() string {
	for _, d := range []string{filepath.Join("cmd", "agenteval", "tasks"), "tasks"} {
		if fi, err := os.Stat(d); err == nil && fi.IsDir() {
			return d
		}
	}
	return filepath.Join("cmd", "agenteval", "tasks")
}
