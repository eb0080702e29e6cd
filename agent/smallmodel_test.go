package agent

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	openai "github.com/sashabaranov/go-openai"

	"github.com/agentls/agentls/agent/modeltest"
	"github.com/agentls/agentls/tools"
	"github.com/agentls/agentls/tools/builtin"
	"github.com/agentls/agentls/tools/edittool"
	"github.com/agentls/agentls/tools/shelltool"
)

// boundTurn is a turn over ws with the default turn's tools bound to it,
// as agentls ask runs one.
func boundTurn(t *testing.T, srv *modeltest.Server, ws *memWorkspace, format tools.Format) *Turn {
	t.Helper()
	reg, _, err := BindTools(builtin.Registry(), tools.Env{Workspace: ws}, noHost, testToolOptions(ws)).Select(append(edittool.TurnTools(), shelltool.TurnTools()...))
	if err != nil {
		t.Fatal(err)
	}
	return &Turn{Model: testModel(t, srv.URL, ModelConfig{Retries: 1}), Registry: reg, Format: format, Runner: Runner{Registry: reg}}
}

// compactTurn is boundTurn in the markdown format with the compact prompt,
// as agentls ask runs a turn against a local model.
func compactTurn(t *testing.T, srv *modeltest.Server, ws *memWorkspace) *Turn {
	t.Helper()
	turn := boundTurn(t, srv, ws, tools.FormatMarkdown)
	turn.Compact = true
	return turn
}

const aGo = "package main\n\nimport \"fmt\"\n\nfunc foo(x int) int {\n\treturn x * 2\n}\n\nfunc main() {\n\tfmt.Println(foo(21))\n}\n"

// TestRepeatedFailingCall: the same failing patch sent again and again
// gets, the second time, the file's current lines with their numbers, and
// the third time ends the turn with ErrRepeated naming the call; the
// model is not called a fourth time.
func TestRepeatedFailingCall(t *testing.T) {
	bad := "```patch a.go\n<<<<<<< ORIGINAL\nfunc foo() {\n=======\nfunc bar() {\n>>>>>>> UPDATED\n```\n"
	srv := modeltest.New(modeltest.Text(bad, 50), modeltest.Text(bad, 50), modeltest.Text(bad, 50), modeltest.Text("never asked", 50))
	defer srv.Close()
	ws := &memWorkspace{files: map[string]string{"a.go": aGo}}
	turn := boundTurn(t, srv, ws, tools.FormatMarkdown)
	started := 0
	turn.Observe = func(e Event) {
		if e.Kind == EventToolStart {
			started++
		}
	}
	sum, err := turn.Run(context.Background(), Request{Prompt: "rename foo to bar", Root: "/ws"})
	if started != 2 {
		t.Errorf("the patch ran %d times, want 2: the third is refused unrun", started)
	}
	if !errors.Is(err, ErrRepeated) || !strings.Contains(err.Error(), "patch a.go call a third time after it failed twice") || !strings.Contains(err.Error(), "the third was not run") {
		t.Fatalf("err = %v", err)
	}
	if reqs := srv.Requests(); len(reqs) != 3 || sum.Steps != 3 {
		t.Fatalf("%d model calls, %d steps", len(reqs), sum.Steps)
	}
	msgs := srv.Requests()[2].Body.Messages
	first, second := msgs[3].Content, msgs[5].Content
	if strings.Contains(first, "same patch call") || !strings.Contains(first, "ORIGINAL was not found") {
		t.Errorf("first error = %q", first)
	}
	if !strings.Contains(second, "You sent this same patch call before") || !strings.Contains(second, " 5\tfunc foo(x int) int {") {
		t.Errorf("second error lacks the file's numbered lines: %q", second)
	}
	if ws.files["a.go"] != aGo {
		t.Errorf("a.go changed: %q", ws.files["a.go"])
	}
}

// TestFailureAfterAnEditIsNoRepeat: a call that failed twice and is sent
// again after an edit applied runs — the edit may have made it pass (a
// test run after a fix); only a third failure with nothing changed in
// between ends the turn.
func TestFailureAfterAnEditIsNoRepeat(t *testing.T) {
	bad := "```patch a.go\n<<<<<<< ORIGINAL\nfunc foo() {\n=======\nfunc bar() {\n>>>>>>> UPDATED\n```\n"
	srv := modeltest.New(modeltest.Text(bad, 50), modeltest.Text(bad, 50),
		modeltest.Text("```save notes.txt\nrenaming foo\n```\n", 50),
		modeltest.Text(bad, 50), modeltest.Text("I could not rename it.", 50))
	defer srv.Close()
	ws := &memWorkspace{files: map[string]string{"a.go": aGo}}
	sum, err := boundTurn(t, srv, ws, tools.FormatMarkdown).Run(context.Background(), Request{Prompt: "rename foo to bar", Root: "/ws"})
	if err != nil {
		t.Fatalf("err = %v after %d steps", err, sum.Steps)
	}
	reqs := srv.Requests()
	if len(reqs) != 5 {
		t.Fatalf("%d model calls, want 5", len(reqs))
	}
	msgs := reqs[4].Body.Messages
	if last := msgs[len(msgs)-1].Content; !strings.Contains(last, "Error from patch a.go") || strings.Contains(last, "Not run") {
		t.Errorf("the patch after the edit was not run: %q", last)
	}
	if ws.files["notes.txt"] != "renaming foo\n" || ws.files["a.go"] != aGo {
		t.Errorf("files = %q", ws.files)
	}
}

// TestRepeatedUnreadableCall: a call that cannot be read, written the same
// way three times, ends the turn too.
func TestRepeatedUnreadableCall(t *testing.T) {
	bad := "@save(call_1): {\"path\": \"a.txt\", \"content\": \"x" // never ends
	srv := modeltest.New(modeltest.Text(bad, 50), modeltest.Text(bad, 50), modeltest.Text(bad, 50), modeltest.Text("never asked", 50))
	defer srv.Close()
	ws := &memWorkspace{files: map[string]string{}}
	_, err := boundTurn(t, srv, ws, tools.FormatTool).Run(context.Background(), Request{Prompt: "save x in a.txt", Root: "/ws"})
	if len(srv.Requests()) > 3 {
		for _, m := range srv.Requests()[len(srv.Requests())-1].Body.Messages[2:] {
			t.Logf("%s: %s", m.Role, m.Content)
		}
		t.Fatalf("%d model calls", len(srv.Requests()))
	}
	if !errors.Is(err, ErrRepeated) || !strings.Contains(err.Error(), "never end") {
		t.Fatalf("err = %v", err)
	}
	if second := srv.Requests()[2].Body.Messages[5].Content; !strings.Contains(second, "You wrote this same unreadable call before") {
		t.Errorf("second problem = %q", second)
	}
}

