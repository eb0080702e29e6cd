package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/edits"
	"github.com/agentls/agentls/settings"
	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/approval"
	"github.com/agentls/agentls/tools/edittool"
	"github.com/agentls/agentls/tools/mcp"
	"github.com/agentls/agentls/tools/shelltool"
)

func runAsk(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("ask", flag.ContinueOnError)
	dir := fs.String("C", ".", "work under `dir` (the workspace root)")
	model := fs.String("model", "", "the `model` (default: the settings' model, else $AGENTLS_MODEL)")
	baseURL := fs.String("base-url", "", "an OpenAI-compatible API `url` (default: the settings' baseUrl, else $OPENAI_BASE_URL, else OpenAI)")
	keyEnv := fs.String("api-key-env", "", "the `name` of the environment variable holding the key (default: the settings' apiKeyEnv, else OPENAI_API_KEY)")
	format := fs.String("format", "", "tool-call `syntax`: markdown, xml or tool (default: the settings' toolFormat, else markdown)")
	maxSteps := fs.Int("max-steps", 0, "at most `n` model calls (default: the settings' maxSteps, else 30)")
	promptStyle := fs.String("prompt", "", "the system prompt `style`: full, compact (short, for small local models), or auto (compact when the API is on this machine) (default: the settings' prompt, else auto)")
	if code, ok := parseFlags(fs, args, "usage: agentls ask [-C DIR] [--model M] [--base-url URL] [--api-key-env NAME] [--format F] [--max-steps N] [--prompt full|compact|auto] PROMPT...\n\n"+
		"Runs one agent turn from the terminal against the files under DIR: the model's\n"+
		"text streams to stdout; each of its edit calls is applied to disk atomically\n"+
		"(all of a call's files, or none); its shell commands run in DIR, asking you\n"+
		"first on the terminal unless your settings allow them (without a terminal they\n"+
		"are refused). It reads the same settings as the server: your\n"+
		"$XDG_CONFIG_HOME/agentls/settings.json, then DIR's "+settings.WorkspaceFile+" (its keys\n"+
		"that decide what runs or where data goes only once you trusted it: agentls\n"+
		"trust); flags override both. Exit 0 done, 1 the turn failed, 2 usage.", stderr); !ok {
		return code
	}
	prompt := strings.Join(fs.Args(), " ")
	if strings.TrimSpace(prompt) == "" {
		fmt.Fprintln(stderr, "agentls ask: no prompt given")
		fs.Usage()
		return exitUsage
	}
	root, err := workspaceRoot(*dir)
	if err != nil {
		fmt.Fprintf(stderr, "agentls ask: -C %s: %v\n", *dir, err)
		return exitUsage
	}
	loaded, _ := loadSettings(root, "ask", stderr)
	// Flags are the user's own settings for this run: read through the
	// same keys, so they are checked the same way.
	flagKeys := map[string]any{}
	fs.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "model":
			flagKeys["model"] = *model
		case "base-url":
			flagKeys["baseUrl"] = *baseURL
		case "api-key-env":
			flagKeys["apiKeyEnv"] = *keyEnv
		case "format":
			flagKeys["toolFormat"] = *format
		case "max-steps":
			flagKeys["maxSteps"] = *maxSteps
		case "prompt":
			flagKeys["prompt"] = *promptStyle
		}
	})
	raw, _ := json.Marshal(flagKeys)
	set, problems := loaded.Settings.Apply(raw, settings.Source{Name: "flags", Trusted: true}, agent.SettingChecks())
	if len(problems) > 0 {
		for _, p := range problems {
			fmt.Fprintf(stderr, "agentls ask: %s\n", p)
		}
		fs.Usage()
		return exitUsage
	}
	host, err := newShellHost(set, root, runLogDir(root), stderr)
	if err != nil {
		fmt.Fprintf(stderr, "agentls ask: %v\n", err)
		return exitUsage
	}
	defer host.Close()
	ws := diskWorkspace{root: root, host: host, out: stderr}
	var ask approval.Confirmer // nil: nobody can be asked here
	if isTerminal(stdin) {
		ask = &terminalConfirmer{in: bufio.NewReader(stdin), out: stderr}
	}
	ws.confirm = agent.ConfirmerOf(set, ask)
	// The user's MCP servers start for this turn (those its tools offer)
	// and stop with it.
	servers := mcp.NewManager(mcp.Options{Dir: root, Version: version(), Log: func(stream string, p []byte) { fmt.Fprintf(stderr, "[agentls] %s: %s", stream, p) }})
	defer servers.Close()
	// The turn is made by agent.Prepare from the settings, as the
	// server's is: the terminal adds only the disk, its questions and
	// what it prints.
	turn, err := agent.Prepare(agent.Setup{
		Settings:  set,
		Getenv:    os.Getenv,
		Workspace: ws,
		Host:      func() (*shelltool.Host, error) { return host, nil },
		MCP:       servers,
		ID:        1,
		Observe:   askObserver(stdout, stderr),
		ObserveSubagent: func(n int, e agent.Event) {
			if e.Kind == agent.EventToolStart {
				fmt.Fprintf(stderr, "\n[agentls] subagent %d: step %d: %s\n", n, e.Step, agent.DescribeUse(*e.Use))
			}
		},
		Notify: func(n agent.Notice) {
			if n.Kind == agent.NoticeLog && n.Path != "" {
				fmt.Fprintf(stderr, "[agentls] conversation log: %s\n", n.Path)
				return
			}
			fmt.Fprintf(stderr, "[agentls] %s\n", n.Text)
		},
	})
	if err != nil {
		fmt.Fprintf(stderr, "agentls ask: %v\n", err)
		return exitUsage
	}
	sum, err := turn.Run(ctx, agent.Request{Prompt: prompt, Root: root})
	fmt.Fprintln(stdout)
	cost := turn.CostLine()
	if err != nil {
		fmt.Fprintf(stderr, "agentls ask: the turn stopped after %d steps (%s): %v\n", sum.Steps, cost, err)
		return exitFailed
	}
	fmt.Fprintf(stderr, "[agentls] done: %d steps, %d tool calls, %s\n", sum.Steps, sum.ToolUses, cost)
	return exitOK
}

