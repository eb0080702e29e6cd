package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/modeltest"
	"github.com/agentls/agentls/lsp"
	"github.com/agentls/agentls/lsp/lsptest"
	"github.com/agentls/agentls/settings"
	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/builtin"
	"github.com/agentls/agentls/tools/parse"
)

// demoEnv is the environment of one editor demo and the servers pointed
// at it: its own state and config folders (the trust it grants, the
// user's settings file), and none of the model variables a developer's
// shell may hold, so only what the demo prints and writes can make it
// work.
func demoEnv(t *testing.T) func(string) string {
	state, config := t.TempDir(), t.TempDir()
	return func(k string) string {
		switch k {
		case "XDG_STATE_HOME":
			return state
		case "XDG_CONFIG_HOME":
			return config
		case "AGENTLS_MODEL", "OPENAI_BASE_URL", "OPENAI_API_KEY", demoKeyEnv:
			return ""
		}
		return os.Getenv(k)
	}
}

// printedDemo is what `agentls demo --editor` printed before it waits.
type printedDemo struct {
	out      string
	url      string // the model's base URL
	root     string // the workspace
	settings string // the settings line it shows, as written
	export   string // the environment line to paste
}

var (
	demoURLLine      = regexp.MustCompile(`(?m)^agentls demo --editor: the demo model is at (\S+) `)
	demoRootLine     = regexp.MustCompile(`(?m)^The demo workspace: (.+)$`)
	demoSettingsLine = regexp.MustCompile(`(?m)^    (\{.*\})$`)
	demoExportLine   = regexp.MustCompile(`(?m)^    (export .*)$`)
)

// readDemo reads the demo's output up to the line that says it waits.
func readDemo(t *testing.T, r io.Reader) printedDemo {
	t.Helper()
	var out strings.Builder
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		out.WriteString(sc.Text() + "\n")
		if strings.HasPrefix(sc.Text(), "Ctrl-C stops the demo model") {
			break
		}
	}
	p := printedDemo{out: out.String()}
	for _, f := range []struct {
		re  *regexp.Regexp
		dst *string
	}{{demoURLLine, &p.url}, {demoRootLine, &p.root}, {demoSettingsLine, &p.settings}, {demoExportLine, &p.export}} {
		m := f.re.FindStringSubmatch(p.out)
		if m == nil {
			t.Fatalf("the demo's output has no line matching %s:\n%s", f.re, p.out)
		}
		*f.dst = m[1]
	}
	return p
}

// startDemoEditor runs demoEditor in-process on a free port in dir and
// returns what it printed; stop cancels it (Ctrl-C) and returns its
// error and what it printed after.
func startDemoEditor(t *testing.T, getenv func(string) string, dir string) (p printedDemo, stop func() (string, error)) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		err := demoEditor(ctx, demoEditorOptions{dir: dir, listen: "127.0.0.1:0"}, pw, getenv)
		pw.CloseWithError(errors.Join(err, io.EOF))
		done <- err
	}()
	p = readDemo(t, pr)
	rest := make(chan string, 1)
	go func() {
		data, _ := io.ReadAll(pr)
		rest <- string(data)
	}()
	stopped := false
	stop = func() (string, error) {
		if stopped {
			return "", nil
		}
		stopped = true
		cancel()
		err := <-done
		return <-rest, err
	}
	t.Cleanup(func() { stop() })
	return p, stop
}