// TestPatchWithSectionsAppliedAsPatchMany: a patch block without a path
// holding patch_many's "=== PATH:" sections is applied as patch_many, and
// the model is told so.
func TestPatchWithSectionsAppliedAsPatchMany(t *testing.T) {
	srv := modeltest.New(
		modeltest.Text("```patch\n=== PATH: a.go ===\n<<<<<<< ORIGINAL\nfunc foo(x int) int {\n=======\nfunc bar(x int) int {\n>>>>>>> UPDATED\n<<<<<<< ORIGINAL\n\tfmt.Println(foo(21))\n=======\n\tfmt.Println(bar(21))\n>>>>>>> UPDATED\n```\n", 50),
		modeltest.Text("Renamed foo to bar.", 50))
	defer srv.Close()
	ws := &memWorkspace{files: map[string]string{"a.go": aGo}}
	if _, err := boundTurn(t, srv, ws, tools.FormatMarkdown).Run(context.Background(), Request{Prompt: "rename foo to bar", Root: "/ws"}); err != nil {
		t.Fatal(err)
	}
	if got := ws.files["a.go"]; !strings.Contains(got, "func bar(x int)") || !strings.Contains(got, "Println(bar(21))") {
		t.Errorf("a.go = %q", got)
	}
	if told := srv.Requests()[1].Body.Messages[3].Content; !strings.Contains(told, "applied as patch_many") {
		t.Errorf("the model was told %q", told)
	}
}

// TestPatchErrorsNameThePatchMistake: a patch with no path gets patch's
// own example, never save's; sections naming a missing file say the form
// is patch_many's and that nothing changed.
func TestPatchErrorsNameThePatchMistake(t *testing.T) {
	for _, tc := range []struct{ name, reply, want, not string }{
		{"no path", "```patch\n<<<<<<< ORIGINAL\nx\n=======\ny\n>>>>>>> UPDATED\n```\n", "```patch path/to/file", "```save"},
		{"sections of a missing file", "```patch\n=== PATH: main.go ===\n<<<<<<< ORIGINAL\nfunc foo() {\n=======\nfunc bar() {\n>>>>>>> UPDATED\n```\n", "patch_many's form", "```save"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := modeltest.New(modeltest.Text(tc.reply, 50), modeltest.Text("ok", 50))
			defer srv.Close()
			ws := &memWorkspace{files: map[string]string{"a.go": aGo}}
			if _, err := boundTurn(t, srv, ws, tools.FormatMarkdown).Run(context.Background(), Request{Prompt: "rename foo to bar", Root: "/ws"}); err != nil {
				t.Fatal(err)
			}
			told := srv.Requests()[1].Body.Messages[3].Content
			if !strings.Contains(told, tc.want) || strings.Contains(told, tc.not) {
				t.Errorf("the model was told %q", told)
			}
		})
	}
}

// TestOriginalNotFoundShowsNearestLines: the nearest real lines of the
// file reach the model with a patch whose ORIGINAL is not in it.
func TestOriginalNotFoundShowsNearestLines(t *testing.T) {
	srv := modeltest.New(modeltest.Text("```patch a.go\n<<<<<<< ORIGINAL\nfunc foo(x int) float {\n=======\nfunc bar(x int) int {\n>>>>>>> UPDATED\n```\n", 50), modeltest.Text("ok", 50))
	defer srv.Close()
	ws := &memWorkspace{files: map[string]string{"a.go": aGo}}
	if _, err := boundTurn(t, srv, ws, tools.FormatMarkdown).Run(context.Background(), Request{Prompt: "rename foo to bar", Root: "/ws"}); err != nil {
		t.Fatal(err)
	}
	if told := srv.Requests()[1].Body.Messages[3].Content; !strings.Contains(told, "nearest lines") || !strings.Contains(told, "func foo(x int) int {") {
		t.Errorf("the model was told %q", told)
	}
}

// TestNamedFilesInContext: the files the prompt names and the selection's
// file are in the first request, numbered as read shows them, at most
// three; secrets and missing files are not.
func TestNamedFilesInContext(t *testing.T) {
	srv := modeltest.New(modeltest.Text("Nothing to do.", 50))
	defer srv.Close()
	ws := &memWorkspace{files: map[string]string{
		"a.go": aGo, "src/x.ts": "export const x = 1;\n", ".env": "TOKEN=secret\n", "big.txt": strings.Repeat("0123456789\n", 2000),
	}}
	req := Request{Prompt: "Look at a.go, src/x.ts, .env and big.txt (not missing.py, v1.5)", Root: "/ws"}
	if _, err := boundTurn(t, srv, ws, tools.FormatMarkdown).Run(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	user := srv.Requests()[0].Body.Messages[1].Content
	for _, want := range []string{" 5\tfunc foo(x int) int {", "1\texport const x = 1;", "(cut at 8 KB"} {
		if !strings.Contains(user, want) {
			t.Errorf("the first message lacks %q:\n%s", want, user)
		}
	}
	if strings.Contains(user, "TOKEN") || len(user) > 3*maxContextBytes {
		t.Errorf("the first message holds a secret or too much (%d bytes)", len(user))
	}
	if got := namedFiles(Request{Prompt: "fix count.py, not @b.py", Selection: &Selection{Path: "lib/a.py"}}); strings.Join(got, ",") != "lib/a.py,count.py" {
		t.Errorf("namedFiles = %q", got)
	}
	// Which names are secrets is the shell policy's rule (policy.SecretRule).
	if got := namedFiles(Request{Prompt: "use tls/server.pem, .env.local and deploy/id_ed25519 in main.go", Root: "/ws"}); strings.Join(got, ",") != "main.go" {
		t.Errorf("namedFiles with secrets = %q", got)
	}
}

// TestCodeWithoutToolIsNotDone: a reply showing changed code in a
// language block and calling no tool, on a request for a change, gets
// the model told once which call would apply it, and the user a notice;
// the same again ends the turn with ErrNothingApplied.
func TestCodeWithoutToolIsNotDone(t *testing.T) {
	shown := "Here is the fix:\n```python\ndef count_to(n):\n    return list(range(1, n + 1))\n```\n"
	srv := modeltest.New(modeltest.Text(shown, 50), modeltest.Text(shown, 50), modeltest.Text("never asked", 50))
	defer srv.Close()
	ws := &memWorkspace{files: map[string]string{"count.py": "def count_to(n):\n    return list(range(1, n))\n"}}
	turn := boundTurn(t, srv, ws, tools.FormatMarkdown)
	var notices []string
	turn.Observe = func(e Event) {
		if e.Kind == EventNotice {
			notices = append(notices, e.Text)
		}
	}
	_, err := turn.Run(context.Background(), Request{Prompt: "count_to(3) in count.py returns [1, 2] but it should return [1, 2, 3]. Fix the bug.", Root: "/ws"})
	if !errors.Is(err, ErrNothingApplied) || !strings.Contains(err.Error(), "count.py is unchanged") {
		t.Fatalf("err = %v", err)
	}
	if len(notices) != 1 || !strings.Contains(notices[0], "nothing was applied") {
		t.Errorf("notices = %q", notices)
	}
	told := srv.Requests()[1].Body.Messages[3].Content
	if !strings.Contains(told, "```patch count.py") || !strings.Contains(told, "```save count.py") {
		t.Errorf("the model was told %q", told)
	}
	if len(srv.Requests()) != 2 {
		t.Errorf("%d model calls", len(srv.Requests()))
	}
}

// TestCodeWithoutToolOnQuestion: a question answered with code is a
// finished turn.
func TestCodeWithoutToolOnQuestion(t *testing.T) {
	srv := modeltest.New(modeltest.Text("Like this:\n```go\nfor i := range 3 {}\n```\n", 50))
	defer srv.Close()
	ws := &memWorkspace{files: map[string]string{}}
	if _, err := boundTurn(t, srv, ws, tools.FormatMarkdown).Run(context.Background(), Request{Prompt: "how do I loop three times in Go?", Root: "/ws"}); err != nil {
		t.Fatal(err)
	}
}

// TestCompactPromptBudget: the compact system prompt of a default turn
// stays within its token budget in every format, much under the full
// one, and holds no example file or code a model could copy, nor the
// root's absolute path (the real model wrote it into a link).
func TestCompactPromptBudget(t *testing.T) {
	reg, _, err := builtin.Registry().Select(append(edittool.TurnTools(), shelltool.TurnTools()...))
	if err != nil {
		t.Fatal(err)
	}
	req := Request{Prompt: "In a.go, rename foo to bar", Root: "/home/me/project"}
	for _, format := range tools.AllFormats() {
		compact := CompactSystemPrompt(reg, format, req)
		full := SystemPrompt(reg, format, req)
		fullNative, compactNative := nativeSize(NativeTools(reg, format)), nativeSize(compactNativeTools(reg, format))
		ct, ft := EstimateTokens(compact)+EstimateTokens(compactNative), EstimateTokens(full)+EstimateTokens(fullNative)
		t.Logf("%s: compact %d tokens, full %d tokens", format, ct, ft)
		if ct > PromptBudget[format] {
			t.Errorf("%s: the compact prompt takes ~%d tokens, over its budget of %d:\n%s", format, ct, PromptBudget[format], compact)
		}
		for _, copied := range []string{"main.go", "config.go", "hello.py", "=== PATH", req.Root} {
			if strings.Contains(compact, copied) {
				t.Errorf("%s: the compact prompt holds %q, which a small model copies", format, copied)
			}
		}
		if format != tools.FormatTool && !strings.Contains(compact, "a.go") {
			t.Errorf("%s: the compact prompt's calls are not on the request's file:\n%s", format, compact)
		}
	}
}

// nativeSize is the JSON of native tool definitions, as sent.
func nativeSize(nt []openai.Tool) string {
	if nt == nil {
		return ""
	}
	data, _ := json.Marshal(nt)
	return string(data)
}

// TestBareCallSalvaged: in a compact turn, a reply that spells a save of
// one of the request's files without its fences ("save a.go" and the new
// file) is read as that save when it keeps most of the file's lines; the
// model is told how it was read. Prose after "save a.go" is not written.
func TestBareCallSalvaged(t *testing.T) {
	renamed := strings.ReplaceAll(aGo, "foo", "bar")
	for _, tc := range []struct {
		name, reply, want string
	}{
		{"edited copy", "save a.go\n" + strings.TrimSuffix(renamed, "\n"), renamed},
		{"prose", "save a.go\nI will rename foo to bar in a.go and update main.", aGo},
		{"two saves", "save a.go\n" + renamed + "\nsave b.go\npackage main\n", renamed},
		// aider's file listings with the tool's name: "save PATH", a fence.
		{"two fenced saves", "save a.go\n```\n" + renamed + "```\n\nsave b.go\n```go\npackage main\n```\n", renamed},
		{"a bare fence first", "```\nsave a.go\n" + renamed + "```\n", renamed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := modeltest.New(modeltest.Text(tc.reply, 50), modeltest.Text(tc.reply, 50), modeltest.Text("Renamed.", 50))
			defer srv.Close()
			ws := &memWorkspace{files: map[string]string{"a.go": aGo, "b.go": "package main\n"}}
			turn := compactTurn(t, srv, ws)
			turn.Run(context.Background(), Request{Prompt: "In a.go and b.go, rename foo to bar", Root: "/ws"})
			if ws.files["a.go"] != tc.want {
				t.Errorf("a.go = %q", ws.files["a.go"])
			}
			if told := srv.Requests()[1].Body.Messages[3].Content; tc.want != aGo && !strings.Contains(told, "it was read as a ```save a.go block") && !strings.Contains(told, "it was read as ```save a.go, ```save b.go blocks") {
				t.Errorf("the model was told %q", srv.Requests()[1].Body.Messages[3].Content)
			}
		})
	}
}

