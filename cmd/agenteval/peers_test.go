package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/modeltest"
)

// fakePeerRun is what testdata/fakepeer.py recorded of one run.
type fakePeerRun struct {
	Name string            `json:"name"`
	Argv []string          `json:"argv"`
	Cwd  string            `json:"cwd"`
	Env  map[string]string `json:"env"`
}

// TestPeersEndToEnd runs the harness with aider and gptme replaced by a
// fake (testdata/fakepeer.py, run as "aider" and as "gptme") against the
// fake model server, on one task, and checks the command lines they were
// given, that they reached the model through the adapter, and what the
// harness reports for them: the table, the JSON and the BENCH.md section.
func TestPeersEndToEnd(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is needed by the fake peers and the checker")
	}
	bin := t.TempDir()
	fake, err := os.ReadFile(filepath.Join("testdata", "fakepeer.py"))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"aider", "gptme"} {
		if err := os.WriteFile(filepath.Join(bin, name), fake, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	record := filepath.Join(t.TempDir(), "record.jsonl")
	t.Setenv("FAKEPEER_RECORD", record)

	fixed := "def count_to(n):\n    \"\"\"Return the numbers from 1 to n.\"\"\"\n    return list(range(1, n + 1))\n"
	srv := modeltest.NewFunc(func(req modeltest.Request) modeltest.Reply {
		usage := &modeltest.Usage{PromptTokens: 50, CompletionTokens: 10, TotalTokens: 60}
		var r modeltest.Reply
		switch sys := req.Body.Messages[0].Content; {
		case len(req.Body.Messages) > 2:
			r = modeltest.Text("Done.", 16)
		case sys == "whole":
			r = modeltest.Text("count.py\n```\n"+fixed+"```\n", 16)
		default:
			r = modeltest.Text("```save count.py\n"+fixed+"```\n", 16)
		}
		r.Usage = usage
		return r
	})
	defer srv.Close()

	md := filepath.Join(t.TempDir(), "BENCH.md")
	os.WriteFile(md, []byte("# Bench\n\nhand-written\n"), 0o644)
	jsonPath := filepath.Join(t.TempDir(), "out.json")
	var stdout, stderr bytes.Buffer
	code := run(t.Context(), []string{"--base-url", srv.URL, "--model", "fake", "--tools", "aider,gptme",
		"--aider", filepath.Join(bin, "aider"), "--gptme", filepath.Join(bin, "gptme"),
		"--tasks", "py-off-by-one", "--json", jsonPath, "--bench-md", md}, &stdout, &stderr)
	t.Logf("table:\n%s", stdout.String())
	if code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, stderr.String())
	}

	// The command lines.
	f, err := os.Open(record)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var runs []fakePeerRun
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var r fakePeerRun
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		runs = append(runs, r)
	}
	if len(runs) != 2 || runs[0].Name != "aider" || runs[1].Name != "gptme" {
		t.Fatalf("runs %+v", runs)
	}
	task, err := loadTask(filepath.Join("tasks", "py-off-by-one"))
	if err != nil {
		t.Fatal(err)
	}
	aider, gptme := runs[0], runs[1]
	for _, want := range [][]string{{"--model", "openai/fake"}, {"--edit-format", "whole"}, {"--no-git"}, {"--yes-always"}, {"--message", task.Prompt}} {
		if !containsSeq(aider.Argv, want) {
			t.Errorf("aider's command line %q lacks %q", aider.Argv, want)
		}
	}
	if last := aider.Argv[len(aider.Argv)-1]; last != "count.py" {
		t.Errorf("aider's last argument %q: the task's file should be added to the chat", last)
	}
	base := aider.Argv[slices.Index(aider.Argv, "--openai-api-base")+1]
	if base == srv.URL || !strings.HasSuffix(base, "/v1") {
		t.Errorf("aider was given %q: not the adapter", base)
	}
	for _, want := range [][]string{{"--non-interactive"}, {"--model", "local/fake"}, {"--tool-format", "markdown"}} {
		if !containsSeq(gptme.Argv, want) {
			t.Errorf("gptme's command line %q lacks %q", gptme.Argv, want)
		}
	}
	if gptme.Argv[len(gptme.Argv)-1] != task.Prompt || gptme.Env["OPENAI_BASE_URL"] != base {
		t.Errorf("gptme: argv %q, OPENAI_BASE_URL %q; want the prompt last and the adapter %q", gptme.Argv, gptme.Env["OPENAI_BASE_URL"], base)
	}
	for _, r := range runs {
		if filepath.Base(r.Cwd) != "ws" || !strings.Contains(r.Env["HOME"], filepath.Join("runs", r.Name)) {
			t.Errorf("%s ran in %q with HOME %q: want the workspace, and a home of its own", r.Name, r.Cwd, r.Env["HOME"])
		}
	}

	// What the harness reports.
	var rep Report
	data, err := os.ReadFile(jsonPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatal(err)
	}
	type want struct {
		tool                                           string
		solved, changed                                bool
		steps, replies, callReplies, wellFormed, edits int
		prompt, completion, flattened                  int
	}
	wants := []want{
		{"aider", true, true, 1, 1, 1, 1, 1, 50, 10, 0},
		{"gptme", true, true, 2, 2, 1, 1, 1, 100, 20, 2},
	}
	if len(rep.Results) != len(wants) {
		t.Fatalf("%d results, want %d", len(rep.Results), len(wants))
	}
	for i, r := range rep.Results {
		got := want{r.Tool, r.Solved, r.Changed, r.Steps, r.Replies, r.CallReplies, r.WellFormed, r.Edits, r.PromptTokens, r.CompletionTokens, r.Flattened}
		if got != wants[i] || r.Error != "" || r.Tokens != r.PromptTokens+r.CompletionTokens || r.Wall <= 0 {
			t.Errorf("result %d: got %+v (error %q)\nwant %+v", i, got, r.Error, wants[i])
		}
	}
	bench, _ := os.ReadFile(md)
	for _, want := range []string{"# Bench\n\nhand-written\n", "<!-- agenteval:results -->", "| aider | 1 | **1** |", "| gptme | 1 | **1** |", "| py-off-by-one | ✓ 1,", "aider `server default`", "<!-- /agenteval:results -->"} {
		if !strings.Contains(string(bench), want) {
			t.Errorf("BENCH.md lacks %q:\n%s", want, bench)
		}
	}
	if !strings.Contains(stdout.String(), "TOTAL aider") || !strings.Contains(stdout.String(), "TOTAL gptme") {
		t.Errorf("no totals per tool:\n%s", stdout.String())
	}

	// The same section again from the JSON, with no model.
	md2 := filepath.Join(t.TempDir(), "BENCH.md")
	var out2 bytes.Buffer
	if code := run(t.Context(), []string{"--from-json", jsonPath, "--bench-md", md2}, &out2, &stderr); code != 0 {
		t.Fatalf("--from-json: exit %d: %s", code, stderr.String())
	}
	again, _ := os.ReadFile(md2)
	if !strings.HasSuffix(string(bench), string(again)) || out2.String() != stdout.String() {
		t.Errorf("--from-json made another section:\n%s\nwant:\n%s", again, bench)
	}
}

