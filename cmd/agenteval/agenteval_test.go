package main

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/modeltest"
)

// fakeReplies is, per task, what the fake model answers to the task's
// prompt: its first reply, and then "Done." once a call succeeded.
var fakeReplies = map[string]string{
	// Correct edits.
	"go-rename-func": "```save a.go\npackage main\n\nimport \"fmt\"\n\n// bar doubles x.\nfunc bar(x int) int {\n\treturn x * 2\n}\n\nfunc main() {\n\tfmt.Println(bar(21))\n}\n```\n",
	"py-off-by-one":  "```save count.py\ndef count_to(n):\n    \"\"\"Return the numbers from 1 to n.\"\"\"\n    return list(range(1, n + 1))\n```\n",
	"md-fix-typo":    "```save docs.md\n# Messages\n\nYou receive a message when a build ends.\nTo receive fewer, turn off notifications.\n```\n",
	// An edit that applies but does not do the task: the checker rejects it.
	"md-add-list-item": "```save TODO.md\n# TODO\n\n- Write tests\n- Fix the build\n- Update the docs\n```\n",
	// Nonsense: a patch of lines that are not in the file, sent again and
	// again.
	"ts-change-const": "```patch config.ts\n<<<<<<< ORIGINAL\nconst timeout = 1;\n=======\nconst timeout = 5;\n>>>>>>> UPDATED\n```\n",
}

// respond plays the model for fakeReplies: it finds the task by its
// prompt in the first user message, answers with the task's reply, and
// says "Done." after a call that was not an error.
func respond(prompts map[string]string) func(modeltest.Request) modeltest.Reply {
	return func(req modeltest.Request) modeltest.Reply {
		var first, last string
		for _, m := range req.Body.Messages {
			if m.Role == "user" && first == "" {
				first = m.Content
			}
			if m.Role != "system" {
				last = m.Content
			}
		}
		for name, prompt := range prompts {
			if !strings.Contains(first, prompt) {
				continue
			}
			if len(req.Body.Messages) > 2 && !strings.HasPrefix(last, "Error") {
				return modeltest.Text("Done.", 16)
			}
			return modeltest.Text(fakeReplies[name], 16)
		}
		return modeltest.Text("I do not know this task.", 16)
	}
}