// TestDemoEditorPrints: what the demo prints is what it did: the
// settings line is the workspace's settings file, which agentls loads as
// trusted (an editor opened there needs nothing), the export line names
// the variables the settings package reads, and each editor has its list.
func TestDemoEditorPrints(t *testing.T) {
	getenv := demoEnv(t)
	p, stop := startDemoEditor(t, getenv, filepath.Join(t.TempDir(), "ws"))
	data, err := os.ReadFile(filepath.Join(p.root, ".agentls", "settings.json"))
	if err != nil || strings.TrimSpace(string(data)) != p.settings {
		t.Errorf("the settings file is %q (%v), the demo printed %q", data, err, p.settings)
	}
	l := agent.LoadSettings(getenv, p.root)
	if !l.WorkspaceTrusted || l.Settings.BaseURL != p.url || l.Settings.Model != "demo" || l.Settings.APIKeyEnv != demoKeyEnv || len(l.Problems) > 0 {
		t.Errorf("agentls reads the demo workspace's settings as %+v (trusted %v, problems %v)", l.Settings, l.WorkspaceTrusted, l.Problems)
	}
	env := settings.Defaults(func(k string) string {
		for _, kv := range strings.Fields(strings.TrimPrefix(p.export, "export ")) {
			if name, v, _ := strings.Cut(kv, "="); name == k {
				return v
			}
		}
		return ""
	})
	if env.BaseURL != p.url || env.Model != "demo" {
		t.Errorf("the export line %q gives baseUrl %q and model %q", p.export, env.BaseURL, env.Model)
	}
	for _, want := range []string{"Neovim ", "VS Code ", "Helix ", "Emacs ", ":AgentAsk", "Agent: Ask…", "space a", "C-c a a", "Ctrl-C"} {
		if !strings.Contains(p.out, want) {
			t.Errorf("the demo's output does not say %q:\n%s", want, p.out)
		}
	}
	after, err := stop()
	if err != nil || !strings.Contains(after, "The workspace stays in "+p.root) {
		t.Errorf("stopped: %v, printed %q", err, after)
	}
	if agent.LoadSettings(getenv, p.root).WorkspaceTrusted {
		t.Errorf("the demo's settings are still trusted once its model is gone")
	}
}

// demoEditorFor starts the demo and an agentls server (the fake editor
// of lsptest, with the profile) on its workspace with no settings of its
// own: only the workspace's file points it at the demo model.
func demoEditorFor(t *testing.T, profile lsptest.Profile, opts ...lsptest.Option) *lsptest.Editor {
	t.Helper()
	getenv := demoEnv(t)
	p, _ := startDemoEditor(t, getenv, "")
	t.Cleanup(func() { os.RemoveAll(p.root) })
	opts = append([]lsptest.Option{lsptest.ServerOptions(lsp.Options{Getenv: getenv}), lsptest.AwaitTimeout(2 * lsptest.DefaultAwaitTimeout)}, opts...)
	return lsptest.Start(t, p.root, profile, opts...)
}

func lines(a, b uint32) protocol.Range {
	return protocol.Range{Start: protocol.Position{Line: a}, End: protocol.Position{Line: b}}
}

func actionTitled(t *testing.T, actions []protocol.CodeAction, prefix string) protocol.CodeAction {
	t.Helper()
	for _, a := range actions {
		if strings.HasPrefix(a.Title, prefix) {
			return a
		}
	}
	var titles []string
	for _, a := range actions {
		titles = append(titles, a.Title)
	}
	t.Fatalf("no code action %q among %q", prefix, titles)
	return protocol.CodeAction{}
}

// renamedConfig is config.go once the demo model renamed Config.
const renamedConfig = "package app\n\n// Settings holds the settings.\ntype Settings struct {\n\tName string\n}\n\n" +
	"// Load returns the settings the app starts with.\nfunc Load() Settings {\n\treturn Settings{Name: \"demo\"}\n}\n"

// TestDemoEditorAsk: what a newcomer tries first, in an editor pointed at
// the demo by its workspace alone: the AI! comment's code action, and Ask
// on a selection, rename Config in config.go with a patch read from the
// buffer as it is (the selection case edits the buffer first, so a patch
// written for the file as the demo wrote it would not match).
func TestDemoEditorAsk(t *testing.T) {
	t.Run("AI! comment", func(t *testing.T) {
		e := demoEditorFor(t, lsptest.Neovim07())
		e.OpenFile("config.go", "go")
		a := actionTitled(t, e.CodeActions("config.go", lines(3, 3)), "Agent: rename Config to Settings")
		if err := e.RunCodeAction(a); err != nil {
			t.Fatal(err)
		}
		e.Await(lsptest.ShownMessage("agent turn 1 done", "Config is Settings now"), lsptest.BufferContent("config.go", renamedConfig))
	})
	t.Run("selection", func(t *testing.T) {
		e := demoEditorFor(t, lsptest.VSCode())
		e.OpenFile("config.go", "go")
		e.TypeAt("config.go", 10, 0, "\t// Name is what Run returns.\n")
		uri := "file://" + filepath.Join(e.Root, "config.go")
		if err := e.ExecuteCommand("agentls.ask", map[string]any{"prompt": "rename this", "uri": uri, "range": lines(4, 7)}); err != nil {
			t.Fatal(err)
		}
		want := strings.Replace(renamedConfig, "\treturn Settings", "\t// Name is what Run returns.\n\treturn Settings", 1)
		e.Await(lsptest.ShownMessage("agent turn 1 done"), lsptest.BufferContent("config.go", want))
	})
	// A question on a selection is answered, and changes nothing (the
	// demo model used to rename Config when asked to explain it).
	t.Run("question", func(t *testing.T) {
		e := demoEditorFor(t, lsptest.Neovim07())
		e.OpenFile("config.go", "go")
		before := e.Buffer("config.go")
		uri := "file://" + filepath.Join(e.Root, "config.go")
		if err := e.ExecuteCommand("agentls.ask", map[string]any{"prompt": "explain this", "uri": uri, "range": lines(4, 7)}); err != nil {
			t.Fatal(err)
		}
		e.Await(lsptest.ShownMessage("agent turn 1 done", "a question changes nothing"), lsptest.BufferContent("config.go", before))
		if n := e.EditsApplied(); n != 0 {
			t.Errorf("%d edits applied for a question", n)
		}
	})
}

