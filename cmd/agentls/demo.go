package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/aymanbagabas/go-udiff"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/modeltest"
	"github.com/agentls/agentls/anchored"
	"github.com/agentls/agentls/internal/statedir"
	"github.com/agentls/agentls/settings"
	"github.com/agentls/agentls/tools/approval"
	"github.com/agentls/agentls/tools/shelltool"
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
	editor := fs.Bool("editor", false, "serve the demo model for an editor until Ctrl-C, with a demo workspace set up to use it")
	dir := fs.String("dir", "", "with --editor: the demo workspace, a new or empty `folder` (default: a fresh one in the temporary folder)")
	listen := fs.String("listen", "127.0.0.1:0", "with --editor: the demo model's `address`, on this machine (port 0: a free one)")
	if code, ok := parseFlags(fs, args, "usage: agentls demo [--keep | --editor [--dir DIR] [--listen ADDR]]\n\n"+
		"Runs a scripted agent turn against a temporary workspace with a fake model\n"+
		"(no key, no network): a two-file patch_many, an anchored edit, `go test` as a\n"+
		"background job whose failure becomes diagnostics, then an undo, printing each\n"+
		"step.\n\n"+
		"With --editor it serves that fake model instead, as an OpenAI-compatible\n"+
		"server on 127.0.0.1, for your editor: it writes a demo workspace whose\n"+
		".agentls/settings.json points agentls at it, prints what to open and try in\n"+
		"Neovim, VS Code, Helix and Emacs, and runs until Ctrl-C.", stderr); !ok {
		return code
	}
	if fs.NArg() > 0 {
		return usageError(fs, stderr, "unexpected argument %q (demo takes no arguments)", fs.Arg(0))
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	switch {
	case *editor && *keep:
		return usageError(fs, stderr, "--keep is for the terminal demo: --editor always keeps its workspace")
	case !*editor && (set["dir"] || set["listen"]):
		return usageError(fs, stderr, "--dir and --listen go with --editor (agentls demo --editor --dir DIR)")
	}
	if *editor {
		// main stops on Ctrl-C; a service manager or `kill` sends SIGTERM,
		// which must stop the model as cleanly.
		ctx, stop := signal.NotifyContext(ctx, syscall.SIGTERM)
		defer stop()
		err := demoEditor(ctx, demoEditorOptions{dir: *dir, listen: *listen, chunkDelay: demoChunkDelay}, stdout, os.Getenv)
		if err != nil {
			fmt.Fprintf(stderr, "agentls demo: %v\n", err)
			return exitFailed
		}
		return exitOK
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
		if dir, err := statedir.Dir(getenv, "runs", root); err == nil {
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
	// The demo's settings, as a user's would say them: the workspace
	// allows `go test`, as a project would in its .agentls/settings.json;
	// the job's problems print as diagnostics.
	noEnv := func(string) string { return "" } // no key, no logs, no user rules: the demo leaves nothing behind
	set, problems := settings.Defaults(noEnv).Apply([]byte(`{"model": "demo", "baseUrl": "`+srv.URL+`", "apiKeyEnv": "AGENTLS_DEMO_NO_KEY",
		"thinking": "tagged", "prompt": "full", "commandAllowlist": ["go test"],
		"tools": ["read", "patch_many", "patch", "view_anchored", "patch_anchored", "shell"]}`), settings.Source{Name: "demo", Trusted: true}, agent.SettingChecks())
	if len(problems) > 0 {
		return fmt.Errorf("the demo's settings: %v", problems)
	}
	host, err := newShellHost(set, root, logDir, out)
	if err != nil {
		return err
	}
	defer host.Close()
	turn, err := agent.Prepare(agent.Setup{
		Settings:  set,
		Getenv:    noEnv,
		Workspace: diskWorkspace{root: root, host: host, confirm: demoConfirmer{out}},
		Host:      func() (*shelltool.Host, error) { return host, nil },
		ID:        1,
		Observe: func(e agent.Event) {
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
		},
	})
	if err != nil {
		return err
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
	fmt.Fprintf(out, "Next: agentls demo --editor serves this model to your editor (README: \"Try it in your editor without a key\"), or set up an editor with a real model (README: \"Use it in your editor\").\n")
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

// demoChunkDelay paces the editor demo's replies, so that a reply is
// seen streaming into a chat; tests run without it.
const demoChunkDelay = 10 * time.Millisecond

// demoKeyEnv is the variable the editor demo names as apiKeyEnv: one
// that holds nothing, so no real key of the user's (OPENAI_API_KEY) is
// sent, even to the demo model.
const demoKeyEnv = "AGENTLS_DEMO_KEY"

type demoEditorOptions struct {
	dir        string // the workspace ("" for a fresh one)
	listen     string // the model's address
	chunkDelay time.Duration
}

// demoEditor serves the demo model for an editor until ctx ends: it
// listens (on this machine only), writes the demo workspace with an
// .agentls/settings.json naming the model, trusts that file (the user
// asked for it by running the demo; the grant is revoked when the demo
// stops, and holds only while its process runs, so the file's baseUrl no
// longer applies once nothing listens there, even after a SIGKILL),
// prints what to paste, open and try, and waits. Bad options change
// nothing: the address is checked and taken, and the folder checked,
// before anything is written.
func demoEditor(ctx context.Context, opts demoEditorOptions, stdout io.Writer, getenv func(string) string) error {
	if err := checkLoopback(opts.listen); err != nil {
		return err
	}
	ln, err := net.Listen("tcp", opts.listen)
	if err != nil {
		return fmt.Errorf("--listen %s: %w (give another port, or 127.0.0.1:0 for a free one)", opts.listen, err)
	}
	root, err := demoEditorDir(opts.dir)
	if err != nil {
		ln.Close()
		return err
	}
	srv := modeltest.Serve(ln, demoModel{delay: opts.chunkDelay}.reply)
	defer srv.Close()
	files := demoEditorFiles()
	files["TRY.md"] = demoTry()
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(root, name), []byte(text), 0o644); err != nil {
			return fmt.Errorf("demo workspace: %w", err)
		}
	}
	// A .git makes the folder a project for every editor (the Neovim
	// plugin's root marker, Emacs's project.el), so one server serves its
	// files and its chat; and `git diff` shows what the agent changed.
	if git, err := exec.LookPath("git"); err == nil {
		exec.CommandContext(ctx, git, "init", "-q", root).Run()
	}
	set, err := json.Marshal(struct {
		Model     string `json:"model"`
		BaseURL   string `json:"baseUrl"`
		APIKeyEnv string `json:"apiKeyEnv"`
		// The demo model is a script written for the full prompt; on
		// this machine, "auto" would send the compact one.
		Prompt string `json:"prompt"`
	}{"demo", srv.URL, demoKeyEnv, "full"})
	if err != nil {
		return err
	}
	set = append(set, '\n')
	if err := os.MkdirAll(filepath.Join(root, ".agentls"), 0o755); err != nil {
		return fmt.Errorf("demo workspace: %w", err)
	}
	if err := os.WriteFile(filepath.Join(root, filepath.FromSlash(settings.WorkspaceFile)), set, 0o644); err != nil {
		return fmt.Errorf("demo workspace: %w", err)
	}
	// The grant holds while this process runs: killed (SIGKILL), the
	// demo cannot revoke it, and the file's baseUrl would name a port
	// anyone could bind next.
	trust := settings.Trust{Getenv: getenv}
	if err := trust.GrantWhile(root, set); err != nil {
		return fmt.Errorf("trust the demo's settings: %w", err)
	}
	defer trust.Revoke(root)

	fmt.Fprintf(stdout, "agentls demo --editor: the demo model is at %s (a script: no key, no network).\n\n", srv.URL)
	fmt.Fprintf(stdout, "The demo workspace: %s\n", root)
	fmt.Fprintf(stdout, "  config.go (an AI! comment), main.go, app_test.go (a test that fails), TRY.md, and\n")
	fmt.Fprintf(stdout, "  %s, which points agentls at the demo model:\n\n    %s\n", settings.WorkspaceFile, set)
	fmt.Fprintf(stdout, "  agentls trusts that file while the demo runs, so an editor opened on the folder needs\n"+
		"  nothing more: use it with every editor (Neovim, VS Code, Helix, Emacs). Your editor's own\n"+
		"  agentls settings come first: take out a baseUrl you set there (a model name is fine).\n\n")
	fmt.Fprintf(stdout, "Or, to use the demo model elsewhere (agentls ask, or an editor started from that shell\n"+
		"on another folder), paste in a shell:\n\n"+
		"    export OPENAI_BASE_URL=%s AGENTLS_MODEL=demo\n\n", srv.URL)
	fmt.Fprintf(stdout, "Open it, with agentls set up as the README's \"Use it in your editor\" says:\n\n"+
		"    cd %s && nvim config.go    # or: hx config.go, code ., emacs TRY.md\n\n", shellQuote(root))
	fmt.Fprint(stdout, demoTryList)
	fmt.Fprintf(stdout, "\nCtrl-C stops the demo model; the workspace stays.\n")

	<-ctx.Done()
	srv.Close()
	fmt.Fprintf(stdout, "\nThe demo model stopped. The workspace stays in %s (its settings are no longer trusted); rm -r it when done.\n", root)
	return nil
}

// checkLoopback refuses an address off this machine: the demo model is
// for the user's own editor, and the code it is sent must not leave it.
func checkLoopback(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("--listen %s: %w (give HOST:PORT, such as 127.0.0.1:7070)", addr, err)
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return fmt.Errorf("--listen %s: the demo model listens on this machine only: give 127.0.0.1:PORT (or localhost:PORT)", addr)
	}
	return nil
}

// demoEditorDir returns the demo workspace: dir, which must be new or
// empty (the demo writes config.go and the rest, and would overwrite a
// project's), or a fresh folder in the temporary folder. Not in the state
// folder: an agent's edits there are refused (settings.PrivateDirs).
func demoEditorDir(dir string) (string, error) {
	if dir == "" {
		root, err := os.MkdirTemp("", "agentls-demo-")
		if err != nil {
			return "", fmt.Errorf("demo workspace: %w", err)
		}
		return filepath.EvalSymlinks(root)
	}
	entries, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return "", fmt.Errorf("--dir %s: %w", dir, err)
		}
	case err != nil:
		return "", fmt.Errorf("--dir %s: %w (give a new or empty folder)", dir, err)
	case len(entries) > 0:
		return "", fmt.Errorf("--dir %s is not empty: give a new or empty folder (the demo writes config.go, main.go and more there), or leave out --dir for a fresh one", dir)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("--dir %s: %w", dir, err)
	}
	return filepath.EvalSymlinks(abs)
}