// TestEndToEnd runs the harness on five tasks against the fake model
// server, with agentls built from this repository, and checks what it
// reports for each.
func TestEndToEnd(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is needed by the checkers")
	}
	suite := t.TempDir()
	prompts := map[string]string{}
	for name := range fakeReplies {
		src, err := filepath.Abs(filepath.Join("tasks", name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(src, filepath.Join(suite, name)); err != nil {
			t.Fatal(err)
		}
		task, err := loadTask(src)
		if err != nil {
			t.Fatal(err)
		}
		prompts[name] = task.Prompt
	}
	bin := filepath.Join(t.TempDir(), "agentls")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/agentls/agentls/cmd/agentls").CombinedOutput(); err != nil {
		t.Fatalf("building agentls: %v\n%s", err, out)
	}
	srv := modeltest.NewFunc(respond(prompts))
	defer srv.Close()

	jsonPath := filepath.Join(t.TempDir(), "out.json")
	var stdout, stderr bytes.Buffer
	code := run(t.Context(), []string{"--base-url", srv.URL, "--model", "fake", "--dir", suite, "--agentls", bin, "--json", jsonPath}, &stdout, &stderr)
	t.Logf("table:\n%s", stdout.String())
	if code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, stderr.String())
	}
	var rep Report
	data, err := os.ReadFile(jsonPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatal(err)
	}
	type want struct {
		solved, changed, rejected                                            bool
		replies, callReplies, wellFormed, edits, failed, repeat, steps, exit int
	}
	wants := map[string]want{
		"go-rename-func":   {solved: true, changed: true, replies: 2, callReplies: 1, wellFormed: 1, edits: 1, repeat: 1, steps: 2},
		"py-off-by-one":    {solved: true, changed: true, replies: 2, callReplies: 1, wellFormed: 1, edits: 1, repeat: 1, steps: 2},
		"md-fix-typo":      {solved: true, changed: true, replies: 2, callReplies: 1, wellFormed: 1, edits: 1, repeat: 1, steps: 2},
		"md-add-list-item": {changed: true, rejected: true, replies: 2, callReplies: 1, wellFormed: 1, edits: 1, repeat: 1, steps: 2},
		// The third identical call is refused unrun: three replies, two failures.
		"ts-change-const": {replies: 3, callReplies: 3, wellFormed: 3, failed: 2, repeat: 3, steps: 3, exit: 1},
	}
	if len(rep.Results) != len(wants) {
		t.Fatalf("%d results, want %d", len(rep.Results), len(wants))
	}
	for _, r := range rep.Results {
		w := wants[r.Task]
		got := want{r.Solved, r.Changed, r.Rejected, r.Replies, r.CallReplies, r.WellFormed, r.Edits, r.FailedCalls, r.MaxRepeat, r.Steps, r.Exit}
		if got != w || r.Error != "" || r.Tokens <= 0 || r.Tool != "agentls" || r.Format != "markdown" {
			t.Errorf("%s: got %+v (error %q, %d tokens), want %+v", r.Task, got, r.Error, r.Tokens, w)
		}
		// No settings: agentls's default temperature, sent as 0.
		if r.Sampling != "temperature=0" {
			t.Errorf("%s: sampling %q, want temperature=0 (agentls's default)", r.Task, r.Sampling)
		}
	}
	if s := rep.Total; s.Runs != 5 || s.Solved != 3 || s.Rejected != 1 || s.Edits != 4 || s.MaxRepeat != 3 || s.MaxFailedRepeat != 2 {
		t.Errorf("total %+v", s)
	}
	if !strings.Contains(stdout.String(), "TOTAL") || !strings.Contains(stdout.String(), "3/5") {
		t.Errorf("table without the totals:\n%s", stdout.String())
	}

	// A run cut short is finished by a run with --skip, which makes only
	// the runs those results lack; --from-json merges both.
	var first strings.Builder
	for _, r := range rep.Results[:2] {
		line, _ := json.Marshal(r)
		first.Write(append(line, '\n'))
	}
	partial := filepath.Join(t.TempDir(), "results.jsonl")
	if err := os.WriteFile(partial, []byte(first.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	rest := filepath.Join(t.TempDir(), "rest.json")
	// The rest runs with a user settings file: its sampling reaches the
	// requests (and the report says so).
	settingsFile := filepath.Join(t.TempDir(), "settings.json")
	if err := os.WriteFile(settingsFile, []byte(`{"temperature": 0.3}`), 0o644); err != nil {
		t.Fatal(err)
	}
	stderr.Reset()
	if code := run(t.Context(), []string{"--base-url", srv.URL, "--model", "fake", "--dir", suite, "--agentls", bin, "--json", rest, "--skip", partial, "--agentls-settings", settingsFile}, io.Discard, &stderr); code != 0 {
		t.Fatalf("--skip: exit %d; stderr:\n%s", code, stderr.String())
	}
	var merged bytes.Buffer
	if code := run(t.Context(), []string{"--from-json", partial + "," + rest, "--dir", suite}, &merged, &stderr); code != 0 {
		t.Fatalf("--from-json: exit %d; stderr:\n%s", code, stderr.String())
	}
	restRep, err := loadReports([]string{rest})
	if err != nil {
		t.Fatal(err)
	}
	if len(restRep.Results) != 3 {
		t.Errorf("--skip ran %d tasks, want the 3 the partial results lack", len(restRep.Results))
	}
	for _, r := range restRep.Results {
		if r.Task == rep.Results[0].Task || r.Task == rep.Results[1].Task {
			t.Errorf("--skip ran %s again", r.Task)
		}
		if r.Sampling != "temperature=0.3" {
			t.Errorf("%s with --agentls-settings: sampling %q, want temperature=0.3", r.Task, r.Sampling)
		}
	}
	if !strings.Contains(merged.String(), "3/5") {
		t.Errorf("merged table without the totals of all five:\n%s", merged.String())
	}
}

func TestUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "--base-url and --model are required"},
		{[]string{"--base-url", "http://x/v1", "--model", "m", "--format", "json"}, `--format "json"`},
		{[]string{"--base-url", "http://x/v1", "--model", "m", "--runs", "0"}, "must be positive"},
		{[]string{"--base-url", "http://x/v1", "--model", "m", "--agentls-settings", "agenteval_test.go"}, "--agentls-settings: agenteval_test.go: not JSON"},
		{[]string{"--base-url", "http://x/v1", "--model", "m", "--tasks", "no-such-*"}, "none in"},
		{[]string{"--base-url", "http://x/v1", "--model", "m", "stray"}, `unexpected argument "stray"`},
		{[]string{"--base-url", "http://x/v1", "--model", "m", "--tools", "agentls,cursor"}, `"cursor": want agentls, aider or gptme`},
		{[]string{"--base-url", "http://x/v1", "--model", "m", "--tools", "aider,aider"}, `"aider" twice`},
		{[]string{"--base-url", "not a url", "--model", "m"}, "not an http(s) URL"},
	} {
		var stdout, stderr bytes.Buffer
		if code := run(t.Context(), tc.args, &stdout, &stderr); code != 2 || !strings.Contains(stderr.String(), tc.want) {
			t.Errorf("run(%q) = %d, stderr %q; want 2 and %q", tc.args, code, stderr.String(), tc.want)
		}
	}
}

func TestSpreadTasks(t *testing.T) {
	var tasks []Task
	for _, n := range []string{"go-a", "go-b", "go-c", "md-a", "py-a", "py-b"} {
		tasks = append(tasks, Task{Name: n})
	}
	var got []string
	for _, t := range spreadTasks(tasks) {
		got = append(got, t.Name)
	}
	if want := "go-a md-a py-a go-b py-b go-c"; strings.Join(got, " ") != want {
		t.Errorf("spreadTasks = %q, want %q", got, want)
	}
}