func containsSeq(s, seq []string) bool {
	for i := range s {
		if i+len(seq) <= len(s) && slices.Equal(s[i:i+len(seq)], seq) {
			return true
		}
	}
	return false
}

func TestReadAiderHistory(t *testing.T) {
	hist := "TO LLM 2026-12-02T04:23:37\nSYSTEM hi\nUSER fix\n\nLLM RESPONSE 2026-12-02T04:24:44\nASSISTANT a.py\nASSISTANT ```\nASSISTANT x\nASSISTANT ```\n" +
		"TO LLM 2026-12-02T04:25:00\nUSER again\n\nLLM RESPONSE 2026-12-02T04:25:30\nASSISTANT a.py\nASSISTANT ```\nASSISTANT x\nASSISTANT ```\n" +
		"TO LLM 2026-12-02T04:26:00\nUSER again\n\nLLM RESPONSE 2026-12-02T04:26:30\nASSISTANT I cannot.\n"
	r := Result{FailedCalls: 1}
	readAiderHistory(hist, &r)
	if r.Replies != 3 || r.CallReplies != 2 || r.WellFormed != 1 || r.MaxRepeat != 2 {
		t.Errorf("got %+v", r)
	}
}

func TestReadAiderOutput(t *testing.T) {
	out := "Aider v0.86.2\nApplied edit to a.go\nApplied edit to b.go\n" +
		"The LLM did not conform to the edit format.\nhttps://aider.chat/docs/troubleshooting/edit-errors.html\n"
	var r Result
	readAiderOutput(out, &r)
	if r.Edits != 2 || r.FailedCalls != 1 || r.Calls != 3 || r.CallReplies != 0 {
		t.Errorf("got %+v", r)
	}
}

// TestReadGptmeLog reads a conversation log as gptme writes it: a patch
// it could not read, the same again, a save that applied, an answer.
func TestReadGptmeLog(t *testing.T) {
	log := `{"role":"system","content":"You are gptme."}
{"role":"user","content":"fix it"}
{"role":"assistant","content":"` + "```patch a.py\\nbad\\n```" + `"}
{"role":"system","content":"Error during execution: Invalid patch: invalid patch, no ` + "`<<<<<<< ORIGINAL`" + `"}
{"role":"assistant","content":"` + "```patch a.py\\nbad\\n```" + `"}
{"role":"system","content":"Error during execution: Invalid patch: invalid patch, no ` + "`<<<<<<< ORIGINAL`" + `"}
{"role":"assistant","content":"` + "```save a.py\\ngood\\n```" + `"}
{"role":"system","content":"Saved to a.py"}
{"role":"assistant","content":"Fixed."}
`
	var r Result
	if err := readGptmeLog(strings.NewReader(log), &r); err != nil {
		t.Fatal(err)
	}
	want := Result{Replies: 4, CallReplies: 3, WellFormed: 1, Calls: 3, FailedCalls: 2, Edits: 1, MaxRepeat: 2, MaxFailedRepeat: 2}
	if r != want {
		t.Errorf("got %+v\nwant %+v", r, want)
	}
	if err := readGptmeLog(strings.NewReader("{broken\n"), &r); err == nil {
		t.Error("a broken log read without an error")
	}
}