// shellQuote quotes a path for the line the user pastes, when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-+:@") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// demoTryList is what to try, per editor (the README's names for each).
const demoTryList = `Then try, in your editor:
  Neovim   on the AI! line of config.go, :lua vim.lsp.buf.code_action() and pick
           "Agent: rename Config to Settings"; select lines and :AgentAsk explain this;
           :AgentAsk run the tests (a choice list asks you to approve); :AgentChat, write
           under "## You", then :AgentChat again to send; :AgentUndo undoes a turn
  VS Code  the light bulb on the AI! line; "Agent: Ask…" with "run the tests" (approve in
           the notification); "Agent: Open Chat…", then "Agent: Send Chat"; "Agent: Undo"
  Helix    space a on the AI! line; space A o opens the chat (space a there: "Send to
           agent"); :lsp-workspace-command agentls.ask {"prompt": "run the tests"}, then
           space A y approves; space A u undoes
  Emacs    agentls serves the Markdown files: open TRY.md, C-c a x on its AI! line (it
           edits config.go); C-c a a with "run the tests", C-c a y approves (the failure
           shows as a message: Emacs gives agentls no Go buffer for its diagnostic, so
           C-c a a "fix the test"); C-c a o opens the chat, write under "## You", C-c a o
           sends; C-c a u undoes

What the demo model does: the AI! comment or a selection in config.go renames Config
to Settings; "run the tests" runs go test ./... once you approve it, and its failure
becomes a diagnostic in app_test.go whose code action "Agent: fix" fixes it; a chat
message gets a reply and an edit; anything else, a reply saying what it can do.
`

// demoTry is the workspace's TRY.md: what to try, where the editor shows
// it, with an AI! comment for editors that serve only Markdown (Emacs).
func demoTry() string {
	return "# Try agentls\n\n<!-- AI! rename Config to Settings -->\n\n```\n" + demoTryList + "```\n"
}

// demoConfirmer answers the demo's approvals the way a user would, and
// shows them: an allowlisted `go test` asks again once the agent changed
// the Go files it runs, and the demo says yes.
type demoConfirmer struct{ out io.Writer }

func (c demoConfirmer) Confirm(_ context.Context, q approval.Question) (approval.Answer, error) {
	fmt.Fprintf(c.out, "\n== agentls asks: %s? (%s) — the demo answers yes, as you would in your editor\n", q.What(), q.Reason)
	return approval.Run, nil
}
