package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/agent/modeltest"
	"github.com/agentls/agentls/lsp/lsptest"
)

// A frontEnd runs one turn of the prompt in root with the settings set,
// against srv, as one front-end does, and returns what the user saw of
// it: the server's messages and diagnostics, or agentls ask's stderr.
type frontEnd struct {
	name string
	// run runs it; the server also waits for a diagnostic on diagFile
	// ("" for none), which the user sees.
	run func(t *testing.T, root string, set map[string]any, srv *modeltest.Server, prompt, diagFile string) (seen string)
}

// frontEnds are the language server (through a real LSP client) and
// agentls ask: both start their turns with agent.Prepare.
var frontEnds = []frontEnd{
	{"server", func(t *testing.T, root string, set map[string]any, srv *modeltest.Server, prompt, diagFile string) string {
		opts := map[string]any{"model": "m", "baseUrl": srv.URL}
		for k, v := range set {
			opts[k] = v
		}
		e := lsptest.Start(t, root, lsptest.Helix(), lsptest.InitOptions(opts), lsptest.AwaitTimeout(time.Minute))
		if err := e.ExecuteCommand("agentls.ask", map[string]any{"prompt": prompt}); err != nil {
			t.Fatal(err)
		}
		e.Await(lsptest.ShownMessage("agent turn 1"), lsptest.CompletedWork("agent turn 1"))
		var seen strings.Builder
		for _, m := range e.Messages() {
			seen.WriteString(m.Message + "\n")
		}
		if diagFile != "" {
			e.Await(lsptest.Diagnostics(lsptest.ForFile(diagFile)))
			for _, d := range e.Diagnostics(diagFile) {
				fmt.Fprintf(&seen, "%s:%d: %s\n", diagFile, d.Range.Start.Line+1, d.Message)
			}
		}
		return seen.String()
	}},
	{"ask", func(t *testing.T, root string, set map[string]any, srv *modeltest.Server, prompt, _ string) string {
		config := t.TempDir()
		t.Setenv("XDG_CONFIG_HOME", config)
		t.Setenv("XDG_STATE_HOME", t.TempDir())
		t.Setenv("OPENAI_API_KEY", "")
		t.Setenv("AGENTLS_PROMPT", "full") // as the server's tests run (lsptest)
		data, err := json.Marshal(set)
		if err != nil {
			t.Fatal(err)
		}
		os.MkdirAll(filepath.Join(config, "agentls"), 0o755)
		if err := os.WriteFile(filepath.Join(config, "agentls", "settings.json"), data, 0o644); err != nil {
			t.Fatal(err)
		}
		_, stderr, _ := runCLI(t, "", "ask", "-C", root, "--model", "m", "--base-url", srv.URL, prompt)
		return stderr
	}},
}

// toolResult is what the model was told of its first call: the first
// message after the system prompt, the request and its reply.
func toolResult(t *testing.T, srv *modeltest.Server) string {
	t.Helper()
	reqs := srv.Requests()
	if len(reqs) < 2 {
		t.Fatalf("%d model calls, want the call and what came of it", len(reqs))
	}
	msgs := reqs[1].Body.Messages
	return msgs[len(msgs)-1].Content
}

// offered are the tools a request offered the model (toolFormat "tool"),
// sorted.
func offered(srv *modeltest.Server) []string {
	var names []string
	for _, tool := range srv.Requests()[0].Body.Tools {
		names = append(names, tool.Function.Name)
	}
	slices.Sort(names)
	return names
}

// variable blanks what differs between two runs of one turn: its folder,
// times and durations, log files.
var variable = regexp.MustCompile(`/tmp/\S+|\d+(\.\d+)? ?(ms|s)\b|\d{8}T\d{6}Z`)

