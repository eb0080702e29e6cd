package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/aymanbagabas/go-udiff"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/modeltest"
	"github.com/agentls/agentls/anchored"
	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/builtin"
	"github.com/agentls/agentls/tools/policy"
)

// demoWorkspace returns the demo's files, before the turn.
func demoWorkspace() map[string]string {
	return map[string]string{
		"config.go": "package app\n\n// Config holds the settings.\ntype Config struct {\n\tName string\n}\n\nfunc Load() Config {\n\treturn Config{Name: \"demo\"}\n}\n",
		"main.go":   "package app\n\nfunc Run() string {\n\tvar c Config = Load()\n\treturn c.Name\n}\n",
		"go.mod":    "module example.com/app\n\ngo 1.21\n",
		// A test that fails, so the demo's job has problems to report.
		"app_test.go": "package app\n\nimport \"testing\"\n\nfunc TestRun(t *testing.T) {\n\tif got := Run(); got != \"agentls\" {\n\t\tt.Errorf(\"Run() = %q, want %q\", got, \"agentls\")\n\t}\n}\n",
	}
}

func runDemo(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	keep := fs.Bool("keep", false, "keep the demo's workspace and the job's full output (their paths are printed)")
	if code, ok := parseFlags(fs, args, "usage: agentls demo [--keep]\n\n"+
		"Runs a scripted agent turn against a temporary workspace with a fake model\n"+
		"(no key, no network): a two-file patch_many, an anchored edit, `go test` as a\n"+
		"background job whose failure becomes diagnostics, then an undo, printing each\n"+
		"step.", stderr); !ok {
		return code
	}
	if fs.NArg() > 0 {
		return usageError(fs, stderr, "unexpected argument %q (demo takes no arguments)", fs.Arg(0))
	}
	if err := demo(ctx, stdout, *keep, os.Getenv); err != nil {
		fmt.Fprintf(stderr, "agentls demo: %v\n", err)
		return exitFailed
	}
	return exitOK
}

// demo runs the scripted turn, printing it to stdout; keep keeps the
// workspace and the job's log (in the state folder getenv names).
func demo(ctx context.Context, stdout io.Writer, keep bool, getenv func(string) string) error {
	out := &blockWriter{w: stdout}
	defer out.end()
	root, err := os.MkdirTemp("", "agentls-demo-")
	if err != nil {
		return err
	}
	if !keep {
		defer os.RemoveAll(root)
	}
	root, _ = filepath.EvalSymlinks(root)
	// A path the demo prints must exist once it ended. Without --keep the
	// workspace is deleted and the job keeps no log file (its output is
	// read back from memory); with --keep its full output goes where
	// agentls keeps every command's, the state folder
	// ($XDG_STATE_HOME/agentls/runs/), else into the kept workspace.
	logDir := ""
	if keep {
		logDir = filepath.Join(root, ".agentls", "logs")
		if dir, err := agent.StateDir(getenv, "runs", root); err == nil {
			logDir = dir
		}
		fmt.Fprintf(out, "== the workspace, kept: %s\n", root)
		out.block()
	}
	demoFiles := demoWorkspace()
	for name, text := range demoFiles {
		if err := os.WriteFile(filepath.Join(root, name), []byte(text), 0o644); err != nil {
			return err
		}
	}
	replies, err := demoScript()
	if err != nil {
		return err
	}
	srv := modeltest.New(replies...)
	defer srv.Close()

	fmt.Fprintf(out, "== a fake model at %s; the workspace is a Go module: config.go, main.go and app_test.go\n", srv.URL)
	out.block()
	m, err := agent.NewModel(agent.ModelConfig{Model: "demo", BaseURL: srv.URL, APIKeyEnv: "AGENTLS_DEMO_NO_KEY", TaggedThinking: true}, func(string) string { return "" })
	if err != nil {
		return err
	}
	reg, _, err := builtin.Registry().Select([]string{"read", "patch_many", "patch", "view_anchored", "patch_anchored", "shell"})
	if err != nil {
		return err
	}
	// The demo's workspace allows `go test`, as a project would in its
	// .agentls/settings.json; the job's problems print as diagnostics.
	host, err := newShellHost(root, logDir, "", policy.Config{Allow: []string{"go test"}}, out)
	if err != nil {
		return err
	}
	defer host.Close()
	reg = diskWorkspace{root: root, host: host}.bind(reg)
	turn := &agent.Turn{Model: m, Registry: reg, Format: tools.FormatMarkdown, Runner: agent.Runner{Registry: reg}}
	turn.Observe = func(e agent.Event) {
		switch e.Kind {
		case agent.EventText:
			io.WriteString(out, e.Text)
		case agent.EventToolStart:
			out.block()
			fmt.Fprintf(out, "== agentls runs %s\n", e.Use.Tool)
		case agent.EventToolDone:
			if e.Err != nil {
				fmt.Fprintf(out, "error: %v\n", e.Err)
			} else {
				fmt.Fprintf(out, "%s\n", strings.TrimSpace(e.Text))
			}
			out.block()
			fmt.Fprintf(out, "== the model continues\n")
		}
	}
	sum, err := turn.Run(ctx, agent.Request{Prompt: "Rename Config to Settings and document Load.", Root: root})
	if err != nil {
		return err
	}
	got, err := os.ReadFile(filepath.Join(root, "config.go"))
	if err != nil {
		return err
	}
	if want := "// Load returns the default settings.\nfunc Load() Settings {"; !strings.Contains(string(got), want) {
		return fmt.Errorf("the turn did not produce what the script expects: config.go is\n%s", got)
	}
	out.block()
	fmt.Fprintf(out, "== done: %d model calls, %d tool calls; the changes:\n", sum.Steps, sum.ToolUses)
	out.block()
	for _, name := range []string{"config.go", "main.go"} {
		now, err := os.ReadFile(filepath.Join(root, name))
		if err != nil {
			return err
		}
		fmt.Fprint(out, udiff.Unified("a/"+name, "b/"+name, demoFiles[name], string(now)))
	}
	// Undo: in an editor, agentls.turn.undo sends the inverse as one
	// WorkspaceEdit; here the files are put back as they were.
	for _, name := range []string{"config.go", "main.go"} {
		text := demoFiles[name]
		if err := os.WriteFile(filepath.Join(root, name), []byte(text), 0o644); err != nil {
			return err
		}
	}
	out.block()
	fmt.Fprintf(out, "== undo: config.go and main.go are back as they were (in an editor: agentls.turn.undo, one edit)\n")
	out.block()
	if keep {
		fmt.Fprintf(out, "== the workspace is kept: %s\n== the job's full output is kept: %s\n", root, filepath.Join(logDir, "jobs"))
	} else {
		fmt.Fprintf(out, "== the workspace is deleted (agentls demo --keep keeps it, with the job's full output)\n")
	}
	out.block()
	fmt.Fprintf(out, "Next: connect an editor (README: editor set-up) and try \"Apply agent reply\" or agentls.ask with a real model.\n")
	return nil
}

