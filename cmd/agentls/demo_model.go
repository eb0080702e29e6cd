package main

import (
	"regexp"
	"strings"
	"time"

	"github.com/agentls/agentls/agent/modeltest"
	"github.com/agentls/agentls/internal/text"
)

// The model of `agentls demo --editor`: a script, not a model, that
// answers what a newcomer tries in an editor, in any order. Each request
// is read as the agent sends it (agent.Messages: the system prompt, a
// chat's history, the user's message with its selection and problems,
// then "Result of …" / "Error from …" for each tool call of the turn so
// far), matched to the first flow of demoFlows whose trigger fits, and
// that flow's next step is decided by the results the turn already has.
// So every turn ends: a flow's steps only move forward.

// demoEditorFiles are the editor demo's workspace: config.go holds an AI!
// comment to try; main.go does not name Config, so renaming it in
// config.go alone keeps the package building; app_test.go fails until
// Load's name is "agentls", so `go test` has a problem to show.
func demoEditorFiles() map[string]string {
	return map[string]string{
		"config.go": "package app\n\n// Config holds the settings.\n// AI! rename Config to Settings\ntype Config struct {\n\tName string\n}\n\n" +
			"// Load returns the settings the app starts with.\nfunc Load() Config {\n\treturn Config{Name: \"demo\"}\n}\n",
		"main.go":     "package app\n\nfunc Run() string {\n\treturn Load().Name\n}\n",
		"go.mod":      "module example.com/app\n\ngo 1.21\n",
		"app_test.go": demoWorkspace()["app_test.go"],
	}
}

// A demoFlow is one thing the demo model does: when says whether a
// request is its, next writes the reply for the turn's next step.
type demoFlow struct {
	name string
	when func(c demoConversation) bool
	next func(c demoConversation) string
}

// demoFlows are the triggers, first match wins: a fix (the code action on
// a diagnostic) and "run the tests" before the rename, whose trigger (the
// word config, a selection in config.go) is the widest; the chat's reply
// and the help are for everything else.
func demoFlows() []demoFlow {
	return []demoFlow{
		{"fix", func(c demoConversation) bool {
			// Asking "fix the test" is the way in an editor that serves no Go
			// buffer (Emacs's set-up: Markdown only), where the diagnostic and
			// its "Agent: fix" never show.
			return c.problems != "" || strings.HasPrefix(c.prompt, "Fix the problem") || fixWords.MatchString(c.prompt)
		},
			demoEdit{path: "config.go", change: fixName,
				intro:   "The test wants Run() to return \"agentls\"; Run returns Load's Name. I'll read config.go first.",
				patch:   "Load's name becomes \"agentls\":",
				done:    "Fixed: Load's Name is \"agentls\" now, so TestRun passes. Ask me to run the tests again to see them pass.",
				nothing: "config.go's Load already names \"agentls\" (or no longer says Name: \"demo\"): I am the demo's script and only know that fix."}.next},
		{"tests", func(c demoConversation) bool { return testsWords.MatchString(c.prompt) }, runTests},
		// A question edits nothing: "explain this" on a selection in
		// config.go gets words, not the rename.
		{"explain", func(c demoConversation) bool {
			// A chat shows an edit whatever is asked (its own flow).
			return !c.chat && questionWords.MatchString(c.prompt) && !renameWords.MatchString(c.prompt)
		}, explain},
		{"rename", func(c demoConversation) bool {
			return c.selection == "config.go" || renameWords.MatchString(c.prompt)
		}, demoEdit{path: "config.go", change: renameConfig,
			intro:   "I'll rename Config to Settings. First I read config.go, as the editor holds it.",
			patch:   "Renaming Config to Settings in config.go (and removing the AI! comment, now done):",
			done:    "Done: Config is Settings now. Undo it in one step (the message below says how, in your editor) and try again, or ask me to run the tests.",
			nothing: "config.go has no Config left to rename: it says Settings already. Undo the rename to try it again."}.next},
		{"chat", func(c demoConversation) bool { return c.chat }, demoEdit{path: "main.go", change: documentRun,
			intro: "Hello from agentls's demo model! I am a script, not a real model, but this is a real chat: my reply streams into this document and " +
				"my edits land in your buffers. Let me read main.go.",
			patch:   "Here is an edit for you to see, a doc comment on Run:",
			done:    "That is the chat. Try \"rename Config\" or \"run the tests\" here too, or the AI! comment in config.go.",
			nothing: "Run has a doc comment already. Try \"rename Config\" or \"run the tests\"."}.next},
		{"help", func(demoConversation) bool { return true }, func(demoConversation) string { return demoHelp }},
	}
}

var (
	fixWords    = regexp.MustCompile(`(?i)\bfix\b`)
	testsWords  = regexp.MustCompile(`(?i)\b(tests?|go test)\b`)
	renameWords = regexp.MustCompile(`(?i)rename|\bconfig\b`)
	// questionWords: a request that asks rather than tells.
	questionWords = regexp.MustCompile(`(?i)\b(explain|what|why|how|describe|tell me)\b|\?`)
)