// TestShrinkingSaveRefused: in a compact turn, a save that would keep
// less than half of a file's lines, on a request that asks for no
// removal, is refused and the file kept (a small model sent back only
// the lines it changed); asked to remove, it is written.
func TestShrinkingSaveRefused(t *testing.T) {
	count := "def count_to(n):\n    \"\"\"Return the numbers from 1 to n.\"\"\"\n    result = []\n    for i in range(1, n):\n        result.append(i)\n    return result\n"
	fragment := "```save count.py\nresult = [1]\nfor i in range(2, n + 1):\n    result.append(i)\nreturn result\n```\n"
	for _, tc := range []struct {
		prompt string
		kept   bool
	}{
		{"count_to(3) in count.py returns [1, 2]. Fix the bug.", true},
		{"Replace count.py with a loop at the top level.", false},
	} {
		srv := modeltest.New(modeltest.Text(fragment, 50), modeltest.Text("Done.", 50), modeltest.Text("Done.", 50))
		ws := &memWorkspace{files: map[string]string{"count.py": count}}
		turn := compactTurn(t, srv, ws)
		turn.Run(context.Background(), Request{Prompt: tc.prompt, Root: "/ws"})
		srv.Close()
		if kept := ws.files["count.py"] == count; kept != tc.kept {
			t.Errorf("%q: count.py kept = %v: %q", tc.prompt, kept, ws.files["count.py"])
		}
		if tc.kept && !strings.Contains(srv.Requests()[1].Body.Messages[3].Content, "keeps less than half of the file's 6 lines") {
			t.Errorf("the model was told %q", srv.Requests()[1].Body.Messages[3].Content)
		}
	}
}

// TestShrinkingSaveOfASmallFile: the real model, asked to add a function
// to a 3-line math.ts, saved only the new function over it (recorded in
// the evaluation's ts-add-export); the save is refused and the file kept.
func TestShrinkingSaveOfASmallFile(t *testing.T) {
	math := "export function double(n: number): number {\n  return n * 2;\n}\n"
	reply := "```save math.ts\nexport function isEven(n: number): boolean {\n  return n % 2 === 0;\n}\n```\n"
	srv := modeltest.New(modeltest.Text(reply, 50), modeltest.Text("Done.", 50))
	defer srv.Close()
	ws := &memWorkspace{files: map[string]string{"math.ts": math}}
	turn := compactTurn(t, srv, ws)
	turn.Run(context.Background(), Request{Prompt: "In math.ts, add an exported function isEven(n: number): boolean that says whether n is even.", Root: "/ws"})
	if ws.files["math.ts"] != math {
		t.Errorf("math.ts = %q", ws.files["math.ts"])
	}
	if told := srv.Requests()[1].Body.Messages[3].Content; !strings.Contains(told, "drops 2 of the file's 3 lines") || !strings.Contains(told, "with what you add") {
		t.Errorf("the model was told %q", told)
	}
}