// demoScript is what the fake model says. The anchored edit needs the
// anchors of config.go as it will be after the rename; they are computed
// here exactly as view_anchored will show them.
func demoScript() ([]modeltest.Reply, error) {
	renamed := strings.ReplaceAll(demoWorkspace()["config.go"], "Config", "Settings")
	view, err := anchored.View(renamed, 0, 0, anchored.Options{})
	if err != nil {
		return nil, err
	}
	var loadAnchor string
	for _, l := range view {
		if l.Text == "func Load() Settings {" {
			loadAnchor = l.Anchor
		}
	}
	if loadAnchor == "" {
		return nil, errors.New("demo: no anchor for Load")
	}
	text := "// Load returns the default settings.\n"
	ops, _ := json.Marshal([]anchored.Op{{Anchor: loadAnchor, Op: "insert_before", Text: &text}})
	return []modeltest.Reply{
		modeltest.Text("I'll rename Config to Settings in both files at once.\n\n"+
			"```patch_many\n=== PATH: config.go ===\n<<<<<<< ORIGINAL\n// Config holds the settings.\ntype Config struct {\n=======\n// Settings holds the settings.\ntype Settings struct {\n>>>>>>> UPDATED\n"+
			"<<<<<<< ORIGINAL\nfunc Load() Config {\n\treturn Config{Name: \"demo\"}\n=======\nfunc Load() Settings {\n\treturn Settings{Name: \"demo\"}\n>>>>>>> UPDATED\n\n"+
			"=== PATH: main.go ===\n<<<<<<< ORIGINAL\n\tvar c Config = Load()\n=======\n\tvar c Settings = Load()\n>>>>>>> UPDATED\n```\n\n", 16),
		modeltest.Text("Now a doc comment on Load; I'll look at the anchors first.\n\n```view_anchored config.go\n```\n\n", 16),
		modeltest.Text("```patch_anchored config.go\n"+string(ops)+"\n```\n\n", 16),
		modeltest.Text("Now the tests, as a background job.\n\n```shell\nbg go test ./...\n```\n\n", 16),
		modeltest.Text("```shell\nwait 1 300\n```\n\n", 16),
		modeltest.Text("Done: Config is now Settings, and Load is documented. `go test` fails in app_test.go: "+
			"TestRun wants Run() to return \"agentls\", and it returns \"demo\"; that is for you to decide.", 16),
	}, nil
}

// blockWriter prints the demo's blocks (the model's text, a tool's run,
// the diff) with exactly one blank line between them, whatever newlines
// each ends with: the newlines a write ends with are held back until more
// text follows, which gets them as they were (blank lines inside the
// model's text are its own), or until block starts the next block, which
// makes them one blank line. Jobs report from their own goroutine, hence
// the lock.
type blockWriter struct {
	mu      sync.Mutex
	w       io.Writer
	pending int  // newlines held back
	started bool // something was written
	atBlock bool // nothing was written since block
	err     error
}

func (b *blockWriter) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	body := bytes.TrimRight(p, "\n")
	if len(body) == 0 {
		b.pending += len(p)
		return len(p), nil
	}
	b.write(bytes.Repeat([]byte("\n"), b.pending))
	b.write(body)
	b.pending = len(p) - len(body)
	b.started, b.atBlock = true, false
	return len(p), b.err
}

// block ends the block written so far with one blank line.
func (b *blockWriter) block() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.started && !b.atBlock {
		b.write([]byte("\n\n"))
	}
	b.pending, b.atBlock = 0, true
}

// end writes the last line's newline.
func (b *blockWriter) end() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.pending > 0 {
		b.write([]byte("\n"))
	}
	b.pending = 0
}

func (b *blockWriter) write(p []byte) {
	if b.err == nil && len(p) > 0 {
		_, b.err = b.w.Write(p)
	}
}