// explain answers a question about the code without changing it.
func explain(c demoConversation) string {
	what := "the demo's workspace: config.go declares Config (the app's settings) and Load, which returns them; main.go's Run returns Load's Name; app_test.go wants that name to be \"agentls\""
	if c.selection != "" {
		what = c.selection + ", in " + what
	}
	return "This is " + what + ". I am the demo's script, so that is all I can say, and a question changes nothing. " +
		"Try \"rename Config\" or \"run the tests\" to see an edit and a command."
}

const demoHelp = "I am agentls's demo model, a script with no key and no network, so I only know a few things:\n\n" +
	"- the `AI!` comment in config.go: its code action \"Agent: rename Config to Settings\" renames it;\n" +
	"- ask about a selection in config.go (or say \"rename Config\"): the same rename;\n" +
	"- \"run the tests\": I run `go test ./...`, which asks you first; its failure shows as a diagnostic in app_test.go, whose \"Agent: fix\" code action I can do;\n" +
	"- in a chat (.agentls/chat/), any other message: a short reply and an edit.\n\n" +
	"For a real model, set model, baseUrl and apiKeyEnv (README: Configuration)."

// runTests is the "run the tests" flow: `go test ./...`, which is not on
// the demo's allowlist, so the user is asked; then what came of it.
func runTests(c demoConversation) string {
	r, ran := c.result("shell")
	switch {
	case !ran:
		return "I'll run the tests; agentls asks you before a command that is not on your allowlist.\n\n```shell\ngo test ./...\n```\n"
	case !r.ok && strings.Contains(r.text, "declined"):
		return "You said no, so nothing ran. That is the approval: commands the allowlist does not name wait for you."
	case strings.Contains(r.text, "FAIL") && strings.Contains(r.text, "TestRun"):
		// Only the failure the demo's workspace has: what ran elsewhere
		// (a folder of yours, no go.mod) is told as it is.
		return "`go test` fails: TestRun wants Run() to return \"agentls\". The failure is a diagnostic on app_test.go now " +
			"(in editors that show agentls's diagnostics there); its code action \"Agent: fix\" asks me to fix it (or ask me: \"fix the test\")."
	case !r.ok:
		return "`go test ./...` did not pass, but not the way the demo's workspace fails, so I cannot say more than its output: " + firstLine(r.text) +
			" (the demo's workspace is a Go module whose TestRun fails; `agentls demo --editor` makes one)."
	case strings.Contains(r.text, "ok ") || strings.Contains(r.text, "PASS"):
		return "`go test ./...` passes."
	default:
		return "`go test ./...` ran: " + firstLine(r.text)
	}
}

// A demoEdit is a flow that changes one file as a model should: read it,
// patch what the read showed (so the patch matches the buffer as it is,
// whatever the user did to it before), then say it is done.
type demoEdit struct {
	path   string
	change func(lines []string, i int) []string // line i's replacement: nil drops it
	// What the model says before reading, with the patch, once it
	// applied, and when the file has nothing to change.
	intro, patch, done, nothing string
}

func (e demoEdit) next(c demoConversation) string {
	read, ok := c.result("read " + e.path)
	if !ok {
		return e.intro + "\n\n```read " + e.path + "\n```\n"
	}
	if !read.ok {
		return "I could not read " + e.path + ": " + firstLine(read.text)
	}
	patched, ok := c.result("patch " + e.path)
	switch {
	case ok && patched.ok:
		return e.done
	case ok:
		return "My patch did not apply: " + firstLine(patched.text) + " (the demo's script does not try again)."
	}
	block, changed := demoPatch(e.path, readLines(read.text), e.change)
	if !changed {
		return e.nothing
	}
	return e.patch + "\n\n" + block
}

// renameConfig renames Config to Settings, and drops the AI! comment that
// asked for it (an instruction done; left, it would read "rename Settings
// to Settings").
func renameConfig(lines []string, i int) []string {
	if strings.Contains(lines[i], "AI!") {
		return nil
	}
	return []string{strings.ReplaceAll(lines[i], "Config", "Settings")}
}

// fixName makes Load's name the one app_test.go wants.
func fixName(lines []string, i int) []string {
	return []string{strings.ReplaceAll(lines[i], `Name: "demo"`, `Name: "agentls"`)}
}

// documentRun gives Run a doc comment, unless it has one.
func documentRun(lines []string, i int) []string {
	if strings.HasPrefix(lines[i], "func Run(") && (i == 0 || !strings.HasPrefix(strings.TrimSpace(lines[i-1]), "//")) {
		return []string{"// Run returns the name the app's settings hold.", lines[i]}
	}
	return []string{lines[i]}
}

