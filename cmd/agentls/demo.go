package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

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
	keep := fs.Bool("keep", false, "keep the demo's workspace (its path is printed)")
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
	if err := demo(ctx, stdout, *keep); err != nil {
		fmt.Fprintf(stderr, "agentls demo: %v\n", err)
		return exitFailed
	}
	return exitOK
}

func demo(ctx context.Context, out io.Writer, keep bool) error {
	root, err := os.MkdirTemp("", "agentls-demo-")
	if err != nil {
		return err
	}
	if keep {
		fmt.Fprintf(out, "workspace: %s (kept)\n", root)
	} else {
		defer os.RemoveAll(root)
	}
	root, _ = filepath.EvalSymlinks(root)
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

	fmt.Fprintf(out, "== a fake model at %s; the workspace is a Go module: config.go, main.go and app_test.go\n\n", srv.URL)
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
	host, err := newShellHost(root, filepath.Join(root, ".agentls", "logs"), "", policy.Config{Allow: []string{"go test"}}, out)
	if err != nil {
		return err
	}
	defer host.Close()
	turn := &agent.Turn{Model: m, Registry: reg, Format: tools.FormatMarkdown, Runner: diskRunner{root: root, reg: reg, host: host}}
	turn.Observe = func(e agent.Event) {
		switch e.Kind {
		case agent.EventText:
			io.WriteString(out, e.Text)
		case agent.EventToolStart:
			fmt.Fprintf(out, "\n\n== agentls runs %s\n", e.Use.Tool)
		case agent.EventToolDone:
			if e.Err != nil {
				fmt.Fprintf(out, "error: %v\n\n", e.Err)
			} else {
				fmt.Fprintf(out, "%s\n\n== the model continues\n", strings.TrimSpace(e.Text))
			}
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
	fmt.Fprintf(out, "\n\n== done: %d model calls, %d tool calls; the changes:\n\n", sum.Steps, sum.ToolUses)
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
	fmt.Fprintf(out, "\n== undo: config.go and main.go are back as they were (in an editor: agentls.turn.undo, one edit)\n")
	fmt.Fprintf(out, "\nNext: connect an editor (README: editor set-up) and try \"Apply agent reply\" or agentls.ask with a real model.\n")
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
