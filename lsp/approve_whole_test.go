package lsp_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agentls/agentls/agent/modeltest"
	"github.com/agentls/agentls/lsp/lsptest"
)

// hiddenLine2 are blocks whose first line is harmless and whose second
// does the harm: issue 24's attack on the approval that showed only
// `import math  # … (+2 lines)`.
var hiddenLine2 = []struct{ name, tool, body string }{
	{"shell", "shell", "echo harmless\ntouch pwned\necho done"},
	{"ipython", "ipython", "import math  # nothing else happens\nopen('pwned', 'w').write('x')\nprint(math.pi)"},
	// One line, the harm past where a summary is cut.
	{"long line", "ipython", "note = '" + strings.Repeat("harmless ", 20) + "'; open('pwned', 'w').write('x')"},
}

// listedLine is a line of an approval's listing: "  2│ text".
var listedLine = regexp.MustCompile(`(?m)^ *[0-9]+│ (.*)$`)

// listed is the text an approval lists, its numbering taken off.
func listed(shown string) string {
	var lines []string
	for _, m := range listedLine.FindAllStringSubmatch(shown, -1) {
		lines = append(lines, m[1])
	}
	return strings.Join(lines, "\n")
}

// showsAll reports whether shown lists every line of body, in order, as
// the lines of its listing.
func showsAll(shown, body string) bool { return listed(shown) == body }

// TestApprovalShowsEveryLine: under each editor's profile, a user who
// approves only what was shown whole, where the choice is made, approves
// a block whose line 2 does the harm, and what ran is exactly what was
// listed. Neovim: the buttons' message lists every line. VS Code (whose
// message box clips and joins lines): the listing is opened as a
// document before the buttons. Helix: the pending-approval diagnostic
// lists every line and its code action carries the digest. Emacs: the
// message lists every line, then the command to answer with its digest.
// On the old code the user saw only the first line and declined, so
// nothing ran.
func TestApprovalShowsEveryLine(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("no python3 for the ipython tool")
	}
	for _, p := range []lsptest.Profile{lsptest.Neovim07(), lsptest.VSCode(), lsptest.Helix(), lsptest.Emacs()} {
		for _, block := range hiddenLine2 {
			t.Run(p.Name+"/"+block.name, func(t *testing.T) {
				t.Parallel()
				srv := modeltest.New(
					modeltest.Text("Running it.\n```"+block.tool+"\n"+block.body+"\n```\n\n", 16),
					modeltest.Text("Done.", 16),
				)
				defer srv.Close()
				root := writeFiles(t, files)
				var shown atomic.Value // what the user saw where the choice was made
				var ed atomic.Pointer[lsptest.Editor]
				answer := lsptest.AnswerRequests(func(r protocol.ShowMessageRequestParams) string {
					where := r.Message
					if p.Name == lsptest.VSCode().Name {
						// Its message box shows ~1000 characters on one
						// line: the user reads the document opened first.
						where = ""
						for _, d := range ed.Load().ShownDocuments() {
							b, _ := os.ReadFile(uri.URI(d).Filename())
							where += string(b)
						}
					}
					shown.Store(where)
					if showsAll(where, block.body) {
						return "Run"
					}
					return "Skip"
				})
				// Python's start is slow on a busy machine: a bound, not a wait.
				e := lsptest.Start(t, root, p, lsptest.InitOptions(map[string]any{"model": "m", "baseUrl": srv.URL}), answer, lsptest.AwaitTimeout(time.Minute))
				ed.Store(e)
				e.OpenFile("a.go", "go")
				askAbout(t, e, "run it")
				switch p.Name {
				case lsptest.Helix().Name:
					e.Await(lsptest.Diagnostics(lsptest.ForFile("a.go"), lsptest.WithCode("pending-approval")))
					var d protocol.Diagnostic
					for _, x := range e.Diagnostics("a.go") {
						if x.Code == "pending-approval" {
							d = x
						}
					}
					shown.Store(d.Message)
					if !showsAll(d.Message, block.body) {
						t.Fatalf("the diagnostic the code actions sit on does not list every line:\n%s", d.Message)
					}
					a := findAction(e.CodeActionsFor("a.go", d.Range, []protocol.Diagnostic{d}), "Approve:")
					if a == nil {
						t.Fatal("no Approve code action")
					}
					t.Logf("the code action: %q", a.Title)
					if err := e.RunCodeAction(*a); err != nil {
						t.Fatal(err)
					}
				case lsptest.Emacs().Name:
					e.Await(lsptest.ShownMessage("asks to", "agentls.approve"))
					var msg string
					for _, m := range e.Messages() {
						if strings.Contains(m.Message, "agentls.approve") {
							msg = m.Message
						}
					}
					shown.Store(msg)
					if !showsAll(msg, block.body) {
						t.Fatalf("the message does not list every line:\n%s", msg)
					}
					// The plugin answers with the arguments the message names.
					i := strings.Index(msg, "agentls.deny {")
					if i < 0 {
						t.Fatalf("the message names no arguments: %s", msg)
					}
					var args map[string]any
					if err := json.NewDecoder(strings.NewReader(msg[i+len("agentls.deny "):])).Decode(&args); err != nil {
						t.Fatalf("the arguments in %q: %v", msg, err)
					}
					if err := e.ExecuteCommand("agentls.approve", args); err != nil {
						t.Fatal(err)
					}
				}
				e.Await(lsptest.ShownMessage("agent turn 1 done"), lsptest.NoDiagnostics(lsptest.ForFile("a.go"), lsptest.WithCode("pending-approval")))
				where, _ := shown.Load().(string)
				t.Logf("shown:\n%s", where)
				if _, err := os.Stat(e.Root + "/pwned"); err != nil {
					t.Errorf("the block the user approved did not run whole: %v", err)
				}
				if got := listed(where); got != block.body {
					t.Errorf("listed %q, ran %q", got, block.body)
				}
			})
		}
	}
}

// TestApproveBlindRefused is the attack on the commands that answer from
// a place that shows one line (Helix's status line and `space A y`, a
// key bound to agentls.approve): a block with a listing is approved only
// with the digest printed after the listing. Without it, or with another,
// nothing runs and the question still waits; denying needs no digest.
func TestApproveBlindRefused(t *testing.T) {
	t.Parallel()
	srv := shellTurn(hiddenLine2[0].body)
	defer srv.Close()
	e := lsptest.Start(t, writeFiles(t, files), lsptest.Helix(), lsptest.InitOptions(map[string]any{"model": "m", "baseUrl": srv.URL}))
	e.OpenFile("a.go", "go")
	askAbout(t, e, "run it")
	e.Await(lsptest.Diagnostics(lsptest.ForFile("a.go"), lsptest.WithCode("pending-approval"), lsptest.WithMessage("echo harmless")))
	for _, args := range []map[string]any{
		{},
		{"request": 1},
		{"always": true},
		{"request": 1, "digest": "0123456789abcdef"},
		{"digest": "0123456789abcdef"},
	} {
		err := e.ExecuteCommand("agentls.approve", args)
		if err == nil || !strings.Contains(err.Error(), "nothing was") {
			t.Errorf("agentls.approve %v: %v", args, err)
		}
	}
	if err := e.ExecuteCommand("agentls.deny", map[string]any{}); err != nil {
		t.Fatal(err)
	}
	e.Await(lsptest.ShownMessage("agent turn 1 done"), lsptest.NoFile("pwned"))
	if result := srv.Requests()[1].Body.Messages[3].Content; !strings.Contains(result, "the user declined") {
		t.Errorf("the model was told %q", result)
	}
}