// TestAddingSaveOffersTheKeptFile: asked to add Max to mathx.go, the real
// model sent Max alone, three times, each refused as dropping Min. The
// refusal now offers the save it meant, every line kept and Max at the
// end; sent back, it is written. What the model sent opens with the
// file's package clause, which is not repeated.
func TestAddingSaveOffersTheKeptFile(t *testing.T) {
	mathx := "package mathx\n\n// Min returns the smaller of a and b.\nfunc Min(a, b int) int {\n\tif a < b {\n\t\treturn a\n\t}\n\treturn b\n}\n"
	max := "// Max returns the larger of a and b.\nfunc Max(a, b int) int {\n\tif a > b {\n\t\treturn a\n\t}\n\treturn b\n}\n"
	want := mathx + "\n" + max
	srv := modeltest.New(
		modeltest.Text("```save mathx.go\npackage mathx\n\n"+max+"```\n", 50),
		modeltest.Text("```save mathx.go\n"+want+"```\n", 50),
		modeltest.Text("Added Max.", 50))
	defer srv.Close()
	ws := &memWorkspace{files: map[string]string{"mathx.go": mathx}}
	turn := compactTurn(t, srv, ws)
	if _, err := turn.Run(context.Background(), Request{Prompt: "In mathx.go, add a function Max(a, b int) int that returns the larger of a and b.", Root: "/ws"}); err != nil {
		t.Fatal(err)
	}
	msgs := srv.Requests()[1].Body.Messages
	if told := msgs[len(msgs)-1].Content; !strings.Contains(told, "drops 3 of the file's 8 lines") || !strings.Contains(told, "adds yours at the end:\n```save mathx.go\n"+want+"```") {
		t.Errorf("the model was told %q", told)
	}
	if ws.files["mathx.go"] != want {
		t.Errorf("mathx.go = %q", ws.files["mathx.go"])
	}
	for _, tc := range []struct{ current, content, want string }{
		{"a\nb\n", "a\n\nc\n", "a\nb\n\nc\n"},
		{"a\nb", "c", "a\nb\n\nc\n"},
		{"a\nb\n", "a\n\n", ""},
		{"a\nb\n", "", ""},
	} {
		if got := appended(tc.current, tc.content); got != tc.want {
			t.Errorf("appended(%q, %q) = %q, want %q", tc.current, tc.content, got, tc.want)
		}
	}
}

// TestDeletedFileNotSavedAgain: asked to delete old.go, the real model
// wrote the delete call and then, copying on, the file as a save call
// (first reply: the call in its own fence; second: both in bare fences,
// "```\ndelete old.go\n```"). The delete is run, the save is refused,
// and old.go stays deleted. The model's last reply is not recorded.
func TestDeletedFileNotSavedAgain(t *testing.T) {
	old := "package shop\n\n// oldPrice is the price before the change.\nfunc oldPrice(n int) int {\n\treturn 4 * n\n}\n"
	for _, tc := range []struct{ name, reply, told string }{
		{"fenced", "```delete old.go\n\n```\n\nThe current content of old.go, as a save call would write it:\n```save old.go\n" + old + "```",
			"the request asks for old.go to be gone from there, and this turn deleted or moved it"},
		{"one line", "delete old.go", "it was read as a ```delete old.go block"},
		// Both bare calls are read; the save is refused.
		{"bare fences", "```\ndelete old.go\n``````\nsave old.go\n" + strings.Replace(old, "4 * n", "3 * n", 1) + "```",
			"the request asks for old.go to be gone from there"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := modeltest.New(modeltest.Text(tc.reply, 50), modeltest.Text("Deleted old.go.", 50))
			defer srv.Close()
			ws := &memWorkspace{files: map[string]string{"old.go": old, "shop.go": "package shop\n"}}
			turn := compactTurn(t, srv, ws)
			if _, err := turn.Run(context.Background(), Request{Prompt: "Delete the file old.go; nothing uses it.", Root: "/ws"}); err != nil {
				t.Fatal(err)
			}
			if got, ok := ws.files["old.go"]; ok {
				t.Errorf("old.go is back: %q", got)
			}
			first := srv.Requests()[0].Body.Messages
			if msg := first[len(first)-1].Content; strings.Contains(msg, "```save old.go") || !strings.HasSuffix(strings.TrimSpace(msg), "```delete old.go\n\n```") {
				t.Errorf("the request ends %q", msg)
			}
			if msgs := srv.Requests()[1].Body.Messages; !slices.ContainsFunc(msgs, func(m modeltest.Message) bool {
				return m.Role == "user" && strings.Contains(m.Content, tc.told)
			}) {
				t.Errorf("the model was never told %q: %q", tc.told, msgs[len(msgs)-1].Content)
			}
		})
	}
}

// TestFileLevelRequestsFinished: real replies to requests that move or
// delete files. Asked to move notes.md, the model moved it and then, told
// notes.md was unchanged, saved it again: told no longer (the move counts
// as changing it), and a save of it after its move is refused, here in
// the move's own reply. Asked to "move the
// code of helpers.go into a new file named strings.go and delete
// helpers.go", it did one half and stopped: it is asked once for the
// other, with the delete call to send, or for the new file's save.
func TestFileLevelRequestsFinished(t *testing.T) {
	helpers := "package text\n\nimport \"strings\"\n\n// Shout returns s in capitals with an exclamation mark.\nfunc Shout(s string) string {\n\treturn strings.ToUpper(s) + \"!\"\n}\n"
	notes := "# Notes\n\n- Keep it small.\n"
	split := "Move the code of helpers.go into a new file named strings.go and delete helpers.go."
	for _, tc := range []struct {
		name, prompt string
		files        map[string]string
		replies      []string
		told         string
		want         map[string]string // "" for a file that must not exist
	}{
		{"moved, then saved where it was", "Move notes.md into the docs folder (docs/notes.md), keeping its content.", map[string]string{"notes.md": notes},
			[]string{"```move notes.md docs/notes.md\n\n```\n\n```save notes.md\n" + notes + "```", "Moved."},
			"the request asks for notes.md to be gone from there", map[string]string{"notes.md": "", "docs/notes.md": notes}},
		{"saved the new file, kept the old", split, map[string]string{"helpers.go": helpers},
			[]string{"```save strings.go\n" + helpers + "```", "The change was applied.", "```delete helpers.go\n```", "Done."},
			"The request asks to delete helpers.go, which is still there. Reply with this call:\n```delete helpers.go\n\n```", map[string]string{"helpers.go": "", "strings.go": helpers}},
		{"deleted the old, made no new file", split, map[string]string{"helpers.go": helpers},
			[]string{"```delete helpers.go\n\n```", "The change was applied, as the file `helpers.go` has been deleted.", "```save strings.go\n" + helpers + "```", "Done."},
			"The request asks for a new file strings.go, which you did not create. Send its save block now", map[string]string{"helpers.go": "", "strings.go": helpers}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var replies []modeltest.Reply
			for _, r := range tc.replies {
				replies = append(replies, modeltest.Text(r, 50))
			}
			srv := modeltest.New(replies...)
			defer srv.Close()
			ws := &memWorkspace{files: maps.Clone(tc.files)}
			turn := compactTurn(t, srv, ws)
			if _, err := turn.Run(context.Background(), Request{Prompt: tc.prompt, Root: "/ws"}); err != nil {
				reqs := srv.Requests()
				for _, m := range reqs[len(reqs)-1].Body.Messages[1:] {
					t.Logf("%s: %s", m.Role, m.Content)
				}
				t.Fatal(err)
			}
			reqs := srv.Requests()
			if msgs := reqs[len(reqs)-1].Body.Messages; !slices.ContainsFunc(msgs, func(m modeltest.Message) bool {
				return m.Role == "user" && strings.Contains(m.Content, tc.told)
			}) {
				for _, m := range reqs[len(reqs)-1].Body.Messages[1:] {
					t.Logf("%s: %s", m.Role, m.Content)
				}
				t.Errorf("the model was never told %q", tc.told)
			}
			for p, want := range tc.want {
				if got, ok := ws.files[p]; got != want || ok != (want != "") {
					t.Errorf("%s = %q (exists %v), want %q", p, got, ok, want)
				}
			}
		})
	}
}

