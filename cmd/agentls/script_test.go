package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/agentls/agentls/agent/modeltest"
)

// TestMain lets the test binary be agentls itself: a script's `exec
// agentls …` runs this binary again under that name, which runs main (the
// real one, with its os.Exit and the serve stdout swap), so the scripts
// test the command as users run it — a process, real pipes, real exit
// codes — with no separate build step.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){"agentls": main, "agentls-test-mcp": mcpTestServer})
}

// TestScript runs the CLI contract (DESIGN.md §7) written as scripts:
// testdata/script/NAME.txtar, one per subcommand at least. Run one with
// `go test ./cmd/agentls -run TestScript/apply`; `-update` rewrites the
// files that a script's `cmp stdout FILE` compares with.
func TestScript(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:           filepath.Join("testdata", "script"),
		Setup:         scriptSetup,
		Cmds:          map[string]func(*testscript.TestScript, bool, []string){"exits": cmdExits, "model": cmdModel},
		UpdateScripts: *update,
		// `exec agentls` says it starts a process; a bare `agentls` would
		// hide that and which exit code is asserted.
		RequireExplicitExec: true,
	})
}

// scriptState is one script's own: the fake model it started.
type scriptState struct {
	model *modeltest.Server
}

type scriptStateKey struct{}

// scriptSetup gives each script a home of its own inside $WORK, so that
// nothing reads or writes the user's settings, trust records or logs, and
// no model key or endpoint of the environment reaches agentls.
func scriptSetup(env *testscript.Env) error {
	home := filepath.Join(env.WorkDir, "home")
	for k, v := range map[string]string{
		"HOME":            home,
		"XDG_CONFIG_HOME": filepath.Join(home, ".config"),
		"XDG_STATE_HOME":  filepath.Join(home, ".local", "state"),
		"XDG_CACHE_HOME":  filepath.Join(home, ".cache"),
		"OPENAI_API_KEY":  "",
		"OPENAI_BASE_URL": "",
		"AGENTLS_MODEL":   "",
	} {
		env.Setenv(k, v)
	}
	if err := os.MkdirAll(home, 0o755); err != nil {
		return fmt.Errorf("script home: %w", err)
	}
	// $agentlsbin holds only agentls: `env PATH=$agentlsbin` runs it
	// where no other program is found (a tool whose program is missing).
	bin, err := exec.LookPath("agentls")
	if err != nil {
		return fmt.Errorf("agentls is not on the scripts' PATH: %w", err)
	}
	env.Setenv("agentlsbin", filepath.Dir(bin))
	env.Setenv("ORIGPATH", env.Getenv("PATH"))
	// The go command a script runs (agentls demo's `go test`) keeps the
	// build cache it had: with a fresh HOME it would compile the standard
	// library first.
	cache := os.Getenv("GOCACHE")
	if cache == "" {
		if dir, err := os.UserCacheDir(); err == nil {
			cache = filepath.Join(dir, "go-build")
		}
	}
	env.Setenv("GOCACHE", cache)
	env.Values[scriptStateKey{}] = &scriptState{}
	return nil
}

// cmdExits is `exits CODE PROGRAM ARGS...`: run the program (with the
// script's stdin, like exec) and require that exact exit code; its stdout
// and stderr are kept for the `stdout`/`stderr` lines after it. exec only
// tells success from failure, and the contract's 1 (refused, nothing
// changed) and 2 (usage) must not be confused.
func cmdExits(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("usage: exits CODE PROGRAM [ARGS...] (no !: give the code expected)")
	}
	if len(args) < 2 {
		ts.Fatalf("usage: exits CODE PROGRAM [ARGS...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("exits %s: the exit code must be a number", args[0])
	}
	err = ts.Exec(args[1], args[2:]...)
	got := 0
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		got = exit.ExitCode()
	case err != nil:
		ts.Fatalf("exits %d %s: %v", want, args[1], err)
	}
	if got != want {
		ts.Fatalf("%s exited %d, want %d", args[1], got, want)
	}
}

// cmdModel drives the fake model of agent/modeltest from a script:
//
//	model serve REPLY_FILE...   start it, answering the requests with the
//	                            files' texts in order (streamed in pieces);
//	                            OPENAI_BASE_URL points agentls at it; a
//	                            second serve replaces the first
//	model requests              print what it was asked, for stdout lines
//
// The server runs in the test process; agentls, a child process, reaches
// it over HTTP as it would a real one.
func cmdModel(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("usage: model serve FILE... | model requests (no !)")
	}
	state := ts.Value(scriptStateKey{}).(*scriptState)
	if len(args) == 0 {
		ts.Fatalf("usage: model serve FILE... | model requests")
	}
	switch args[0] {
	case "serve":
		var replies []modeltest.Reply
		for _, name := range args[1:] {
			// Pieces of 7 bytes: a reply's blocks arrive split mid-line, as
			// a real model streams them.
			replies = append(replies, modeltest.Text(ts.ReadFile(name), 7))
		}
		if state.model != nil {
			// A new script of replies: the old server and what it was
			// asked are done with.
			state.model.Close()
		} else {
			ts.Defer(func() { state.model.Close() })
		}
		state.model = modeltest.New(replies...)
		ts.Setenv("OPENAI_BASE_URL", state.model.URL)
	case "requests":
		if state.model == nil {
			ts.Fatalf("model requests: no model was started (model serve FILE...)")
		}
		out := ts.Stdout()
		for i, r := range state.model.Requests() {
			fmt.Fprintf(out, "== request %d: model %s\n", i+1, r.Body.Model)
			for _, m := range r.Body.Messages {
				content := strings.TrimSuffix(m.Content, "\n")
				if m.Role == "system" {
					// The prompt is agent's to test; its size here would
					// only bury what a script looks for.
					first, _, _ := strings.Cut(content, "\n")
					content = fmt.Sprintf("%s [… %d lines]", first, strings.Count(content, "\n")+1)
				}
				fmt.Fprintf(out, "-- %s\n%s\n", m.Role, content)
			}
		}
	default:
		ts.Fatalf("model %s: unknown (serve FILE... or requests)", args[0])
	}
}