// TestDemoEditorChat: a chat message gets a short reply, streamed into
// the chat document, and an edit (a doc comment on Run in main.go).
func TestDemoEditorChat(t *testing.T) {
	for _, p := range lsptest.Profiles() {
		t.Run(p.Name, func(t *testing.T) { testDemoEditorChat(t, p) })
	}
}

func testDemoEditorChat(t *testing.T, p lsptest.Profile) {
	e := demoEditorFor(t, p)
	e.OpenFile("main.go", "go")
	if err := e.ExecuteCommand("agentls.chat.open", map[string]any{"name": "chat"}); err != nil {
		t.Fatal(err)
	}
	chat := ".agentls/chat/chat.md"
	e.OpenFile(chat, "markdown")
	text := e.Buffer(chat)
	e.TypeAt(chat, strings.Count(text, "\n"), 0, "hello, what can you do?\n")
	if err := e.ExecuteCommand("agentls.chat.send", map[string]any{"uri": "file://" + filepath.Join(e.Root, chat)}); err != nil {
		t.Fatal(err)
	}
	e.Await(lsptest.ShownMessage("agent turn 1 done"),
		lsptest.BufferContent("main.go", "package app\n\n// Run returns the name the app's settings hold.\nfunc Run() string {\n\treturn Load().Name\n}\n"))
	if got := e.Buffer(chat); !strings.Contains(got, "Hello from agentls's demo model!") || !strings.Contains(got, "That is the chat.") {
		t.Errorf("the chat does not hold the demo model's reply:\n%s", got)
	}
}

// TestDemoEditorTests: "run the tests" asks before `go test ./...` (the
// demo allowlists nothing: the approval is what it shows); declined,
// nothing runs and the model says so; approved, the failing test becomes
// a diagnostic whose "Agent: fix" code action patches config.go.
func TestDemoEditorTests(t *testing.T) {
	t.Run("declined", func(t *testing.T) {
		e := demoEditorFor(t, lsptest.VSCode(), lsptest.Press("Skip"))
		if err := e.ExecuteCommand("agentls.ask", map[string]any{"prompt": "run the tests"}); err != nil {
			t.Fatal(err)
		}
		e.Await(lsptest.ShownMessageRequest("go test ./..."), lsptest.ShownMessage("agent turn 1 done", "You said no, so nothing ran"))
	})
	t.Run("approved, then fixed", func(t *testing.T) {
		if _, err := exec.LookPath("go"); err != nil {
			t.Skip("no go on PATH for the demo's go test")
		}
		e := demoEditorFor(t, lsptest.Neovim07(), lsptest.Press("Run"))
		e.OpenFile("app_test.go", "go")
		if err := e.ExecuteCommand("agentls.ask", map[string]any{"prompt": "run the tests"}); err != nil {
			t.Fatal(err)
		}
		failing := lsptest.Diagnostics(lsptest.ForFile("app_test.go"), lsptest.AtLine(6), lsptest.WithMessage(`want "agentls"`))
		e.Await(lsptest.ShownMessageRequest("go test ./..."), failing, lsptest.ShownMessage("agent turn 1 done", "`go test` fails"))
		diags := e.Diagnostics("app_test.go")
		fix := actionTitled(t, e.CodeActionsFor("app_test.go", lines(6, 6), diags), "Agent: fix")
		if err := e.RunCodeAction(fix); err != nil {
			t.Fatal(err)
		}
		want := strings.Replace(demoEditorFiles()["config.go"], `Name: "demo"`, `Name: "agentls"`, 1)
		e.Await(lsptest.ShownMessage("agent turn 2 done", "Fixed"), lsptest.FileContent("config.go", want))
	})
	// Emacs's set-up serves only Markdown buffers, so app_test.go's
	// diagnostic and its "Agent: fix" never show there: the failure's
	// message says to ask for the fix, and asking "fix the test" (which
	// names the tests) fixes it rather than running them again.
	t.Run("approved, then fixed by asking, with no Go buffer", func(t *testing.T) {
		if _, err := exec.LookPath("go"); err != nil {
			t.Skip("no go on PATH for the demo's go test")
		}
		e := demoEditorFor(t, lsptest.Neovim07(), lsptest.Press("Run"))
		if err := e.ExecuteCommand("agentls.ask", map[string]any{"prompt": "run the tests"}); err != nil {
			t.Fatal(err)
		}
		e.Await(lsptest.ShownMessageRequest("go test ./..."), lsptest.ShownMessage("agent turn 1 done", "`go test` fails", `"fix the test"`))
		if err := e.ExecuteCommand("agentls.ask", map[string]any{"prompt": "fix the test"}); err != nil {
			t.Fatal(err)
		}
		want := strings.Replace(demoEditorFiles()["config.go"], `Name: "demo"`, `Name: "agentls"`, 1)
		e.Await(lsptest.ShownMessage("agent turn 2 done", "Fixed"), lsptest.FileContent("config.go", want))
	})
}