// TestNudgeOfAFileCall: asked to delete old.go or move notes.md, the real
// model claimed it was done without a call (and, shown a save of
// notes.md, saved it unchanged). It is told once with the call the
// request asks for — alone when that call is all the request asks for —
// and the file to edit besides, if any, as its save.
func TestNudgeOfAFileCall(t *testing.T) {
	for _, tc := range []struct {
		name, prompt, claim string
		files               map[string]string
		want                []string
		not                 string
	}{
		{"delete", "Delete the file old.go; nothing uses it.", "The file old.go has been deleted.",
			map[string]string{"old.go": "package shop\n"}, []string{"To delete old.go, reply with this call and nothing else:\n```delete old.go\n"}, "```save"},
		{"move", "Move notes.md into the docs folder (docs/notes.md), keeping its content.", "The file `notes.md` has been moved to `docs/notes.md`.",
			map[string]string{"notes.md": "# Notes\n"}, []string{"To move notes.md to docs/notes.md (the file keeps its content), reply with this call and nothing else:\n```move notes.md docs/notes.md\n"}, "```save"},
		{"delete and edit", "Delete legacy.ts and remove its import and use from index.ts.", "Done: legacy.ts is deleted.",
			map[string]string{"legacy.ts": "export const x = 1;\n", "index.ts": "import { x } from \"./legacy\";\nconsole.log(x);\n"},
			[]string{"To delete legacy.ts, reply with this call:\n```delete legacy.ts\n", "```save index.ts\nimport { x }"}, "```save legacy.ts"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := modeltest.New(modeltest.Text(tc.claim, 50), modeltest.Text(tc.claim, 50))
			defer srv.Close()
			ws := &memWorkspace{files: maps.Clone(tc.files)}
			turn := compactTurn(t, srv, ws)
			if _, err := turn.Run(context.Background(), Request{Prompt: tc.prompt, Root: "/ws"}); !errors.Is(err, ErrNothingApplied) {
				t.Fatalf("err = %v, want ErrNothingApplied", err)
			}
			msgs := srv.Requests()[1].Body.Messages
			told := msgs[len(msgs)-1].Content
			for _, w := range tc.want {
				if !strings.Contains(told, w) {
					t.Errorf("the model was told %q, without %q", told, w)
				}
			}
			if strings.Contains(told, tc.not) {
				t.Errorf("the model was told %q, with %q", told, tc.not)
			}
			if !maps.Equal(ws.files, tc.files) {
				t.Errorf("files changed: %q", ws.files)
			}
		})
	}
}

// TestMergedSaveSplit: asked to rename greet in utils.py and its use in
// main.py, the real model saved utils.py holding both files, in every run
// of this stop. The save is refused, files kept, with the two saves to
// send; sent, both files are right. A save that merely resembles another
// file is written.
func TestMergedSaveSplit(t *testing.T) {
	utils := "def greet(name):\n    return \"Hi, \" + name\n"
	main := "from utils import greet\n\nprint(greet(\"Ann\"))\n"
	merged := "```save utils.py\ndef welcome(name):\n    return \"Hi, \" + name\n\nfrom utils import welcome\n\nprint(welcome(\"Ann\"))\n```"
	wantUtils := "def welcome(name):\n    return \"Hi, \" + name\n"
	wantMain := "from utils import welcome\n\nprint(welcome(\"Ann\"))\n"
	split := "```save utils.py\n" + wantUtils + "```\n```save main.py\n" + wantMain + "```"
	srv := modeltest.New(modeltest.Text(merged, 50), modeltest.Text(split, 50), modeltest.Text("Renamed.", 50))
	defer srv.Close()
	ws := &memWorkspace{files: map[string]string{"utils.py": utils, "main.py": main}}
	turn := compactTurn(t, srv, ws)
	if _, err := turn.Run(context.Background(), Request{Prompt: "Rename the function greet to welcome in utils.py and update its use in main.py.", Root: "/ws"}); err != nil {
		t.Fatal(err)
	}
	msgs := srv.Requests()[1].Body.Messages
	if told := msgs[len(msgs)-1].Content; !strings.Contains(told, "its content ends with main.py's lines") || !strings.Contains(told, split) {
		t.Errorf("the model was told %q", told)
	}
	if ws.files["utils.py"] != wantUtils || ws.files["main.py"] != wantMain {
		t.Errorf("utils.py = %q, main.py = %q", ws.files["utils.py"], ws.files["main.py"])
	}
	// Not a merge: main.py's lines are not there.
	st := &turnState{files: []FileText{{Path: "utils.py", Text: "1\t" + strings.ReplaceAll(strings.TrimSuffix(utils, "\n"), "\n", "\n2\t") + "\n"}, {Path: "main.py", Text: "1\tfrom utils import greet\n2\t\n3\tprint(greet(\"Ann\"))\n"}}}
	if err := turn.mergedSave("utils.py", wantUtils, st); err != nil {
		t.Errorf("a plain save refused: %v", err)
	}
}

// TestUntouchedFilesAsked: in a compact turn, a model that changed the
// first of the request's files and stops is asked once about the others
// (the real model renamed the constant in config.go only); a claim
// without a call then ends the turn with a notice naming the file that
// stayed as it was.
func TestUntouchedFilesAsked(t *testing.T) {
	srv := modeltest.New(
		modeltest.Text("```save config.go\npackage client\n\nconst MaxAttempts = 3\n```\n", 50),
		modeltest.Text("Changed the constant MaxRetries to MaxAttempts in config.go.", 50),
		modeltest.Text("Changed the constant MaxRetries to MaxAttempts in client.go.", 50),
		modeltest.Text("never asked", 50))
	defer srv.Close()
	ws := &memWorkspace{files: map[string]string{"config.go": "package client\n\nconst MaxRetries = 3\n", "client.go": "package client\n\nfunc A() int { return MaxRetries }\n"}}
	turn := compactTurn(t, srv, ws)
	var notices []string
	turn.Observe = func(e Event) {
		if e.Kind == EventNotice {
			notices = append(notices, e.Text)
		}
	}
	if _, err := turn.Run(context.Background(), Request{Prompt: "Rename the constant MaxRetries to MaxAttempts in config.go and client.go.", Root: "/ws"}); err != nil {
		t.Fatal(err)
	}
	if n := len(srv.Requests()); n != 3 {
		t.Fatalf("%d model calls", n)
	}
	if asked := srv.Requests()[2].Body.Messages[5].Content; !strings.Contains(asked, "also names client.go") {
		t.Errorf("the model was asked %q", asked)
	}
	if len(notices) != 1 || !strings.Contains(notices[0], "client.go, which this turn did not change") {
		t.Errorf("notices = %q", notices)
	}
}

