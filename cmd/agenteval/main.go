// Command agenteval runs agentls, and beside it aider and gptme, against a
// real model on a suite of small tasks and reports how many each solved,
// how many of the model's replies called tools in a form the tool reads,
// and what the runs cost:
//
//	go run ./cmd/agenteval --base-url http://127.0.0.1:8765/v1 --model M --tools agentls,aider,gptme --bench-md BENCH.md
//
// Every tool reaches the endpoint through a local adapter (adapter.go)
// that flattens list contents and counts calls and tokens alike. It runs
// only when invoked (it needs a model); its tests drive it against the
// fake model server and fake peers.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

const usage = `usage: agenteval --base-url URL --model M [--tools agentls,aider,gptme] [--format markdown|xml|tool]
       [--runs N] [--tasks GLOB] [--block N] [--dir DIR] [--agentls PATH] [--aider PATH] [--gptme PATH]
       [--venvs DIR] [--spread] [--block N] [--timeout D] [--max-steps N] [--json FILE] [--bench-md FILE]
       [--work DIR] [--keep] [--skip FILE[,FILE…]]
       agenteval --from-json FILE[,FILE…] [--bench-md FILE]

Runs each tool once per task and run, each in a fresh copy of the task's
files/, then the task's check.sh, and prints a table per task and in total.
Every tool talks to the endpoint through a local adapter that flattens
list contents and counts calls and tokens. aider and gptme are installed
from PyPI into --venvs unless given. Exit 0 when every run was measured
(solved or not), 1 on a runner error, 2 on usage errors.
`

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("agenteval", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, usage); fs.PrintDefaults() }
	baseURL := fs.String("base-url", "", "the OpenAI-compatible API `url` (required)")
	model := fs.String("model", "", "the `model` name (required)")
	toolList := fs.String("tools", "agentls", "the `tools` to run, comma-separated: agentls, aider, gptme")
	format := fs.String("format", "markdown", "agentls's tool-call `syntax`: markdown, xml or tool")
	runs := fs.Int("runs", 1, "run each task `n` times")
	glob := fs.String("tasks", "", "only the tasks whose folder name matches `glob`")
	block := fs.Int("block", 0, "tasks one tool runs before the next tool runs them (`n`; 0: all)")
	spread := fs.Bool("spread", false, "run the tasks alternating their kinds (go-, py-, ts-, …), so that a run cut short has some of each")
	dir := fs.String("dir", "", "the task suite `folder` (default: cmd/agenteval/tasks, or tasks beside it)")
	bin := fs.String("agentls", "", "the agentls `binary` (default: built from ./cmd/agentls)")
	aiderBin := fs.String("aider", "", "the aider `executable` (default: aider-chat=="+aiderVersion+" installed into --venvs)")
	gptmeBin := fs.String("gptme", "", "the gptme `executable` (default: gptme=="+gptmeVersion+" installed into --venvs)")
	venvs := fs.String("venvs", defaultVenvs(), "where the peers' virtualenvs are kept (`dir`)")
	python := fs.String("python", "python3", "the Python 3 `interpreter` that makes the virtualenvs")
	timeout := fs.Duration("timeout", 5*time.Minute, "per-turn `limit`")
	settingsFile := fs.String("agentls-settings", "", "agentls's user settings for every run: the JSON `file` is each run's $XDG_CONFIG_HOME/agentls/settings.json (default: none)")
	maxSteps := fs.Int("max-steps", 6, "agentls's model calls per turn")
	jsonOut := fs.String("json", "", "also write the results as JSON to `file`")
	benchMD := fs.String("bench-md", "", "also write the tables into `file` (BENCH.md), replacing its agenteval section")
	work := fs.String("work", "", "keep the workspaces, logs and every run's output in `dir`")
	keep := fs.Bool("keep", false, "keep the workspaces, state and turn logs (the folder is printed)")
	skip := fs.String("skip", "", "do not run again what the results in `files` hold (comma-separated, as --from-json reads): to finish a run that was cut short, then merge both with --from-json")
	fromJSON := fs.String("from-json", "", "run nothing: print the tables of the results in `files` (comma-separated: reports written by --json, or a kept run's results.jsonl; a later file's run of a tool on a task replaces an earlier one's), and write --bench-md from them")
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return 0
		}
		return 2
	}
	if *fromJSON != "" {
		return rerender(*fromJSON, *dir, *benchMD, stdout, stderr)
	}
	tools, terr := parseTools(*toolList)
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
	case *runs < 1 || *maxSteps < 1 || *timeout <= 0 || *block < 0:
		fmt.Fprintln(stderr, "agenteval: --runs, --max-steps and --timeout must be positive")
		return 2
	case terr != nil:
		fmt.Fprintf(stderr, "agenteval: %v\n", terr)
		return 2
	}
	var settingsJSON []byte
	if *settingsFile != "" {
		b, err := os.ReadFile(*settingsFile)
		if err == nil && !json.Valid(b) {
			err = fmt.Errorf("%s: not JSON", *settingsFile)
		}
		if err != nil {
			fmt.Fprintf(stderr, "agenteval: --agentls-settings: %v\n", err)
			return 2
		}
		settingsJSON = b
	}
	ad, err := newAdapter(*baseURL)
	if err != nil {
		fmt.Fprintf(stderr, "agenteval: %v\n", err)
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
	if *spread {
		tasks = spreadTasks(tasks)
	}
	scratch := *work
	if scratch != "" {
		scratch, err = filepath.Abs(scratch)
		if err == nil {
			err = os.MkdirAll(scratch, 0o755)
		}
	} else {
		scratch, err = os.MkdirTemp("", "agenteval-")
		if !*keep {
			defer os.RemoveAll(scratch)
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "agenteval: %v\n", err)
		return 1
	}
	kept := *keep || *work != ""
	if kept {
		fmt.Fprintf(stderr, "agenteval: workspaces and logs in %s\n", scratch)
	}
	actx, stopAdapter := context.WithCancel(ctx)
	defer stopAdapter()
	url, err := ad.serve(actx)
	if err != nil {
		fmt.Fprintf(stderr, "agenteval: %v\n", err)
		return 1
	}
	var drivers []Driver
	for _, t := range tools {
		switch t {
		case "agentls":
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
			drivers = append(drivers, agentlsDriver{bin: *bin, baseURL: url, model: *model, format: *format, maxSteps: *maxSteps, settings: settingsJSON})
		case "aider", "gptme":
			exe := map[string]*string{"aider": aiderBin, "gptme": gptmeBin}[t]
			if *exe == "" {
				p, err := installPeer(ctx, stderr, *python, *venvs, t)
				if err != nil {
					fmt.Fprintf(stderr, "agenteval: install %s: %v\n", t, err)
					return 1
				}
				*exe = p
			} else if abs, err := filepath.Abs(*exe); err == nil && strings.ContainsRune(*exe, filepath.Separator) {
				*exe = abs
			}
			if t == "aider" {
				drivers = append(drivers, aiderDriver{bin: *exe, baseURL: url, model: *model})
			} else {
				drivers = append(drivers, gptmeDriver{bin: *exe, baseURL: url, model: *model})
			}
		}
	}
	var record io.Writer
	if kept {
		f, err := os.Create(filepath.Join(scratch, "results.jsonl"))
		if err != nil {
			fmt.Fprintf(stderr, "agenteval: %v\n", err)
			return 1
		}
		defer f.Close()
		record = f
	}
	var done map[string]bool
	if *skip != "" {
		earlier, err := loadReports(strings.Split(*skip, ","))
		if err != nil {
			fmt.Fprintf(stderr, "agenteval: --skip: %v\n", err)
			return 2
		}
		if earlier.Model != "" && earlier.Model != *model {
			fmt.Fprintf(stderr, "agenteval: --skip: those results are of model %q, not %q\n", earlier.Model, *model)
			return 2
		}
		done = map[string]bool{}
		for _, r := range earlier.Results {
			done[runKey(r.Tool, r.Task, r.Run)] = true
		}
	}
	rn := runner{
		drivers:      drivers,
		adapter:      ad,
		tasks:        tasks,
		runs:         *runs,
		block:        *block,
		timeout:      *timeout,
		checkTimeout: 2 * time.Minute,
		scratch:      scratch,
		progress:     stderr,
		record:       record,
		skip:         done,
	}
	results, err := rn.run(ctx)
	interrupted := err != nil && ctx.Err() != nil
	if !kept {
		for i := range results {
			results[i].Log = "" // removed with the scratch folder
		}
	}
	if werr := writeTable(stdout, results); werr != nil && err == nil {
		err = werr
	}
	rep := Report{Model: *model, BaseURL: *baseURL, Format: *format, Tools: tools, Tasks: taskNames(tasks), Results: results, Total: summarize(results), Interrupted: interrupted}
	if *jsonOut != "" {
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
	if *benchMD != "" && len(results) > 0 {
		if berr := writeSection(*benchMD, "results", benchMarkdown(rep)); berr != nil && err == nil {
			err = fmt.Errorf("--bench-md: %w", berr)
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "agenteval: %v\n", err)
		return 1
	}
	return 0
}

// rerender prints the table of saved results (one report, or several
// merged by loadReports) and writes their BENCH.md section, so that the
// section can be remade without running a model.
func rerender(files, dir, benchMD string, stdout, stderr io.Writer) int {
	rep, err := loadReports(strings.Split(files, ","))
	if err != nil {
		fmt.Fprintf(stderr, "agenteval: --from-json: %v\n", err)
		return 2
	}
	if rep.Model == "" {
		rep.Model = "(not recorded: the results came from results.jsonl files only)"
	}
	if len(rep.Tasks) == 0 {
		// Written before reports named their tasks: the whole suite.
		if dir == "" {
			dir = defaultTaskDir()
		}
		tasks, err := loadTasks(dir, "")
		if err != nil {
			fmt.Fprintf(stderr, "agenteval: %v\n", err)
			return 2
		}
		rep.Tasks = taskNames(tasks)
	}
	if err := writeTable(stdout, rep.Results); err != nil {
		fmt.Fprintf(stderr, "agenteval: %v\n", err)
		return 1
	}
	if benchMD != "" && len(rep.Results) > 0 {
		if err := writeSection(benchMD, "results", benchMarkdown(rep)); err != nil {
			fmt.Fprintf(stderr, "agenteval: --bench-md: %v\n", err)
			return 1
		}
	}
	return 0
}

func taskNames(tasks []Task) []string {
	names := make([]string, len(tasks))
	for i, t := range tasks {
		names[i] = t.Name
	}
	slices.Sort(names)
	return names
}

// spreadTasks orders tasks taking one of each kind (the name's part
// before the first "-") in turn: go, js, md, py, ts, go, ….
func spreadTasks(tasks []Task) []Task {
	var kinds []string
	byKind := map[string][]Task{}
	for _, t := range tasks {
		k, _, _ := strings.Cut(t.Name, "-")
		if _, ok := byKind[k]; !ok {
			kinds = append(kinds, k)
		}
		byKind[k] = append(byKind[k], t)
	}
	out := make([]Task, 0, len(tasks))
	for len(out) < len(tasks) {
		for _, k := range kinds {
			if len(byKind[k]) > 0 {
				out = append(out, byKind[k][0])
				byKind[k] = byKind[k][1:]
			}
		}
	}
	return out
}

// parseTools reads --tools: known names, each once, in the order given.
func parseTools(list string) ([]string, error) {
	var tools []string
	for _, t := range strings.Split(list, ",") {
		t = strings.TrimSpace(t)
		switch {
		case t != "agentls" && t != "aider" && t != "gptme":
			return nil, fmt.Errorf("--tools: %q: want agentls, aider or gptme", t)
		case slices.Contains(tools, t):
			return nil, fmt.Errorf("--tools: %q twice", t)
		}
		tools = append(tools, t)
	}
	return tools, nil
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