// askObserver prints a terminal turn as it goes: the model's text on
// stdout, each tool call's outcome on stderr.
func askObserver(stdout, stderr io.Writer) func(agent.Event) {
	return func(e agent.Event) {
		switch e.Kind {
		case agent.EventText:
			io.WriteString(stdout, e.Text)
		case agent.EventNotice:
			fmt.Fprintf(stderr, "\n[agentls] %s\n", e.Text)
		case agent.EventToolDone:
			if e.Err != nil {
				fmt.Fprintf(stderr, "\n[agentls] %s failed: %v\n", e.Use.Tool, e.Err)
			} else if e.Use.Tool == tools.NameRead {
				fmt.Fprintf(stderr, "\n[agentls] read %s\n", strings.Join(edittool.ReadPaths(*e.Use), " "))
			} else if shelltool.IsShellTool(e.Use.Tool) {
				if e.Call != nil {
					fmt.Fprintf(stderr, "\n[agentls] %s", e.Call.Summary())
				}
				fmt.Fprintf(stderr, "\n[agentls] %s\n", strings.ReplaceAll(strings.TrimSpace(e.Text), "\n", "\n[agentls] "))
			} else {
				fmt.Fprintf(stderr, "\n[agentls] %s\n", strings.ReplaceAll(strings.TrimSpace(e.Text), "\n", "; "))
			}
		}
	}
}

// diskWorkspace is a terminal turn's agent.Workspace: the turn reads the
// files under root, each edit call is written atomically (all its files
// or none) before the next call reads, commands run in host (nil: none),
// asking confirm (nil: nobody), and live output goes to out (nil: none).
type diskWorkspace struct {
	root    string
	host    *shelltool.Host
	confirm approval.Confirmer
	out     io.Writer
}

func (w diskWorkspace) Root() string          { return w.root }
func (w diskWorkspace) PrivateDirs() []string { return settings.PrivateDirs(os.Getenv) }

func (w diskWorkspace) Read(ctx context.Context, path string) (string, int32, bool, error) {
	return edittool.DiskSource{Root: w.root}.Read(ctx, path)
}

func (w diskWorkspace) Confirm(ctx context.Context, q approval.Question) (approval.Answer, error) {
	if w.confirm == nil {
		return approval.Skip, approval.ErrNobodyToAsk
	}
	return w.confirm.Confirm(ctx, q)
}

// Output writes live output to the terminal as it comes. (The built-in
// shell tools do not stream here: their host shows each command's output
// when it ends, and the model's own text is on stdout.)
func (w diskWorkspace) Output(_ string, p []byte) {
	if w.out != nil {
		w.out.Write(p)
	}
}

func (w diskWorkspace) Propose(ctx context.Context, compute func(context.Context, tools.Source) (edits.Changeset, error)) (string, error) {
	cs, err := compute(ctx, edittool.DiskSource{Root: w.root})
	if err != nil {
		return "", err
	}
	changes := cs.Effective()
	if len(changes) == 0 {
		return "", nil
	}
	if err := edits.ApplyToDisk(w.root, &cs); err != nil {
		return "", err // it says that nothing was written
	}
	var names []string
	for _, c := range changes {
		names = append(names, c.Path)
	}
	return "Written to disk: " + strings.Join(names, ", "), nil
}