// TestCompactEditsRunTogether: a compact turn runs a reply's save blocks
// together, in order (issue 30's two-file rename: cut after the first, the
// 1.5B model wrote "Result of save main.js" instead of main.js's block);
// text the model adds after them, a result it imagined, is not kept; a
// command after the edits runs after them and ends the reply. A full
// turn still runs the first call only.
func TestCompactEditsRunTogether(t *testing.T) {
	reply := "```save api.js\nfunction loadData() {}\n```\n\n```save main.js\nloadData();\n```\n\nResult of save main.js:\nSaved\n"
	for _, compact := range []bool{true, false} {
		srv := modeltest.New(modeltest.Text(reply, 16), modeltest.Text("Renamed.", 8), modeltest.Text("Renamed too.", 8))
		ws := &memWorkspace{files: map[string]string{"api.js": "function fetchData() {}\n", "main.js": "fetchData();\n"}}
		turn := boundTurn(t, srv, ws, tools.FormatMarkdown)
		turn.Compact = compact
		sum, err := turn.Run(context.Background(), Request{Prompt: "Rename fetchData to loadData in api.js and main.js.", Root: "/ws"})
		srv.Close()
		if err != nil {
			t.Fatalf("compact %v: %v", compact, err)
		}
		both := ws.files["api.js"] == "function loadData() {}\n" && ws.files["main.js"] == "loadData();\n"
		if compact && (!both || sum.ToolUses != 2 || len(srv.Requests()) != 2) {
			t.Errorf("compact: %d calls, %d model calls, files %q", sum.ToolUses, len(srv.Requests()), ws.files)
		}
		if compact && strings.Contains(sum.Messages[len(sum.Messages)-3].Content, "Result of save main.js") {
			t.Errorf("the imagined result was kept in the reply: %q", sum.Messages[len(sum.Messages)-3].Content)
		}
		if !compact && (ws.files["main.js"] != "fetchData();\n" || sum.ToolUses != 1) {
			t.Errorf("full: %d calls, files %q", sum.ToolUses, ws.files)
		}
	}
}

// TestCompactReminderNamesFileCalls: a compact turn asked to delete or move
// a file is shown the delete or move call that does it, for its own files
// (the 1.5B model answered "Delete the file old.go" with a save of old.go);
// the edits around it are still asked as save blocks; a function removed
// or moved between files is an edit, not a file call.
func TestCompactReminderNamesFileCalls(t *testing.T) {
	reg, _, err := builtin.Registry().Select(append(edittool.TurnTools(), shelltool.TurnTools()...))
	if err != nil {
		t.Fatal(err)
	}
	files := func(names ...string) []FileText {
		var out []FileText
		for _, n := range names {
			out = append(out, FileText{Path: n, Text: "1\tx\n"})
		}
		return out
	}
	for _, tc := range []struct {
		prompt    string
		files     []FileText
		want, not []string
	}{
		{"Delete the file old.go; nothing uses it.", files("old.go"), []string{"```delete old.go\n"}, []string{"save block"}},
		{"Delete legacy.ts and remove its import and use from index.ts.", files("legacy.ts", "index.ts"), []string{"```delete legacy.ts\n", "save block"}, []string{"delete index.ts"}},
		{"Move notes.md into the docs folder (docs/notes.md), keeping its content.", files("notes.md"), []string{"```move notes.md docs/notes.md\n"}, []string{"save block"}},
		{"Move the code of helpers.go into a new file named strings.go and delete helpers.go.", files("helpers.go"), []string{"```delete helpers.go\n", "```save strings.go block"}, []string{"like the one below"}},
		{"Remove the unused function legacy_total from orders.py.", files("orders.py"), []string{"save block"}, []string{"delete"}},
		{"Move the function slugify from misc.py to text.py; main.py imports it from text now.", files("misc.py", "text.py", "main.py"), []string{"save block"}, []string{"```move"}},
	} {
		got := compactReminder(reg, tools.FormatMarkdown, Request{Prompt: tc.prompt, Root: "/ws", Files: tc.files})
		for _, w := range tc.want {
			if !strings.Contains(got, w) {
				t.Errorf("%q: the reminder lacks %q:\n%s", tc.prompt, w, got)
			}
		}
		for _, n := range tc.not {
			if strings.Contains(got, n) {
				t.Errorf("%q: the reminder says %q:\n%s", tc.prompt, n, got)
			}
		}
	}
}

// TestRepeatedSaveGetsItsOwnHint: the second identical failing save is
// shown the file's lines with a save's hint, never a patch's (the 1.5B
// model sent an empty `save legacy.ts` three times, told to "copy ORIGINAL
// lines"), and an empty save names the delete call.
func TestRepeatedSaveGetsItsOwnHint(t *testing.T) {
	bad := "```save legacy.ts\n```\n"
	srv := modeltest.New(modeltest.Text(bad, 50), modeltest.Text(bad, 50), modeltest.Text("Stopped.", 50))
	defer srv.Close()
	ws := &memWorkspace{files: map[string]string{"legacy.ts": "export const old = 1;\n"}}
	boundTurn(t, srv, ws, tools.FormatMarkdown).Run(context.Background(), Request{Prompt: "Delete legacy.ts.", Root: "/ws"})
	reqs := srv.Requests()
	if len(reqs) < 3 {
		t.Fatalf("%d model calls", len(reqs))
	}
	msgs := reqs[2].Body.Messages
	first, second := msgs[3].Content, msgs[5].Content
	if !strings.Contains(first, "```delete legacy.ts") {
		t.Errorf("the empty save's error does not name the delete call: %q", first)
	}
	if !strings.Contains(second, "write the whole new file from them") || strings.Contains(second, "ORIGINAL") {
		t.Errorf("the second error's hint: %q", second)
	}
	if ws.files["legacy.ts"] != "export const old = 1;\n" {
		t.Errorf("legacy.ts changed: %q", ws.files["legacy.ts"])
	}
}

// TestBareCallCreatesANamedFile: a fence-less save of a file the request
// names and that does not exist creates it (nothing is lost); a file the
// request does not name is not.
func TestBareCallCreatesANamedFile(t *testing.T) {
	for _, tc := range []struct {
		name, prompt string
		created      bool
	}{
		{"named", "Create hello.go: package main that prints hello.", true},
		{"not named", "Create a hello world program.", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			reply := "```\nsave hello.go\npackage main\n```\n"
			srv := modeltest.New(modeltest.Text(reply, 50), modeltest.Text(reply, 50), modeltest.Text("Done.", 50), modeltest.Text("Done.", 50))
			defer srv.Close()
			ws := &memWorkspace{files: map[string]string{}}
			turn := compactTurn(t, srv, ws)
			turn.Run(context.Background(), Request{Prompt: tc.prompt, Root: "/ws"})
			if got, ok := ws.files["hello.go"]; ok != tc.created || ok && got != "package main\n" {
				t.Errorf("hello.go = %q (%v)", got, ok)
			}
		})
	}
}

