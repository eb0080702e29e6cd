package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestSuite keeps the task folders usable: at least 30 tasks, each
// complete, every Go task its own module (so that go build ./... of the
// repository skips it), no task solved before the model acts, and each
// checker accepting the task's reference solution (solve.sh).
func TestSuite(t *testing.T) {
	for _, tool := range []string{"go", "python3", "node", "grep", "sed"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("the checkers need %s: %v", tool, err)
		}
	}
	tasks, err := loadTasks("tasks", "")
	if err != nil {
		t.Fatal(err)
	}
	if len(tasks) < 30 {
		t.Errorf("%d tasks, want at least 30", len(tasks))
	}
	for _, task := range tasks {
		files, err := snapshot(task.FilesDir())
		if err != nil {
			t.Fatal(err)
		}
		var hasGo bool
		for p := range files {
			hasGo = hasGo || strings.HasSuffix(p, ".go")
		}
		if _, ok := files["go.mod"]; hasGo && !ok {
			t.Errorf("%s: Go files without a go.mod", task.Name)
		}
		ws := t.TempDir()
		if err := copyTree(task.FilesDir(), ws); err != nil {
			t.Fatal(err)
		}
		if check(t.Context(), task, ws, time.Minute) == nil {
			t.Errorf("%s: check.sh passes on the starting files", task.Name)
		}
		solve := exec.CommandContext(t.Context(), "sh", filepath.Join(task.Dir, "solve.sh"))
		solve.Dir = ws
		if out, err := solve.CombinedOutput(); err != nil {
			t.Errorf("%s: solve.sh: %v\n%s", task.Name, err, out)
			continue
		}
		if err := check(t.Context(), task, ws, time.Minute); err != nil {
			t.Errorf("%s: the reference solution is rejected: %v", task.Name, err)
		}
	}
}

func TestReadStderr(t *testing.T) {
	for _, tc := range []struct {
		stderr        string
		log           string
		steps, tokens int
	}{
		{"[agentls] conversation log: /s/t.jsonl\n\n[agentls] done: 2 steps, 1 tool calls, ~777 tokens\n", "/s/t.jsonl", 2, 777},
		{"[agentls] conversation log: /x.jsonl\nagentls ask: the turn stopped after 3 steps (~4,144 tokens): limit reached\n", "/x.jsonl", 3, 4144},
		{"[agentls] done: 1 steps, 0 tool calls, 2,500 tokens, $0.0025\n", "", 1, 2500},
		{"agentls ask: no prompt given\n", "", 0, 0},
	} {
		log, steps, tokens := readStderr(tc.stderr)
		if log != tc.log || steps != tc.steps || tokens != tc.tokens {
			t.Errorf("readStderr(%q) = %q, %d, %d; want %q, %d, %d", tc.stderr, log, steps, tokens, tc.log, tc.steps, tc.tokens)
		}
	}
}

// TestReadTurnLog reads a log as agent/loop.go writes it: an unreadable
// call, two identical failing patches and the same patch a third time,
// refused unrun, a save that applied, and a final answer.
func TestReadTurnLog(t *testing.T) {
	log := `{"role":"system","content":"..."}
{"role":"user","content":"rename foo"}
{"role":"assistant","content":"@patch(x"}
{"role":"user","content":"These tool calls could not be read, so nothing was run:\n- x\nWrite them again."}
{"role":"assistant","content":"` + "```patch a.go\\nbad\\n```" + `"}
{"tool_call":{"call":"patch a.go","ms":0,"outcome":"failed: ORIGINAL not found","tool":"patch"}}
{"role":"user","content":"Error from patch a.go: ORIGINAL not found"}
{"role":"assistant","content":"` + "```patch a.go\\nbad\\n```" + `"}
{"tool_call":{"call":"patch a.go","ms":0,"outcome":"failed: ORIGINAL not found","tool":"patch"}}
{"role":"user","content":"Error from patch a.go: ORIGINAL not found"}
{"role":"assistant","content":"` + "```patch a.go\\nbad\\n```" + `"}
{"tool_call":{"call":"patch a.go","ms":0,"outcome":"not run: the model repeated a failing call","tool":"patch"}}
{"role":"assistant","content":"` + "```save a.go\\ngood\\n```" + `"}
{"tool_call":{"call":"save a.go","ms":1,"outcome":"ok","tool":"save"}}
{"role":"user","content":"Result of save a.go:\nSaved"}
{"role":"assistant","content":"Renamed."}
`
	var r Result
	if err := readTurnLog(strings.NewReader(log), &r); err != nil {
		t.Fatal(err)
	}
	want := Result{Replies: 6, CallReplies: 5, WellFormed: 4, Calls: 3, FailedCalls: 2, Edits: 1, MaxRepeat: 3, MaxFailedRepeat: 2}
	if r != want {
		t.Errorf("got %+v\nwant %+v", r, want)
	}
	if err := readTurnLog(strings.NewReader("{not json\n"), &r); err == nil {
		t.Error("a broken log read without an error")
	}
}

func TestLoadTasksErrors(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "broken", "files"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "broken", "prompt.txt"), []byte("do it"), 0o644)
	if _, err := loadTasks(dir, ""); err == nil || !strings.Contains(err.Error(), "check.sh") {
		t.Errorf("a task without check.sh: %v", err)
	}
	if _, err := loadTasks(dir, "nothing-*"); err == nil {
		t.Error("a glob matching nothing: no error")
	}
}