// demoPatch returns a patch block for path that replaces the lines from
// the first to the last one change alters, and whether there is one.
func demoPatch(path string, lines []string, change func(lines []string, i int) []string) (string, bool) {
	first, last := -1, -1
	var updated [][]string
	for i, l := range lines {
		repl := change(lines, i)
		updated = append(updated, repl)
		if len(repl) != 1 || repl[0] != l {
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	if first < 0 {
		return "", false
	}
	var original, replaced []string
	for i := first; i <= last; i++ {
		original = append(original, lines[i])
		replaced = append(replaced, updated[i]...)
	}
	body := "<<<<<<< ORIGINAL\n" + strings.Join(original, "\n") + "\n=======\n" + strings.Join(replaced, "\n") + "\n>>>>>>> UPDATED\n"
	fence := text.Fence(body)
	return fence + "patch " + path + "\n" + body + fence + "\n", true
}

// readLines returns the text of a read result's numbered lines ("  3\ttext").
func readLines(result string) []string {
	var out []string
	for _, l := range strings.Split(result, "\n") {
		if m := numberedLine.FindStringSubmatch(l); m != nil {
			out = append(out, m[1])
		}
	}
	return out
}

var numberedLine = regexp.MustCompile(`^ *[0-9]+\t(.*)$`)

func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return line
}

// demoConversation is what the demo model reads of a request.
type demoConversation struct {
	prompt    string // the user's words, without the selection and problems
	selection string // the selected file's path, "" for none
	problems  string // the problems the editor showed with the request
	chat      bool   // asked from a chat document (one is open, nothing selected)
	results   []demoResult
}

// A demoResult is what a tool call of the turn so far came to.
type demoResult struct {
	call string // as agent.DescribeUse names it: "read config.go", "shell"
	ok   bool   // a "Result of", not an "Error from"
	text string
}

// result returns the turn's last result of call.
func (c demoConversation) result(call string) (demoResult, bool) {
	for i := len(c.results) - 1; i >= 0; i-- {
		if c.results[i].call == call {
			return c.results[i], true
		}
	}
	return demoResult{}, false
}

var (
	selectedIn = regexp.MustCompile(`\nSelected in (.+), lines [0-9]+-[0-9]+:\n`)
	openFiles  = regexp.MustCompile(`(?m)^Open in the editor: (.*)$`)
)

// readConversation reads a request: the user's message is the last one
// that is not a tool's result; the results after it are this turn's.
func readConversation(req modeltest.Request) demoConversation {
	var c demoConversation
	msgs := req.Body.Messages
	user := -1
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == "user" && !isResult(msgs[i].Content) {
			user = i
			break
		}
	}
	if user < 0 {
		return c
	}
	text := msgs[user].Content
	c.prompt = text
	if i := strings.Index(text, "\nProblems the editor shows:\n"); i >= 0 {
		c.prompt, c.problems = text[:i], text[i:]
	}
	if m := selectedIn.FindStringSubmatchIndex(c.prompt); m != nil {
		c.selection = c.prompt[m[2]:m[3]]
		c.prompt = c.prompt[:m[0]]
	}
	c.prompt = strings.TrimSpace(c.prompt)
	if len(msgs) > 0 && msgs[0].Role == "system" && c.selection == "" {
		if m := openFiles.FindStringSubmatch(msgs[0].Content); m != nil {
			c.chat = strings.Contains(", "+m[1], ", "+chatFolderPrefix)
		}
	}
	for _, m := range msgs[user+1:] {
		if m.Role == "assistant" || !isResult(m.Content) {
			continue
		}
		c.results = append(c.results, parseResult(m.Content))
	}
	return c
}

// chatFolderPrefix is where chat documents are (lsp's chat folder).
const chatFolderPrefix = ".agentls/chat/"

// isResult reports whether a user message is what the agent says of a
// tool call (agent's runTools), not the user's.
func isResult(content string) bool {
	for _, p := range []string{"Result of ", "Error from ", "These tool calls could not be read", "The user stopped the turn"} {
		if strings.HasPrefix(content, p) {
			return true
		}
	}
	return false
}

func parseResult(content string) demoResult {
	if rest, ok := strings.CutPrefix(content, "Result of "); ok {
		call, text, _ := strings.Cut(rest, ":\n")
		return demoResult{call: call, ok: true, text: text}
	}
	if rest, ok := strings.CutPrefix(content, "Error from "); ok {
		call, text, _ := strings.Cut(rest, ": ")
		return demoResult{call: call, text: text}
	}
	return demoResult{text: content}
}

// demoModel is the script as a modeltest responder; delay paces its
// chunks so a reply is seen streaming into a chat.
type demoModel struct {
	delay time.Duration
}

func (m demoModel) reply(req modeltest.Request) modeltest.Reply {
	c := readConversation(req)
	for _, f := range demoFlows() {
		if f.when(c) {
			r := modeltest.Text(f.next(c), 16)
			r.Delay = m.delay
			return r
		}
	}
	return modeltest.Text(demoHelp, 16) // unreachable: help matches all
}