// TestDemoEditorHelp: anything else gets a reply saying what the demo
// model can do, and changes nothing.
func TestDemoEditorHelp(t *testing.T) {
	e := demoEditorFor(t, lsptest.Helix())
	if err := e.ExecuteCommand("agentls.ask", map[string]any{"prompt": "write me a web server"}); err != nil {
		t.Fatal(err)
	}
	e.Await(lsptest.ShownMessage("agent turn 1 done", "I am agentls's demo model"), lsptest.FileContent("config.go", demoEditorFiles()["config.go"]))
}

// agentlsProcess starts the real agentls (the test binary is agentls, see
// TestMain) with env, returning its stdout.
func agentlsProcess(t *testing.T, env []string, args ...string) (*exec.Cmd, io.Reader) {
	t.Helper()
	cmd := exec.Command("agentls", args...)
	cmd.Env = env
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return cmd, out
}

// processEnv is the process environment of getenv's folders.
func processEnv(getenv func(string) string) []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		switch name {
		case "XDG_STATE_HOME", "XDG_CONFIG_HOME", "AGENTLS_MODEL", "OPENAI_BASE_URL", "OPENAI_API_KEY":
			continue
		}
		env = append(env, kv)
	}
	return append(env, "XDG_STATE_HOME="+getenv("XDG_STATE_HOME"), "XDG_CONFIG_HOME="+getenv("XDG_CONFIG_HOME"))
}

// TestDemoEditorProcess: the real command, as a person runs it: `agentls
// ask` in the demo workspace, with only what the demo printed, renames
// Config on disk; then Ctrl-C (or a SIGTERM) stops it with exit 0, the
// port closed, and the workspace named.
func TestDemoEditorProcess(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			getenv := demoEnv(t)
			env := processEnv(getenv)
			dir := filepath.Join(t.TempDir(), "demo")
			cmd, stdout := agentlsProcess(t, env, "demo", "--editor", "--dir", dir)
			p := readDemo(t, stdout)
			if sig == syscall.SIGINT {
				ask := exec.Command("agentls", "ask", "-C", p.root, "--base-url", p.url, "--model", "demo", "rename Config to Settings")
				ask.Env = env
				if out, err := ask.CombinedOutput(); err != nil {
					t.Fatalf("agentls ask: %v\n%s", err, out)
				}
				if got, _ := os.ReadFile(filepath.Join(dir, "config.go")); string(got) != renamedConfig {
					t.Errorf("agentls ask left config.go as\n%s", got)
				}
			}
			cmd.Process.Signal(sig)
			rest, _ := io.ReadAll(stdout)
			if err := cmd.Wait(); err != nil {
				t.Errorf("after %v: %v, want exit 0", sig, err)
			}
			if !strings.Contains(string(rest), "The workspace stays in "+p.root) {
				t.Errorf("after %v it printed %q", sig, rest)
			}
			addr := strings.TrimSuffix(strings.TrimPrefix(p.url, "http://"), "/v1")
			if c, err := net.Dial("tcp", addr); err == nil {
				c.Close()
				t.Errorf("%s still accepts connections once the demo stopped", addr)
			}
		})
	}
}