// TestSameSaveAgainEndsTurn: a small model that saved the file as asked
// sends the same save again (recorded in the evaluation's py-add-func: four
// identical saves); the turn ends on the save that changed nothing, as
// done. The same save after a different one runs on (it changes the file
// back), and so does one while a file the request names is untouched.
func TestSameSaveAgainEndsTurn(t *testing.T) {
	renamed := strings.ReplaceAll(aGo, "foo", "bar")
	save := "```save a.go\n" + renamed + "```\n"
	other := "```save a.go\n// Package main doubles.\n" + renamed + "```\n"
	for _, tc := range []struct {
		name    string
		replies []string
		files   []FileText
		calls   int
	}{
		{"the same save again", []string{save, save, "never asked"}, []FileText{{Path: "a.go", Text: aGo}}, 2},
		{"a different save between", []string{save, other, save, "Renamed."}, []FileText{{Path: "a.go", Text: aGo}}, 4},
		{"a named file untouched", []string{save, save, "Done.", "Done."}, []FileText{{Path: "a.go", Text: aGo}, {Path: "b.go", Text: "package main\n"}}, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var replies []modeltest.Reply
			for _, r := range tc.replies {
				replies = append(replies, modeltest.Text(r, 50))
			}
			srv := modeltest.New(replies...)
			defer srv.Close()
			ws := &memWorkspace{files: map[string]string{"a.go": aGo, "b.go": "package main\n"}}
			turn := compactTurn(t, srv, ws)
			turn.Limits.MaxSteps = 4
			turn.Run(context.Background(), Request{Prompt: "rename foo to bar", Root: "/ws", Files: tc.files})
			if n := len(srv.Requests()); n != tc.calls {
				t.Errorf("%d model calls, want %d", n, tc.calls)
			}
			if ws.files["a.go"] != renamed {
				t.Errorf("a.go = %q", ws.files["a.go"])
			}
		})
	}
}

// TestShownCodeForAnUntouchedFile: after an edit, a reply that shows code
// in the language of a file the request named and the turn did not change
// is told once how to apply it to that file (the real model saved
// types.ts, was asked about app.ts, and showed app.ts renamed in a ```ts
// block); code shown for a file already changed is not.
func TestShownCodeForAnUntouchedFile(t *testing.T) {
	types := "export interface Person {\n  name: string;\n}\n"
	app := "import { Person } from \"./types\";\n\nexport function name(p: Person): string {\n  return p.name;\n}\n"
	appRenamed := strings.ReplaceAll(app, "Person", "User")
	for _, tc := range []struct {
		name    string
		replies []string
		app     string
		calls   int
	}{
		{"the untouched file's code is asked for", []string{
			"```save types.ts\nexport interface User {\n  name: string;\n}\n```\n",
			"The content of `types.ts` was updated to:\n```ts\nexport interface User {\n  name: string;\n}\n```",
			"The content of `app.ts` was updated to:\n```ts\n" + appRenamed + "```",
			"```save app.ts\n" + appRenamed + "```\n",
			"Renamed in both files.",
		}, appRenamed, 5},
		{"code of a changed file ends the turn", []string{
			"```save types.ts\nexport interface User {\n  name: string;\n}\n```\n```save app.ts\n" + appRenamed + "```\n",
			"The content of `types.ts` is now:\n```ts\nexport interface User {\n  name: string;\n}\n```",
			"never asked",
		}, appRenamed, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var replies []modeltest.Reply
			for _, r := range tc.replies {
				replies = append(replies, modeltest.Text(r, 50))
			}
			srv := modeltest.New(replies...)
			defer srv.Close()
			ws := &memWorkspace{files: map[string]string{"types.ts": types, "app.ts": app}}
			turn := compactTurn(t, srv, ws)
			if _, err := turn.Run(context.Background(), Request{Prompt: "Rename the interface Person to User in types.ts and app.ts.", Root: "/ws"}); err != nil {
				t.Fatal(err)
			}
			if n := len(srv.Requests()); n != tc.calls {
				t.Fatalf("%d model calls, want %d", n, tc.calls)
			}
			if ws.files["app.ts"] != tc.app {
				t.Errorf("app.ts = %q", ws.files["app.ts"])
			}
			if tc.calls == 5 {
				msgs := srv.Requests()[3].Body.Messages
				if told := msgs[len(msgs)-1].Content; !strings.Contains(told, "app.ts") || !strings.Contains(told, "```save app.ts") {
					t.Errorf("the model was told %q", told)
				}
			}
		})
	}
}

// TestCompactListingAndLikelyFiles: a compact turn shows the model the
// workspace's top folder as read lists it (the real model, asked to fix
// "the version this program reports", invented src/version.py; asked to
// point a link at "the real file", it never learnt HISTORY.md existed).
// A request that names no file also shows the likely files: all of a
// small top folder, else those sharing words with the request; never a
// secret. A full turn is sent without either.
func TestCompactListingAndLikelyFiles(t *testing.T) {
	small := map[string]string{"go.mod": "module m\n", "main.go": "package main\n\nfunc main() { println(version) }\n", "version.go": "package main\n\nconst version = \"1.1.0\"\n"}
	larger := map[string]string{"go.mod": "module m\n", "main.go": "package main\n\nfunc main() { println(version) }\n", "version.go": "package main\n\nconst version = \"1.1.0\"\n",
		"util.go": "package main\n\nfunc twice(x int) int { return 2 * x }\n", "notes.md": "# Notes\n", ".env": "VERSION_TOKEN=hunter2\n"}
	for _, tc := range []struct {
		name, prompt string
		files        map[string]string
		compact      bool
		listed       bool
		likely       []string // the files shown as save calls
	}{
		{"compact, no file named, a small folder", "The version this program reports is wrong: it should be 1.2.0. Fix it.", small, true, true, []string{"go.mod", "main.go", "version.go"}},
		{"compact, no file named, the files that share words", "The version this program reports is wrong: it should be 1.2.0. Fix it.", larger, true, true, []string{"main.go", "version.go"}},
		{"compact, no file named, none shares a word", "Tidy up.", larger, true, true, nil},
		{"compact, a file named", "In version.go the version is wrong: it should be 1.2.0. Fix it.", larger, true, true, []string{"version.go"}},
		{"full turn", "The version this program reports is wrong: it should be 1.2.0. Fix it.", small, false, false, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			for name, text := range tc.files {
				if err := os.WriteFile(filepath.Join(root, name), []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			srv := modeltest.New(modeltest.Text("No change.", 50))
			defer srv.Close()
			ws := dirWorkspace{memWorkspace: &memWorkspace{files: maps.Clone(tc.files)}, root: root}
			reg, _, err := BindTools(builtin.Registry(), tools.Env{Workspace: ws}, noHost, testToolOptions(ws)).Select(edittool.TurnTools())
			if err != nil {
				t.Fatal(err)
			}
			turn := &Turn{Model: testModel(t, srv.URL, ModelConfig{Retries: 1}), Registry: reg, Format: tools.FormatMarkdown, Runner: Runner{Registry: reg}, Compact: tc.compact}
			turn.Run(context.Background(), Request{Prompt: tc.prompt, Root: root})
			msgs := srv.Requests()[0].Body.Messages
			first := msgs[len(msgs)-1].Content
			if got := strings.Contains(first, "top folder") && strings.Contains(first, "main.go\n"); got != tc.listed {
				t.Errorf("listed = %v, want %v; the message:\n%s", got, tc.listed, first)
			}
			var shown []string
			for _, m := range regexp.MustCompile("(?m)^```save (\\S+)$").FindAllStringSubmatch(first, -1) {
				shown = append(shown, m[1])
			}
			if !slices.Equal(shown, tc.likely) {
				t.Errorf("files shown %q, want %q; the message:\n%s", shown, tc.likely, first)
			}
			if strings.Contains(first, "hunter2") {
				t.Errorf("a secret was shown:\n%s", first)
			}
		})
	}
}

// TestRenameSaveNotShrinking: a save that renames words on most lines of
// a small file keeps every line, edited in place, and is written (the
// real model's app.ts, Person to User and p to u, was refused as keeping
// 2 of 4 lines); a dedented fragment still keeps few (editedLine). (Asked
// to rename Person alone, the same save is refused once for renaming p:
// TestRenamingSaveOffersTheRename.)
func TestRenameSaveNotShrinking(t *testing.T) {
	app := "import { Person } from \"./types\";\n\nexport function describe(p: Person): string {\n  return `${p.name} (${p.age})`;\n}\n"
	renamed := "import { User } from \"./types\";\n\nexport function describe(u: User): string {\n  return `${u.name} (${u.age})`;\n}\n"
	srv := modeltest.New(modeltest.Text("```save app.ts\n"+renamed+"```\n", 50), modeltest.Text("Renamed.", 50))
	defer srv.Close()
	ws := &memWorkspace{files: map[string]string{"app.ts": app}}
	turn := compactTurn(t, srv, ws)
	if _, err := turn.Run(context.Background(), Request{Prompt: "In app.ts, write User in place of Person, and u in place of p.", Root: "/ws"}); err != nil {
		t.Fatal(err)
	}
	if ws.files["app.ts"] != renamed {
		t.Errorf("app.ts = %q", ws.files["app.ts"])
	}
	for _, tc := range []struct {
		a, b   string
		edited bool
	}{
		{"export function describe(p: Person): string {", "export function describe(u: User): string {", true},
		{"  return `${p.name} (${p.age})`;", "  return `${u.name} (${u.age})`;", true},
		{"    for i in range(1, n):", "for i in range(2, n + 1):", false}, // dedented
		{"    result = []", "    result = [1]", true},
		{"def count_to(n):", "return result", false},
		{"x", "", false},
	} {
		if got := editedLine(tc.a, tc.b); got != tc.edited {
			t.Errorf("editedLine(%q, %q) = %v, want %v", tc.a, tc.b, got, tc.edited)
		}
	}
}

// TestShrinkingSaveShowsTheUnseenFile: a save over a file the model was
// never shown (it guessed version.go's content from the workspace's
// listing) is refused once with the file's current content as the save to
// send; a save shrinking a file the request showed is refused without it.
func TestShrinkingSaveShowsTheUnseenFile(t *testing.T) {
	version := "package main\n\n// version is what -version prints.\nconst version = \"1.1.0\"\n\nfunc v() string { return version }\n"
	fixed := strings.Replace(version, "1.1.0", "1.2.0", 1)
	guess := "```save version.go\npackage version\n\nconst version = \"1.2.0\"\n```\n"
	for _, tc := range []struct {
		name, prompt string
		shown        bool
	}{
		{"not named", "The version that this program reports is wrong: it should be 1.2.0. Fix it.", true},
		{"named", "The version in version.go is wrong: it should be 1.2.0. Fix it.", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := modeltest.New(modeltest.Text(guess, 50), modeltest.Text("```save version.go\n"+fixed+"```\n", 50), modeltest.Text("Fixed.", 50))
			defer srv.Close()
			ws := &memWorkspace{files: map[string]string{"version.go": version}}
			turn := compactTurn(t, srv, ws)
			turn.Run(context.Background(), Request{Prompt: tc.prompt, Root: "/ws"})
			msgs := srv.Requests()[1].Body.Messages
			told := msgs[len(msgs)-1].Content
			if got := strings.Contains(told, "you have not seen it") && strings.Contains(told, "Its current content, as a save call would write it:\n```save version.go\n"+version+"```"); got != tc.shown {
				t.Errorf("content shown = %v, want %v; the model was told %q", got, tc.shown, told)
			}
			if ws.files["version.go"] != fixed {
				t.Errorf("version.go = %q", ws.files["version.go"])
			}
		})
	}
}