// TestSameSettingsServerAndAsk runs the same settings through the server
// and through agentls ask and checks they behave the same for every key a
// turn reads — the drifts the one core removed: ask ignored shellTimeout,
// outputLimits and errorFormats, did not offer morph with applyModel set,
// and the two worded approvalPolicy "deny" differently.
func TestSameSettingsServerAndAsk(t *testing.T) {
	for _, tc := range []struct {
		name    string
		files   map[string]string
		diag    string // the file a command's problem is on
		set     map[string]any
		replies []modeltest.Reply
		// check looks at one front-end's run; the model's view of the
		// call must also be the same in both (toolResult, blanked).
		check func(t *testing.T, root, seen string, srv *modeltest.Server)
	}{
		{name: "shellTimeout",
			set:     map[string]any{"shellTimeout": 1, "commandAllowlist": []string{"sleep"}},
			replies: []modeltest.Reply{modeltest.Text("```shell\nsleep 30\n```\n", 6), modeltest.Text("It timed out.", 4)},
			check: func(t *testing.T, root, seen string, srv *modeltest.Server) {
				if got := toolResult(t, srv); !strings.Contains(got, "timed out (after 1.") {
					t.Errorf("the model read %q, want the command timed out after 1 s", got)
				}
			}},
		{name: "outputLimits",
			set:     map[string]any{"outputLimits": map[string]int{"stdoutHead": 100, "stdoutTail": 100}, "commandAllowlist": []string{"seq"}},
			replies: []modeltest.Reply{modeltest.Text("```shell\nseq 1 5000\n```\n", 6), modeltest.Text("Counted.", 4)},
			check: func(t *testing.T, root, seen string, srv *modeltest.Server) {
				got := toolResult(t, srv)
				if len(got) > 1200 || !strings.Contains(got, "\n1\n2\n") || !strings.Contains(got, "4999\n5000") {
					t.Errorf("the model read %d bytes of seq's 23,893 (want the head and tail of 100 each): %q", len(got), got)
				}
			}},
		{name: "errorFormats",
			files:   map[string]string{"notes.txt": "one\ntwo\nthree\n"},
			diag:    "notes.txt",
			set:     map[string]any{"errorFormats": []string{"%f|%l| %m"}, "commandAllowlist": []string{"printf"}},
			replies: []modeltest.Reply{modeltest.Text("```shell\nprintf 'notes.txt|2| custom trouble\\n'\n```\n", 6), modeltest.Text("Checked.", 4)},
			check: func(t *testing.T, root, seen string, srv *modeltest.Server) {
				// The server publishes it on notes.txt, ask prints it:
				// both read the line with the user's format.
				if !regexp.MustCompile(`notes\.txt:2\b.*custom trouble|custom trouble.*notes\.txt:2\b`).MatchString(seen) {
					t.Errorf("the errorFormats line was not read into a problem at notes.txt:2; the user saw:\n%s", seen)
				}
			}},
		{name: "applyModel offers morph",
			set:     map[string]any{"toolFormat": "tool", "applyModel": map[string]string{"model": "fast-apply"}},
			replies: []modeltest.Reply{modeltest.Text("Nothing to do.", 4)},
			check: func(t *testing.T, root, seen string, srv *modeltest.Server) {
				if got := offered(srv); !slices.Contains(got, "morph") || !slices.Contains(got, "patch") {
					t.Errorf("tools offered: %q, want morph beside patch", got)
				}
			}},
		{name: "approvalPolicy deny",
			set:     map[string]any{"approvalPolicy": "deny"},
			replies: []modeltest.Reply{modeltest.Text("```shell\ntouch made\n```\n", 6), modeltest.Text("Refused.", 4)},
			check: func(t *testing.T, root, seen string, srv *modeltest.Server) {
				got := toolResult(t, srv)
				if !strings.Contains(got, "approvalPolicy") || strings.Contains(got, "declined") || strings.Contains(got, "nobody can be asked") {
					t.Errorf("the model read %q, want the policy named as why (nobody declined, nobody was asked)", got)
				}
				if _, err := os.Stat(filepath.Join(root, "made")); err == nil {
					t.Error("a denied command ran")
				}
			}},
		{name: "prompt compact",
			set:     map[string]any{"prompt": "compact"},
			replies: []modeltest.Reply{modeltest.Text("Nothing to do.", 4)},
			check: func(t *testing.T, root, seen string, srv *modeltest.Server) {
				if sys := srv.Requests()[0].Body.Messages[0].Content; len(sys) > 2500 {
					t.Errorf("the compact system prompt is %d bytes", len(sys))
				}
			}},
		// A model on this machine (Ollama, llama.cpp) gets the compact
		// prompt in the editor too, not only in agentls ask.
		{name: "prompt auto with a local model",
			set:     map[string]any{"prompt": "auto"},
			replies: []modeltest.Reply{modeltest.Text("Nothing to do.", 4)},
			check: func(t *testing.T, root, seen string, srv *modeltest.Server) {
				if sys := srv.Requests()[0].Body.Messages[0].Content; len(sys) > 2500 {
					t.Errorf("the compact system prompt is %d bytes", len(sys))
				}
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var results, tools []string
			var compact []bool
			for _, fe := range frontEnds {
				root := t.TempDir()
				for name, text := range tc.files {
					os.WriteFile(filepath.Join(root, name), []byte(text), 0o644)
				}
				srv := modeltest.New(tc.replies...)
				defer srv.Close()
				seen := fe.run(t, root, tc.set, srv, "do it", tc.diag)
				t.Run(fe.name, func(t *testing.T) { tc.check(t, root, seen, srv) })
				reqs := srv.Requests()
				if len(reqs) == 0 {
					t.Fatalf("%s: the model was never called; the user saw:\n%s", fe.name, seen)
				}
				compact = append(compact, len(reqs[0].Body.Messages[0].Content) < 2500)
				tools = append(tools, strings.Join(offered(srv), " "))
				if len(reqs) > 1 {
					results = append(results, variable.ReplaceAllString(strings.ReplaceAll(toolResult(t, srv), root, "ROOT"), "_"))
				}
			}
			if tools[0] != tools[1] {
				t.Errorf("tools offered differ:\nserver: %s\nask:    %s", tools[0], tools[1])
			}
			if len(results) == 2 && results[0] != results[1] {
				t.Errorf("the model read different results of the same call:\nserver: %q\nask:    %q", results[0], results[1])
			}
			if compact[0] != compact[1] {
				t.Errorf("one front-end sent the compact system prompt and the other the full one (server compact: %v)", compact[0])
			}
		})
	}
}

// TestToolsOffersMorphWithApplyModel: agentls tools lists what a turn
// offers, from the same settings and the same binding (agent.OfferedTools):
// with applyModel set, morph is offered (it used to be listed as "not
// offered: needs an apply model" while agentls ask offered and ran it).
func TestToolsOffersMorphWithApplyModel(t *testing.T) {
	config := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", config)
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	os.MkdirAll(filepath.Join(config, "agentls"), 0o755)
	os.WriteFile(filepath.Join(config, "agentls", "settings.json"), []byte(`{"applyModel": {"model": "fast-apply", "baseUrl": "http://127.0.0.1:9/v1"}}`), 0o644)
	stdout, stderr, code := runCLI(t, "", "tools", "-C", t.TempDir(), "--all")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, line := range strings.Split(stdout, "\n") {
		if strings.HasPrefix(line, "morph ") {
			if strings.Contains(line, "not offered") {
				t.Errorf("morph: %s", line)
			}
			return
		}
	}
	t.Errorf("morph is not listed:\n%s", stdout)
}