// TestDemoEditorRefuses: options that cannot work are refused with what
// to do, before anything is written: a folder with files in it (the demo
// would overwrite a project's config.go), an address off this machine (the
// user's code would leave it), a port in use; and flags of the other mode.
func TestDemoEditorRefuses(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	project := t.TempDir()
	os.WriteFile(filepath.Join(project, "config.go"), []byte("package mine\n"), 0o644)
	fresh := filepath.Join(t.TempDir(), "new")
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"a folder with files", []string{"--editor", "--dir", project}, exitFailed, "is not empty: give a new or empty folder"},
		{"off this machine", []string{"--editor", "--dir", fresh, "--listen", "0.0.0.0:0"}, exitFailed, "on this machine only"},
		{"a port in use", []string{"--editor", "--dir", fresh, "--listen", busy.Addr().String()}, exitFailed, "give another port"},
		{"no port", []string{"--editor", "--dir", fresh, "--listen", "127.0.0.1"}, exitFailed, "give HOST:PORT"},
		{"--keep with --editor", []string{"--editor", "--keep"}, exitUsage, "--editor always keeps its workspace"},
		{"--dir without --editor", []string{"--dir", fresh}, exitUsage, "go with --editor"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Already cancelled: a demo that wrongly starts ends at once
			// (exit 0, which fails the test) instead of waiting for Ctrl-C.
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			var stdout, errb strings.Builder
			code := run(ctx, append([]string{"demo"}, tt.args...), strings.NewReader(""), &stdout, &errb)
			stderr := errb.String()
			if code != tt.code || !strings.Contains(stderr, tt.want) {
				t.Errorf("exit %d, stderr %q; want exit %d saying %q", code, stderr, tt.code, tt.want)
			}
		})
	}
	if got, _ := os.ReadFile(filepath.Join(project, "config.go")); string(got) != "package mine\n" {
		t.Errorf("the project's config.go was changed: %q", got)
	}
	if entries, _ := os.ReadDir(project); len(entries) != 1 {
		t.Errorf("the demo wrote into the project: %d entries", len(entries))
	}
	if _, err := os.Stat(fresh); err == nil {
		t.Errorf("a refused demo created %s", fresh)
	}
}

// demoRequest is a request as the agent sends it: the system prompt
// (with the open files), the user's message, then the turn's replies and
// results.
func demoRequest(t *testing.T, open, user string, turn ...string) modeltest.Request {
	t.Helper()
	msgs := []map[string]string{{"role": "system", "content": "You are a coding agent.\n\n# Workspace\n\nRoot: /w\nOpen in the editor: " + open + "\n"}, {"role": "user", "content": user}}
	for i, m := range turn {
		msgs = append(msgs, map[string]string{"role": []string{"assistant", "user"}[i%2], "content": m})
	}
	body, _ := json.Marshal(map[string]any{"model": "demo", "messages": msgs})
	var req modeltest.Request
	if err := json.Unmarshal(body, &req.Body); err != nil {
		t.Fatal(err)
	}
	return req
}