// TestUnchangedSaveOnARequestForAChange: a compact turn's first save that
// sends a file back as it was, on a request for a change, tells the model
// nothing changed (the real model saved stats.py unchanged, then said it
// was already right).
func TestUnchangedSaveOnARequestForAChange(t *testing.T) {
	stats := "def mean(xs):\n    return sum(xs) / (len(xs) + 1)\n"
	fixed := "def mean(xs):\n    return sum(xs) / len(xs)\n"
	srv := modeltest.New(
		modeltest.Text("```save stats.py\n"+stats+"```\n", 50),
		modeltest.Text("```save stats.py\n"+fixed+"```\n", 50),
		modeltest.Text("Fixed.", 50))
	defer srv.Close()
	ws := &memWorkspace{files: map[string]string{"stats.py": stats}}
	turn := compactTurn(t, srv, ws)
	turn.Run(context.Background(), Request{Prompt: "python3 -m unittest fails: mean in stats.py is wrong. Fix mean.", Root: "/ws"})
	msgs := srv.Requests()[1].Body.Messages
	if told := msgs[len(msgs)-1].Content; !strings.Contains(told, "Nothing changed: you sent the file exactly as it is") {
		t.Errorf("the model was told %q", told)
	}
	if ws.files["stats.py"] != fixed {
		t.Errorf("stats.py = %q", ws.files["stats.py"])
	}
}

// TestSaveAfterReadIsSeen: a file the model read in the turn counts as
// seen, so its save is written at once.
func TestSaveAfterReadIsSeen(t *testing.T) {
	version := "package main\n\nconst version = \"1.1.0\"\n"
	fixed := "package main\n\nconst version = \"1.2.0\"\n"
	srv := modeltest.New(modeltest.Text("```read version.go\n```\n", 50), modeltest.Text("```save version.go\n"+fixed+"```\n", 50), modeltest.Text("Fixed.", 50))
	defer srv.Close()
	ws := &memWorkspace{files: map[string]string{"version.go": version}}
	turn := compactTurn(t, srv, ws)
	turn.Run(context.Background(), Request{Prompt: "The version this program reports is wrong: it should be 1.2.0. Fix it.", Root: "/ws"})
	if ws.files["version.go"] != fixed {
		t.Errorf("version.go = %q", ws.files["version.go"])
	}
	if n := len(srv.Requests()); n != 3 {
		t.Errorf("%d model calls, want 3", n)
	}
}

// TestAsksForChange: the words that make a request one for a change,
// those the real prompts used included ("give rect_area a third
// parameter": the model claimed a change and the turn ended as done);
// a question is not one.
func TestAsksForChange(t *testing.T) {
	for prompt, want := range map[string]bool{
		"In area.py, give rect_area a third parameter scale with default 1 that multiplies the result.": true,
		"Set the timeout in config.go to 30 seconds.":                                                   true,
		"Bump the version to 1.2.0.":                                                                    true,
		"Fix the off-by-one in count.py.":                                                               true,
		"What does rect_area return?":                                                                   false,
		"Explain how the cache works.":                                                                  false,
	} {
		if got := asksForChange(prompt); got != want {
			t.Errorf("asksForChange(%q) = %v, want %v", prompt, got, want)
		}
	}
}

// TestFencesNoteTeachesNoShape: the note on fence-less calls says how they
// were read and spells no fence to copy (the real model copied "```save
// PATH on the first line" as "```save ./lib.js on the first line,").
func TestFencesNoteTeachesNoShape(t *testing.T) {
	for openers, want := range map[string]string{
		"save test.js":           "(Your reply had no ``` fences; it was read as a ```save test.js block.)\n",
		"save test.js|save a.js": "(Your reply had no ``` fences; it was read as ```save test.js, ```save a.js blocks.)\n",
	} {
		if got := fencesNote(strings.Split(openers, "|")); got != want {
			t.Errorf("fencesNote(%s) = %q, want %q", openers, got, want)
		}
	}
}