// TestDemoModelEnds: whatever the tools answer — each call failing, each
// one done, or the reads done and the edits failing — every flow of the demo model stops calling tools within
// three steps, so a turn ends with words (a script that sent its patch
// again after an error would run the turn to its step limit).
func TestDemoModelEnds(t *testing.T) {
	reg := builtin.Registry()
	prompts := []struct{ name, open, user string }{
		{"AI!", "config.go", "rename Config to Settings\n\n(This is the instruction of the AI! comment on line 4 of config.go. Do it, then remove that comment.)\n"},
		{"selection", "config.go", "explain\n\nSelected in config.go, lines 1-3:\n```go\npackage app\n```\n"},
		{"fix", "app_test.go", "Fix the problem the editor shows below, with the smallest change that fixes its cause.\n\nProblems the editor shows:\n- app_test.go:7: error: TestRun: want \"agentls\"\n"},
		{"tests", "config.go", "run the tests\n"},
		{"chat", ".agentls/chat/chat.md, main.go", "hello\n"},
		{"help", "", "write me a web server\n"},
	}
	for _, p := range prompts {
		for _, outcome := range []string{"fails", "works", "only reads work"} {
			t.Run(p.name+"/"+outcome, func(t *testing.T) {
				var turn []string
				for step := 1; ; step++ {
					if step > 3 {
						t.Fatalf("still calling tools after 3 steps:\n%s", strings.Join(turn, "\n---\n"))
					}
					reply := demoReplyText(demoModel{}.reply(demoRequest(t, p.open, p.user, turn...)))
					parser := parse.NewParser(parse.Options{Format: tools.FormatMarkdown, Lookup: reg.Lookup})
					parser.WriteString(reply)
					parser.Finish()
					uses := parser.ToolUses()
					if len(uses) == 0 {
						return
					}
					call := agent.DescribeUse(uses[0])
					result := "Error from " + call + ": boom"
					if outcome == "works" || outcome == "only reads work" && uses[0].Tool == "read" {
						result = "Result of " + call + ":\n````x\n1\tpackage app\n2\ttype Config struct{}\n3\treturn Config{Name: \"demo\"}\n4\tfunc Run() string {\n````\nok"
					}
					turn = append(turn, reply[:uses[0].End], result)
				}
			})
		}
	}
}

// demoReplyText is the text a scripted reply streams.
func demoReplyText(r modeltest.Reply) string {
	var b strings.Builder
	for _, c := range r.Chunks {
		b.WriteString(c.Text)
	}
	return b.String()
}

// TestDemoEditorKilled: `demo --editor` killed with SIGKILL cannot revoke
// its trust grant, and left the workspace trusted with a baseUrl on a
// port nothing listens on — whoever binds it next gets the turns. The
// grant is bound to the demo's process: once that is gone, agentls no
// longer trusts the file.
func TestDemoEditorKilled(t *testing.T) {
	getenv := demoEnv(t)
	dir := filepath.Join(t.TempDir(), "demo")
	cmd, stdout := agentlsProcess(t, processEnv(getenv), "demo", "--editor", "--dir", dir)
	p := readDemo(t, stdout)
	if !agent.LoadSettings(getenv, p.root).WorkspaceTrusted {
		t.Fatal("the running demo's workspace is not trusted")
	}
	cmd.Process.Kill()
	cmd.Wait()
	if l := agent.LoadSettings(getenv, p.root); l.WorkspaceTrusted || l.Settings.BaseURL == p.url {
		t.Errorf("after SIGKILL the demo workspace is still trusted (baseUrl %q)", l.Settings.BaseURL)
	}
}

// TestDemoModelTellsWhatRan: "run the tests" in a folder that is not the
// demo's (no go.mod) is told as it ran, not as the demo workspace's
// TestRun failure.
func TestDemoModelTellsWhatRan(t *testing.T) {
	first := demoReplyText(demoModel{}.reply(demoRequest(t, "", "run the tests\n")))
	if !strings.Contains(first, "```shell\ngo test ./...\n```") {
		t.Fatalf("first reply %q", first)
	}
	p := parse.NewParser(parse.Options{Format: tools.FormatMarkdown, Lookup: builtin.Registry().Lookup})
	p.WriteString(first)
	p.Finish()
	call := agent.DescribeUse(p.ToolUses()[0])
	for _, tc := range []struct{ result, want, not string }{
		{"Error from " + call + ": exit 1\npattern ./...: directory prefix . does not contain main module or its selected dependencies", "did not pass, but not the way", "TestRun wants"},
		{"Result of " + call + ":\n--- FAIL: TestRun (0.00s)\n    app_test.go:7: Run() = \"demo\", want \"agentls\"\nFAIL", "TestRun wants", "did not pass"},
		{"Result of " + call + ":\nok  \texample.com/app\t0.01s", "passes", "TestRun"},
	} {
		got := demoReplyText(demoModel{}.reply(demoRequest(t, "", "run the tests\n", first, tc.result)))
		if !strings.Contains(got, tc.want) || strings.Contains(got, tc.not) {
			t.Errorf("after %q: %q; want %q, not %q", tc.result, got, tc.want, tc.not)
		}
	}
}
